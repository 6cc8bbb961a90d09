import { spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hex } from './goose-spans';
import { runHookSync } from './hooks';
import { traceRequest, type SpanSpec } from './otlp-json';
import { tempDir } from './paths';

/** Hostile strings as a prompt, a command, a path and file content can carry them. */
export const XSS = {
  script: '<script>window.__pwned=1</script>',
  attr: '"><img src=x onerror="window.__pwned=2">',
  js: 'javascript:window.__pwned=3',
  ansi: '\u001b[31mRED\u001b[0m',
  bidi: 'abc\u202Eevil',
};

export interface GooseSession {
  sessionId: string;
  prompt: string;
  calls: { ok: string; edit: string; failed: string; denied: string };
  editPath: string;
}

/**
 * One goose session recorded the way goose records it, through both collection paths: hooks run by
 * `sh -c` against the log, and OTLP/JSON spans posted with curl to the running collector. It has a
 * prompt, two model calls, a successful shell call, an edit (with a diff), a failed command, and a
 * call the policy provider denied. Every free-text field carries the XSS corpus.
 */
export function recordGooseSession(collectorUrl: string, log: string, opts: { sessionId?: string } = {}): GooseSession {
  const sessionId = opts.sessionId ?? `20261201_${Math.floor(Math.random() * 1000)}`;
  const repo = '/home/alice/proj';
  const prompt = `fix the failing test ${XSS.script} ${XSS.attr} ${XSS.js} ${XSS.ansi} ${XSS.bidi}`;
  const editPath = `src/${XSS.attr}.rs`;
  const calls = { ok: `toolu_ok_${hex(4)}`, edit: `toolu_edit_${hex(4)}`, failed: `toolu_fail_${hex(4)}`, denied: `toolu_deny_${hex(4)}` };
  const hook = (sub: string, payload: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) => {
    const r = runHookSync(log, sub, { session_id: sessionId, working_dir: repo, ...payload }, env);
    if (r.status !== 0 || r.stderr) throw new Error(`hook ${sub}: ${r.stderr}`);
    return r;
  };
  const tool = (event: string, name: string, input: unknown, id: string) => ({ event, matcher_context: name, tool_call_id: id, tool_name: name, tool_input: input });

  const shellOk = { command: 'cargo test --quiet' };
  const edit = { path: editPath, before: 'fn old() {}', after: `fn new() { /* ${XSS.script} ${XSS.ansi} */ }` };
  const shellFail = { command: `npm test -- '${XSS.attr}'` };
  const destructive = { command: 'rm -rf /' };

  hook('session-start', { event: 'SessionStart', matcher_context: null });
  hook('prompt-submit', { event: 'UserPromptSubmit', message: prompt });
  const afterPrompt = Date.now();
  // When each call began, so the OTLP spans below sit where goose would have timed them.
  const at: Record<string, number> = {};
  at.ok = Date.now();
  hook('pre-tool', tool('PreToolUse', 'shell', shellOk, calls.ok));
  hook('post-tool', tool('PostToolUse', 'shell', shellOk, calls.ok));
  at.edit = Date.now();
  hook('pre-tool', tool('PreToolUse', 'edit', edit, calls.edit));
  hook('post-tool', tool('PostToolUse', 'edit', edit, calls.edit));
  at.failed = Date.now();
  hook('pre-tool', tool('PreToolUse', 'shell', shellFail, calls.failed));
  hook('post-tool', tool('PostToolUse', 'shell', shellFail, calls.failed));
  const provider = join(tempDir('policy-'), 'deny.sh');
  writeFileSync(provider, `#!/bin/sh\ncat >/dev/null\necho '{"decision":"deny","reason":"destructive command ${XSS.script.replace(/'/g, '')}","rule_id":"R-7","severity":"critical"}'\n`);
  chmodSync(provider, 0o755);
  const denied = hook('pre-tool', tool('PreToolUse', 'shell', destructive, calls.denied), { BEACON_POLICY_PROVIDER: provider });
  if (!denied.stdout.includes('block')) throw new Error(`the policy provider did not deny: ${denied.stdout}`);
  at.stop = Date.now();
  hook('stop', { event: 'Stop', last_assistant_message: `All tests pass. ${XSS.script}` });

  // The same calls as goose exports them over OTLP (content capture on), timed from the prompt.
  const ms = (n: number) => BigInt(n) * 1_000_000n;
  const traceId = hex(16);
  const session = { 'session.id': sessionId, 'gen_ai.conversation.id': sessionId };
  const chat = (n: number, input: number, output: number, finish: string, text?: string): SpanSpec => ({
    name: 'stream_response_from_provider', traceId, spanId: hex(8), start: ms(n), end: ms(n + 900),
    attributes: {
      ...session, 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'anthropic', 'gen_ai.request.model': 'claude-sonnet-4-5',
      'gen_ai.response.model': 'claude-sonnet-4-5-20250929', 'gen_ai.response.finish_reasons': JSON.stringify([finish]),
      'gen_ai.usage.input_tokens': input, 'gen_ai.usage.output_tokens': output, 'gen_ai.usage.cache_read.input_tokens': Math.floor(input / 2), 'gen_ai.usage.cache_creation.input_tokens': 100,
      ...(text ? { 'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'reasoning', content: `think ${XSS.script}` }, { type: 'text', content: text }] }]) } : {}),
    },
  });
  const exec = (n: number, name: string, id: string, args: unknown, result: unknown, error = false): SpanSpec => ({
    name: 'dispatch_tool_call', traceId, spanId: hex(8), start: ms(n), end: ms(n + 500),
    attributes: {
      ...session, input: JSON.stringify({ arguments: args, tool: name }), 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, 'gen_ai.tool.call.id': id,
      'gen_ai.tool.call.arguments': JSON.stringify(args), 'gen_ai.tool.call.result': JSON.stringify(result), ...(error ? { 'error.type': 'tool_error' } : {}),
    },
  });
  const sc = (stdout: string, exit: number) => ({ content: [{ type: 'text', text: stdout }], structuredContent: { stdout, stderr: '', exit_code: exit }, isError: exit !== 0 });
  const spans: SpanSpec[] = [
    chat(afterPrompt + 1, 12840, 212, 'tool_use'),
    exec(at.ok! + 1, 'shell', calls.ok, shellOk, sc('test result: ok', 0)),
    exec(at.edit! + 1, 'edit', calls.edit, edit, { content: [{ type: 'text', text: 'edited' }], isError: false }),
    exec(at.failed! + 1, 'shell', calls.failed, shellFail, sc(`FAIL ${XSS.ansi}`, 1)),
    chat(at.stop! - 1, 13300, 98, 'end_turn', `All done. ${XSS.attr}`),
  ];
  const r = spawnSync('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_code}', '-H', 'content-type: application/json', '--data-binary', '@-', `${collectorUrl}/v1/traces`], {
    input: JSON.stringify(traceRequest(spans)), encoding: 'utf8',
  });
  if (r.stdout !== '200') throw new Error(`OTLP export answered ${r.stdout}: ${r.stderr}`);
  hook('session-end', { event: 'SessionEnd', matcher_context: null });
  return { sessionId, prompt, calls, editPath };
}
