import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LogRecord } from '../../src/model/otlp-signals';
import type { NormalizedEvent } from '../../src/model/record';
import { claudeCode } from '../../src/sources/claude-code';
import { codex } from '../../src/sources/codex';
import type { HookAdapter, HookEventContext } from '../../src/sources/hook-adapter';
import { HOOK_ADAPTERS, hookAdapter } from '../../src/sources/hook-registry';
import { joinToolCalls, type StoredActivity, type ToolCallRow } from '../../src/store/queries/tool-calls';

/**
 * Each agent's hook adapter against the payloads the real CLIs sent (shared/docs/agent-hooks-facts.md,
 * sanitized): which events they become, the call ids, the exit codes, and the replies — the neutral
 * one and the deny — byte for byte as the agent reads them.
 */
const ctx = (over: Partial<HookEventContext> = {}): HookEventContext => ({ now: 1_790_000_000_000_000_000n, env: { BEACON_DISABLE_GIT_METADATA: '1' }, ...over });
const adapter = (platform: string): HookAdapter => hookAdapter(platform)!;
const read = (platform: string, event: string, payload: unknown, c = ctx()) => adapter(platform).read(event, JSON.stringify(payload), c);
const only = (platform: string, event: string, payload: unknown, c = ctx()): NormalizedEvent['record'] => {
  const evs = read(platform, event, payload, c).events;
  assert.equal(evs.length, 1, `${platform} ${event}: one event`);
  return evs[0]!.record;
};

const CWD = '/home/alice/proj';
const WRITE_CONTENT = 'hello from the lab\n';
const FAILING = 'touch /tmp/SIDE-EFFECT && ls /nonexistent-dir';

describe('Claude Code hooks', () => {
  const common = { session_id: 'c1a0d3e2-0000-4000-8000-000000000001', transcript_path: '/h/.claude/projects/x/s.jsonl', cwd: CWD };
  it('the prompt, the write with its diff, the failed command with its exit code, each with the model\'s call id', () => {
    const prompt = only('claude-code', 'UserPromptSubmit', { ...common, hook_event_name: 'UserPromptSubmit', prompt_id: 'p1', permission_mode: 'bypassPermissions', prompt: 'write a note then list a dir' });
    assert.deepEqual([prompt.event.action, prompt.prompt?.text, prompt.harness], ['prompt.submitted', 'write a note then list a dir', { name: 'claude-code', collection_method: 'hook' }]);

    const writeInput = { file_path: `${CWD}/beacon-lab-note.txt`, content: WRITE_CONTENT };
    const pre = read('claude-code', 'PreToolUse', { ...common, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: writeInput, tool_use_id: 'toolu_beacon_0001' });
    assert.deepEqual(pre.events.map((e) => [e.record.event.action, e.record.gen_ai?.tool?.call?.id]), [['tool.invoked', 'toolu_beacon_0001']]);
    assert.equal(pre.candidate?.()?.record.event.action, 'file.modified', 'the provider judges the write as the write it will be');

    const write = only('claude-code', 'PostToolUse', { ...common, hook_event_name: 'PostToolUse', tool_name: 'Write', tool_input: writeInput, tool_use_id: 'toolu_beacon_0001', tool_response: { type: 'create', filePath: writeInput.file_path, content: WRITE_CONTENT }, duration_ms: 12 });
    assert.equal(write.event.action, 'file.modified');
    assert.equal(write.file?.path, writeInput.file_path);
    assert.match(write.file?.diff ?? '', /^\+hello from the lab$/m);

    const failed = only('claude-code', 'PostToolUseFailure', { ...common, hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', tool_input: { command: FAILING }, tool_use_id: 'toolu_beacon_0002', error: "Exit code 2\nls: cannot access '/nonexistent-dir': No such file or directory", is_interrupt: false, duration_ms: 31 });
    assert.deepEqual([failed.event.action, failed.severity, failed.command], ['tool.failed', 'high', { command: FAILING, exit_code: 2, duration_ms: 31 }]);
    assert.equal(failed.gen_ai?.tool?.call?.id, 'toolu_beacon_0002');
  });

  it("a hook's record of a call and the OTLP export's are one call: the same session, harness and tool_use_id (the join's key)", () => {
    const hook = only('claude-code', 'PostToolUseFailure', { ...common, tool_name: 'Bash', tool_input: { command: FAILING }, tool_use_id: 'toolu_beacon_0002', error: 'Exit code 2\n…' });
    const rec: LogRecord = {
      timeUnixNano: 1n, observedTimeUnixNano: 1n, severityNumber: 9, severityText: '', body: 'claude_code.tool_result', traceId: '', spanId: '', flags: 0,
      resource: { 'service.name': 'claude-code' },
      attributes: { 'event.name': 'tool_result', 'session.id': common.session_id, tool_name: 'Bash', tool_use_id: 'toolu_beacon_0002', success: 'false' },
    } as unknown as LogRecord;
    const otlp = claudeCode.logs!([rec]).events[0]!.record;
    assert.equal(otlp.event.action, hook.event.action);
    // each record keeps its own id (a reused call id must not drop a later call as a replay); the join makes them one row
    assert.deepEqual(joinKey(otlp), joinKey(hook));
  });

  it('session start and end; the final answer on Stop', () => {
    assert.equal(only('claude-code', 'SessionStart', { ...common, hook_event_name: 'SessionStart', source: 'startup' }).event.action, 'session.started');
    assert.equal(only('claude-code', 'SessionEnd', { ...common, hook_event_name: 'SessionEnd', reason: 'other' }).event.action, 'session.ended');
    const stop = only('claude-code', 'Stop', { ...common, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'Done.' });
    assert.deepEqual([stop.event.action, stop.response?.text], ['tool.completed', 'Done.']);
  });

  it('an MCP tool is the server and tool it names', () => {
    const r = only('claude-code', 'PostToolUse', { ...common, tool_name: 'mcp__github__create_issue', tool_input: { title: 'x' }, tool_use_id: 't9', tool_response: {} });
    assert.deepEqual([r.event.action, r.mcp], ['mcp.tool_invoked', { server: 'github', tool: 'create_issue' }]);
  });
});

describe('Codex hooks', () => {
  const common = { session_id: '0199a1b2-0000-7000-8000-000000000002', cwd: CWD, model: 'gpt-5.5', permission_mode: 'bypassPermissions', turn_id: 't1' };
  it("its Claude-style `Bash` is Codex's shell, its apply_patch the file it adds, joined to OTLP by the model's call id", () => {
    const patch = `*** Begin Patch\n*** Add File: beacon-lab-note.txt\n+hello\n*** End Patch\n`;
    const write = only('codex', 'PostToolUse', { ...common, hook_event_name: 'PostToolUse', tool_name: 'apply_patch', tool_input: { command: patch }, tool_use_id: 'call_beacon_0001', tool_response: 'Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nA beacon-lab-note.txt\n' });
    assert.deepEqual([write.event.action, write.file?.path, write.file?.operation], ['file.modified', 'beacon-lab-note.txt', 'create']);
    const shell = only('codex', 'PostToolUse', { ...common, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: FAILING }, tool_use_id: 'call_beacon_0002', tool_response: "ls: cannot access '/nonexistent-dir': No such file or directory\n" });
    assert.deepEqual([shell.event.action, shell.command?.command, shell.gen_ai?.tool?.call?.id], ['command.executed', FAILING, 'call_beacon_0002']);
    // Codex's OTLP record of the call carries the same session and call id: one call in the join
    const rec = {
      timeUnixNano: 1n, observedTimeUnixNano: 1n, severityNumber: 9, severityText: '', body: '', traceId: '', spanId: '', flags: 0, resource: { 'service.name': 'codex_exec' },
      attributes: { 'event.name': 'codex.tool_result', 'conversation.id': common.session_id, tool_name: 'exec_command', call_id: 'call_beacon_0002', arguments: JSON.stringify({ cmd: FAILING }), success: 'true', output: '' },
    } as unknown as LogRecord;
    assert.deepEqual(joinKey(codex.logs!([rec]).events[0]!.record), joinKey(shell));
  });
});

describe('Gemini CLI hooks', () => {
  const common = { session_id: 'g-1', transcript_path: '/h/.gemini/tmp/p/chats/s.jsonl', cwd: CWD, timestamp: '2026-12-01T10:00:00.000Z' };
  it("the prompt from BeforeAgent, the failure from AfterTool's `Exit Code: 2`, the answer from AfterAgent", () => {
    assert.equal(only('gemini-cli', 'BeforeAgent', { ...common, hook_event_name: 'BeforeAgent', prompt: 'do it' }).prompt?.text, 'do it');
    const llmContent = "<untrusted_context>\nOutput: ls: cannot access '/nonexistent-dir'\nExit Code: 2\nProcess Group PGID: 4242\n</untrusted_context>";
    const r = only('gemini-cli', 'AfterTool', { ...common, hook_event_name: 'AfterTool', tool_name: 'run_shell_command', tool_input: { command: FAILING }, tool_response: { llmContent, returnDisplay: '' } });
    assert.deepEqual([r.event.action, r.command?.exit_code, r.command?.command], ['tool.failed', 2, FAILING]);
    assert.equal(only('gemini-cli', 'AfterAgent', { ...common, prompt: 'do it', prompt_response: 'All done', stop_hook_active: false }).response?.text, 'All done');
  });

  it('no call id in the payload: BeforeTool and AfterTool of one call get the same Beacon id, the next identical call another', () => {
    const opened: string[] = [];
    const pairCall = (_s: string, key: string, phase: 'pre' | 'post') => {
      if (phase === 'pre') opened.push(`${key}.${opened.length + 1}`);
      return opened[opened.length - 1];
    };
    const call = { ...common, tool_name: 'write_file', tool_input: { file_path: `${CWD}/n.txt`, content: 'x' } };
    const pre = only('gemini-cli', 'BeforeTool', call, ctx({ pairCall }));
    const post = only('gemini-cli', 'AfterTool', { ...call, tool_response: { llmContent: 'ok' } }, ctx({ pairCall }));
    assert.match(pre.gen_ai?.tool?.call?.id ?? '', /^beacon:[0-9a-f]{24}\.1$/);
    assert.equal(post.gen_ai?.tool?.call?.id, pre.gen_ai?.tool?.call?.id);
    const again = only('gemini-cli', 'BeforeTool', call, ctx({ pairCall }));
    assert.notEqual(again.gen_ai?.tool?.call?.id, pre.gen_ai?.tool?.call?.id);
  });

  it("a read whose content says `Exit Code: 1` is no failure: only the shell's result text is read for one", () => {
    const r = only('gemini-cli', 'AfterTool', { ...common, tool_name: 'read_file', tool_input: { file_path: `${CWD}/log.txt` }, tool_response: { llmContent: 'Exit Code: 1\n' } });
    assert.equal(r.event.action, 'file.read');
  });
});

describe('Qwen Code hooks', () => {
  const common = { session_id: 'q-1', cwd: CWD, timestamp: '2026-12-01T10:00:00.000Z', permission_mode: 'yolo' };
  it("0.24: `tool_call_id` (the model's) is the call id, not Qwen's own tool_use_id; PostToolUseFailure is tool.failed", () => {
    const r = only('qwen-code', 'PostToolUseFailure', { ...common, hook_event_name: 'PostToolUseFailure', tool_name: 'run_shell_command', tool_input: { command: FAILING }, tool_use_id: 'toolu_1796156288136_s83bvutfk', tool_call_id: 'call_beacon_0002', error: 'Command: …\nExit Code: 2\nSignal: 0', is_interrupt: false, duration_ms: 40 });
    assert.deepEqual([r.event.action, r.gen_ai?.tool?.call?.id, r.command?.exit_code], ['tool.failed', 'call_beacon_0002', 2]);
  });
  it('0.15: the failure is a PostToolUse saying `Exit Code: 2`; an empty continuation prompt records nothing', () => {
    const llmContent = 'Command: ls\nDirectory: (root)\nOutput: ls: …\nError: (none)\nExit Code: 2\nSignal: 0\nProcess Group PGID: 1';
    const r = only('qwen-code', 'PostToolUse', { ...common, tool_name: 'run_shell_command', tool_input: { command: FAILING }, tool_use_id: 'toolu_1', tool_response: { llmContent, returnDisplay: '' } });
    assert.deepEqual([r.event.action, r.command?.exit_code, r.gen_ai?.tool?.call?.id], ['tool.failed', 2, 'toolu_1']);
    assert.deepEqual(read('qwen-code', 'UserPromptSubmit', { ...common, prompt: '' }).events, []);
    assert.equal(only('qwen-code', 'UserPromptSubmit', { ...common, prompt: 'go' }).prompt?.text, 'go');
  });
});

describe('Copilot CLI hooks', () => {
  it('camelCase: sessionId, toolName, toolArgs; a "success" result that says exit code 2 is a failure', () => {
    const p = { sessionId: 'cp-1', timestamp: 1_790_000_000_000, cwd: CWD, toolName: 'bash', toolArgs: { command: FAILING, description: 'x' }, toolResult: { resultType: 'success', textResultForLlm: "ls: cannot access …\n<shellId: 0 completed with exit code 2>" } };
    const r = only('copilot-cli', 'postToolUse', p);
    assert.deepEqual([r.event.action, r.command?.exit_code, r.session?.id], ['tool.failed', 2, 'cp-1']);
    const w = only('copilot-cli', 'postToolUse', { sessionId: 'cp-1', cwd: CWD, toolName: 'create', toolArgs: { path: `${CWD}/n.txt`, file_text: 'hi\n' }, toolResult: { resultType: 'success', textResultForLlm: 'Created file' } });
    assert.equal(w.event.action, 'file.modified');
    assert.match(w.file?.diff ?? '', /^\+hi$/m);
    assert.equal(only('copilot-cli', 'userPromptSubmitted', { sessionId: 'cp-1', cwd: CWD, prompt: 'do it' }).prompt?.text, 'do it');
  });
  it("PascalCase: Claude's tool names over Copilot's arguments, `tool_result`", () => {
    const r = only('copilot-cli', 'PostToolUse', { hook_event_name: 'PostToolUse', session_id: 'cp-2', cwd: CWD, tool_name: 'Write', tool_input: { path: `${CWD}/n.txt`, file_text: 'hi\n' }, tool_result: { result_type: 'success', text_result_for_llm: 'ok' } });
    assert.deepEqual([r.event.action, r.gen_ai?.tool?.name, r.file?.path], ['file.modified', 'create', `${CWD}/n.txt`]);
  });
});

describe('opencode plugin payloads', () => {
  it("callID is the model's call id; the shell's exit code is output.metadata.exit", () => {
    const r = only('opencode', 'tool.execute.after', { directory: CWD, input: { tool: 'bash', sessionID: 'ses_1', callID: 'call_beacon_0002', args: { command: FAILING } }, output: { title: '', output: '', metadata: { output: '', exit: 2, truncated: false } } });
    assert.deepEqual([r.event.action, r.command?.exit_code, r.gen_ai?.tool?.call?.id], ['tool.failed', 2, 'call_beacon_0002']);
    assert.equal(only('opencode', 'chat.message', { directory: CWD, input: { sessionID: 'ses_1' }, output: { parts: [{ type: 'text', text: 'hi there' }] } }).prompt?.text, 'hi there');
  });
});

describe('Pi extension payloads ({cwd, sessionId, event})', () => {
  const P = (event: unknown) => ({ cwd: CWD, sessionId: 'pi-1', event });
  it("toolCallId is the model's call id; a failed bash call's exit code is the result text's last line", () => {
    const r = only('pi', 'tool_result', P({ type: 'tool_result', toolName: 'bash', toolCallId: 'call_beacon_0002', input: { command: FAILING }, content: [{ type: 'text', text: 'ls: cannot access\n\n\nCommand exited with code 2' }], details: {}, isError: true }));
    assert.deepEqual([r.event.action, r.command?.exit_code, r.gen_ai?.tool?.call?.id, r.session?.id], ['tool.failed', 2, 'call_beacon_0002', 'pi-1']);
    const e = only('pi', 'tool_result', P({ type: 'tool_result', toolName: 'edit', toolCallId: 'c3', input: { path: `${CWD}/n.txt`, edits: [{ oldText: 'a', newText: 'b' }] }, content: [], isError: false }));
    assert.deepEqual([e.event.action, e.file?.path], ['file.modified', `${CWD}/n.txt`]);
    assert.match(e.file?.diff ?? '', /^\+b$/m);
    assert.equal(only('pi', 'input', P({ type: 'input', text: 'hi there', source: 'interactive' })).prompt?.text, 'hi there');
  });
  it("an assistant message_end is one model call, its numbers already disjoint (input without the cache), keyed by the response id", () => {
    const usage = { input: 900, output: 40, cacheRead: 300, cacheWrite: 0, totalTokens: 1240, cost: { total: 0 } };
    const r = only('pi', 'message_end', P({ type: 'message_end', message: { role: 'assistant', content: [], provider: 'mock', model: 'mock-model', usage, stopReason: 'toolUse', timestamp: 1_796_211_929_260, responseId: 'chatcmpl-1' } }));
    assert.deepEqual([r.event.action, r.harness.collection_method, r.gen_ai?.response?.id, r.gen_ai?.usage?.input_tokens, r.gen_ai?.usage?.output_tokens, r.gen_ai?.usage?.cache_read?.input_tokens], ['model.invoked', 'hook', 'chatcmpl-1', 900, 40, 300]);
    assert.deepEqual(adapter('pi').read('message_end', JSON.stringify(P({ type: 'message_end', message: { role: 'user', content: 'x' } })), ctx()).events, []);
  });
});

describe('replies: the neutral answer never steers the agent, the deny is its own shape', () => {
  const reason = 'pipe to shell';
  // Each agent's observed neutral answer is exit 0 and nothing at all ("allow" skips the user's
  // approval in Claude and Copilot; Codex fails a hook on any field it does not know); goose's is allow.
  const neutral: Record<string, string | undefined> = { goose: '{"decision":"allow"}' };
  const deny: Record<string, [string, unknown]> = {
    goose: ['pre-tool', { decision: 'block', reason }],
    'claude-code': ['PreToolUse', { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } }],
    codex: ['PreToolUse', { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } }],
    'gemini-cli': ['BeforeTool', { decision: 'deny', reason }],
    'qwen-code': ['PreToolUse', { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } }],
    'copilot-cli': ['preToolUse', { permissionDecision: 'deny', permissionDecisionReason: reason }],
    opencode: ['tool.execute.before', { decision: 'deny', reason }],
    cline: ['PreToolUse', { cancel: true, errorMessage: reason }],
    pi: ['tool_call', { decision: 'deny', reason }],
  };
  for (const a of HOOK_ADAPTERS) {
    it(`${a.platform}: neutral on its pre-tool event, its deny shape with a denial, and nothing but the neutral answer on its other events`, () => {
      const [pre, shape] = deny[a.platform]!;
      assert.equal(a.reply(pre), neutral[a.platform]);
      assert.deepEqual(JSON.parse(a.reply(pre, { reason })!), shape);
      assert.ok(a.policyEvents.has(pre));
      for (const e of a.events.filter((e) => !a.policyEvents.has(e))) {
        const r = a.reply(e, { reason });
        assert.ok(r === undefined || r === '{"decision":"allow"}', `${a.platform} ${e}: a denial changes nothing but the pre-tool event`);
      }
    });
  }
  it("Copilot's PascalCase dialect gets the top-level deny too (the one shape both dialects honour)", () => {
    assert.deepEqual(JSON.parse(adapter('copilot-cli').reply('PreToolUse', { reason })!), { permissionDecision: 'deny', permissionDecisionReason: reason });
  });
});

describe("every agent's hook records say which of the agent's hooks saw them", () => {
  // An unclassified tool is `tool.invoked` before and after it ran: only the record's own hook tells
  // a call's post-tool from the next call's pre-tool under the same call id. Each agent's pre and
  // post hook of a tool none of them knows, in its own event names and payload shape.
  const S = 'sess-1';
  const ID = 'call_1';
  const TOOL = 'frobnicate';
  const calls: Record<string, [string, unknown, string, unknown]> = {
    goose: ['pre-tool', { event: 'PreToolUse', session_id: S, tool_call_id: ID, tool_name: TOOL, tool_input: {} }, 'post-tool', { event: 'PostToolUse', session_id: S, tool_call_id: ID, tool_name: TOOL, tool_input: {} }],
    'claude-code': ['PreToolUse', { session_id: S, tool_name: TOOL, tool_input: {}, tool_use_id: ID }, 'PostToolUse', { session_id: S, tool_name: TOOL, tool_input: {}, tool_use_id: ID, tool_response: {} }],
    codex: ['PreToolUse', { session_id: S, tool_name: TOOL, tool_input: {}, tool_use_id: ID }, 'PostToolUse', { session_id: S, tool_name: TOOL, tool_input: {}, tool_use_id: ID, tool_response: '' }],
    'gemini-cli': ['BeforeTool', { session_id: S, tool_name: TOOL, tool_input: {} }, 'AfterTool', { session_id: S, tool_name: TOOL, tool_input: {}, tool_response: {} }],
    'qwen-code': ['PreToolUse', { session_id: S, tool_name: TOOL, tool_input: {}, tool_call_id: ID }, 'PostToolUse', { session_id: S, tool_name: TOOL, tool_input: {}, tool_call_id: ID, tool_response: {} }],
    'copilot-cli': ['preToolUse', { sessionId: S, toolName: TOOL, toolArgs: {} }, 'postToolUse', { sessionId: S, toolName: TOOL, toolArgs: {}, toolResult: { resultType: 'success' } }],
    opencode: ['tool.execute.before', { input: { sessionID: S, tool: TOOL, callID: ID }, output: { args: {} } }, 'tool.execute.after', { input: { sessionID: S, tool: TOOL, callID: ID, args: {} }, output: {} }],
    cline: ['PreToolUse', { sessionContext: { rootSessionId: S }, tool_call: { id: ID, name: TOOL, input: {} } }, 'PostToolUse', { sessionContext: { rootSessionId: S }, tool_result: { id: ID, name: TOOL, input: {}, output: {} } }],
    pi: ['tool_call', { sessionId: S, event: { toolName: TOOL, toolCallId: ID, input: {} } }, 'tool_result', { sessionId: S, event: { toolName: TOOL, toolCallId: ID, input: {}, content: [], isError: false } }],
  };
  // Gemini and Copilot send no call id: Beacon's pairing names the call (here: the same id for both calls, as a reused one)
  const c = ctx({ pairCall: () => ID });
  let seq = 0n;
  const stored = (r: NormalizedEvent['record']): StoredActivity => {
    seq += 1n;
    return { seq, tsNs: seq, method: 'hook', action: r.event.action, sessionId: r.session?.id ?? null, harness: r.harness.name, toolCallId: r.gen_ai?.tool?.call?.id ?? null, record: JSON.stringify(r) };
  };
  for (const a of HOOK_ADAPTERS) {
    it(`${a.platform}: its event name and the phase on each tool record; a call whose post-tool hook was lost stays unfinished, the next call under its id whole`, () => {
      const [preEvent, prePayload, postEvent, postPayload] = calls[a.platform]!;
      const pre = only(a.platform, preEvent, prePayload, c);
      const post = only(a.platform, postEvent, postPayload, c);
      assert.deepEqual([pre.event.action, post.event.action], ['tool.invoked', 'tool.invoked'], 'the tool is unclassified: the action tells nothing');
      const named = (r: NormalizedEvent['record']) => [(r.raw as Record<string, unknown>)?.hook_event, (r.raw as Record<string, unknown>)?.hook_phase];
      const gooseName = (e: string) => (a.platform === 'goose' ? (e === 'pre-tool' ? 'PreToolUse' : 'PostToolUse') : e);
      assert.deepEqual([named(pre), named(post)], [[gooseName(preEvent), 'pre-tool'], [gooseName(postEvent), 'post-tool']]);
      // call 1: its pre-tool only (the post-tool hook lost); call 2, same session and id: pre and post
      const rows = joinToolCalls([stored(pre), stored(pre), stored(post)]).filter((i): i is ToolCallRow => i.kind === 'tool_call');
      assert.deepEqual(rows.map((r) => [r.seenBy, r.unfinished]), [[['pre-tool'], true], [['pre-tool', 'post-tool'], false]]);
    });
  }
});

/** What store/queries/tool-calls.ts joins a call's observations on: its session, harness and call id. */
function joinKey(r: { session?: { id?: string }; harness?: { name?: string }; gen_ai?: { tool?: { call?: { id?: string } } } }): [unknown, unknown, unknown] {
  return [r.session?.id, r.harness?.name, r.gen_ai?.tool?.call?.id];
}
