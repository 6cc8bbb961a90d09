/**
 * Issue 30 item 2, prompts: a prompt its hook and its OTLP export both report is one row, in either
 * order, joined by what the two really share (store/log/prompt-join.ts). The records are made by the
 * agents' real hook adapters and OTLP readers from payloads and log records as the real CLIs sent
 * them under `beacon install <agent>` (content capture off; the lab's install-alone runs), stored
 * in a real SQLite log. Two prompts of one session stay two.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { toRows } from '../../src/ingest/rows';
import type { LogRecord } from '../../src/model/otlp-signals';
import type { BeaconRecord, NormalizedEvent } from '../../src/model/record';
import type { SpanRecord } from '../../src/model/span';
import { promptEvent } from '../../src/sources/agent-events';
import { logEvents, spanEvents } from '../../src/sources/dispatch';
import { hookAdapter } from '../../src/sources/hook-registry';
import { EventLog } from '../../src/store/log/event-log';
import type { EventRow } from '../../src/store/log/row';
import { tempDir } from '../helpers/paths';

const MS = 1_000_000n;
const T0 = 1_796_240_682_000n * MS;
const PROMPT = 'Write the lab note, then list the missing directory.';

/** One hook invocation's records; its key (the launcher's per-invocation id) from what it is, so a call twice is a retry. */
function hookRows(platform: string, event: string, payload: unknown, now: bigint): EventRow[] {
  const events = hookAdapter(platform)!.read(event, JSON.stringify(payload), { now, env: {}, key: `${platform}-${event}-${now}` }).events;
  return toRows(events).rows;
}

function logRow(service: string, attributes: Record<string, unknown>, at: bigint, trace: { traceId?: string; spanId?: string } = {}): EventRow[] {
  const rec = {
    timeUnixNano: at, observedTimeUnixNano: at, severityNumber: 9, severityText: 'INFO', body: null, attributes, traceId: trace.traceId ?? '', spanId: trace.spanId ?? '',
    eventName: '', resource: { 'service.name': service, 'service.version': '1.0.0' }, scope: { name: service, version: '' },
  } as unknown as LogRecord;
  return toRows(logEvents([rec]).events).rows;
}

/** The records a session's prompts left in the log, oldest first. */
function prompts(log: EventLog, session: string): BeaconRecord[] {
  return log.list({ sessionId: session, action: 'prompt.submitted' }).map((r) => JSON.parse(r.record) as BeaconRecord);
}

function freshLog(): EventLog {
  return EventLog.open(join(tempDir('prompt-join-'), 'events.db'));
}

/** Stores the rows one append each, in the order given. */
function store(log: EventLog, ...batches: EventRow[][]): void {
  for (const rows of batches) log.append(rows);
}

const withoutSequence = (r: BeaconRecord) => ({ ...r, sequence: undefined });

interface AgentCase {
  name: string;
  session: string;
  hook: () => EventRow[];
  otlp: () => EventRow[];
  /** what the joined row knows from the OTLP record */
  fromOtlp: { id?: string; length?: number };
}

// Payloads and attributes as the real CLIs sent them in the install-alone lab runs (ids shortened).
const CASES: AgentCase[] = [
  {
    name: 'Claude Code: by prompt id (hook prompt_id = log record prompt.id)',
    session: '7d602f66-claude',
    hook: () => hookRows('claude-code', 'UserPromptSubmit', { session_id: '7d602f66-claude', cwd: '/w', prompt_id: '7377a967-76ce', permission_mode: 'bypassPermissions', hook_event_name: 'UserPromptSubmit', prompt: PROMPT }, T0 + 78n * MS),
    otlp: () => logRow('claude-code', { 'session.id': '7d602f66-claude', 'event.name': 'user_prompt', 'event.sequence': 13, 'prompt.id': '7377a967-76ce', prompt_length: '52', prompt: '<REDACTED>', prompt_text: '<REDACTED>' }, T0 + 27n * MS),
    fromOtlp: { id: '7377a967-76ce', length: 52 },
  },
  {
    name: 'Codex: by length in Unicode scalar values (its hook turn_id is on no log record)',
    session: '01a23849-codex',
    hook: () => hookRows('codex', 'UserPromptSubmit', { session_id: '01a23849-codex', turn_id: '01a23849-c570', cwd: '/w', hook_event_name: 'UserPromptSubmit', model: 'gpt-5-mock', prompt: PROMPT }, T0 + 40n * MS),
    otlp: () => logRow('codex_exec', { 'event.name': 'codex.user_prompt', prompt_length: '52', prompt: '[REDACTED]', 'conversation.id': '01a23849-codex', model: 'gpt-5-mock' }, T0 + 46n * MS, { traceId: '3402c909d208828b57f2a879833528d4', spanId: 'e3f25f08808470ab' }),
    fromOtlp: { length: 52 },
  },
  {
    name: 'Gemini CLI: by length (BeforeAgent has no prompt id)',
    session: '87ab814b-gemini',
    hook: () => hookRows('gemini-cli', 'BeforeAgent', { session_id: '87ab814b-gemini', cwd: '/w', hook_event_name: 'BeforeAgent', timestamp: '2026-12-02T19:45:00.589Z', prompt: PROMPT }, T0 + 637n * MS),
    otlp: () => logRow('gemini-cli', { 'session.id': '87ab814b-gemini', 'event.name': 'gemini_cli.user_prompt', prompt_length: 52, prompt_id: '87ab814b-gemini' }, T0 + 576n * MS),
    fromOtlp: { id: '87ab814b-gemini', length: 52 },
  },
  {
    name: "Qwen Code: by prompt id (0.24's UserPromptSubmit prompt_id = user_prompt's)",
    session: '6a86e192-qwen',
    hook: () => hookRows('qwen-code', 'UserPromptSubmit', { session_id: '6a86e192-qwen', cwd: '/w', hook_event_name: 'UserPromptSubmit', permission_mode: 'yolo', prompt_id: '6a86e192-qwen########0', prompt: PROMPT, submitted_prompt: PROMPT }, T0 + 1245n * MS),
    otlp: () => logRow('qwen-code', { 'session.id': '6a86e192-qwen', 'event.name': 'qwen-code.user_prompt', prompt_length: 52, prompt_id: '6a86e192-qwen########0', auth_type: 'openai' }, T0 + 620n * MS),
    fromOtlp: { id: '6a86e192-qwen########0', length: 52 },
  },
  {
    name: "opencode: by the text's hash (its spans always carry the prompt)",
    session: 'ses_dc7b4988effe',
    hook: () => hookRows('opencode', 'chat.message', { directory: '/w', input: { sessionID: 'ses_dc7b4988effe' }, output: { message: { id: 'msg_2384b6b9c001', role: 'user', sessionID: 'ses_dc7b4988effe' }, parts: [{ type: 'text', text: PROMPT, messageID: 'msg_2384b6b9c001', sessionID: 'ses_dc7b4988effe' }] } }, T0),
    otlp: () => toRows(spanEvents([opencodeStream('ses_dc7b4988effe', PROMPT, T0 + 5800n * MS)]).events).rows.filter((r) => r.action === 'prompt.submitted'),
    fromOtlp: {},
  },
  {
    name: "Copilot CLI with content capture on: by the text's hash (its invoke_agent span's input message)",
    session: '9098f6dd-copilot',
    hook: () => hookRows('copilot-cli', 'userPromptSubmitted', { sessionId: '9098f6dd-copilot', timestamp: 1796240842051, cwd: '/w', prompt: PROMPT, traceparent: '00-e1c2982322c1943e2e6a6d66ea6ad6ab-234b16770aa5d842-01' }, T0 + 120n * MS),
    otlp: () => toRows(spanEvents([copilotTurn('9098f6dd-copilot', PROMPT, T0)]).events).rows.filter((r) => r.action === 'prompt.submitted'),
    fromOtlp: {},
  },
];

function opencodeStream(session: string, prompt: string, start: bigint): SpanRecord {
  return {
    traceId: 'c4bb6437a3ff8f641cd5116e58f92d3b', spanId: 'aa144e8e8c261d9d', parentSpanId: 'bb144e8e8c261d9d', name: 'ai.streamText.doStream', kind: 1,
    startTimeUnixNano: start, endTimeUnixNano: start + 1300n * MS, status: { code: 0, message: '' },
    attributes: {
      'ai.model.provider': 'mock.chat', 'ai.model.id': 'mock-model', 'session.id': session, 'ai.response.id': 'chatcmpl-beacon-0002', 'ai.response.finishReason': 'tool-calls',
      'ai.prompt.messages': JSON.stringify([{ role: 'system', content: 'You are opencode' }, { role: 'user', content: [{ type: 'text', text: prompt }] }]),
      'ai.prompt.tools': ['{"type":"function","name":"bash"}'], 'ai.usage.inputTokens': 1200, 'ai.usage.outputTokens': 40,
    },
    resource: { 'service.name': 'opencode' }, scope: { name: 'ai', version: '' },
  };
}

function copilotTurn(session: string, prompt: string, start: bigint): SpanRecord {
  return {
    traceId: 'e1c2982322c1943e2e6a6d66ea6ad6ab', spanId: '234b16770aa5d842', parentSpanId: '', name: 'invoke_agent', kind: 1,
    startTimeUnixNano: start, endTimeUnixNano: start + 2000n * MS, status: { code: 0, message: '' },
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': session, 'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: prompt }] }]) },
    resource: { 'service.name': 'github-copilot' }, scope: { name: 'github.copilot', version: '1.0.102' },
  };
}

describe('prompt join: a prompt seen by the hook and by OTLP is one row, either order', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const joined: BeaconRecord[] = [];
      for (const order of ['hook first', 'otlp first'] as const) {
        const log = freshLog();
        try {
          const hook = c.hook();
          const otlp = c.otlp();
          assert.equal(hook.length, 1, 'one hook prompt record');
          assert.equal(otlp.length, 1, 'one OTLP prompt record');
          if (order === 'hook first') store(log, hook, otlp);
          else store(log, otlp, hook);
          const rows = prompts(log, c.session);
          assert.equal(rows.length, 1, `${order}: one row, got ${JSON.stringify(rows)}`);
          const r = rows[0]!;
          assert.equal(r.harness.collection_method, 'hook', `${order}: the hook's row is kept`);
          assert.equal(r.event.id, hook[0]!.id);
          assert.equal(r.prompt?.text, PROMPT, `${order}: the text, from the hook`);
          assert.equal(r.content?.included, true);
          if (c.fromOtlp.id) assert.equal(r.prompt?.id, c.fromOtlp.id, `${order}: the prompt id`);
          if (c.fromOtlp.length !== undefined) assert.equal(r.prompt?.length, c.fromOtlp.length, `${order}: the length`);
          assert.deepEqual(r.event.merged_ids, [otlp[0]!.id], `${order}: the OTLP record absorbed`);
          assert.deepEqual(r.event.merged_paths, ['otlp']);
          // a retried export or hook adds nothing
          store(log, otlp, hook);
          assert.equal(prompts(log, c.session).length, 1, `${order}: retries add nothing`);
          joined.push(prompts(log, c.session)[0]!);
        } finally {
          log.close();
        }
      }
      assert.deepEqual(withoutSequence(joined[0]!), withoutSequence(joined[1]!), 'the same row in either order');
    });
  }
});

/** A Codex prompt of `text` in `session` at `at`, by both paths (the hook a few ms later, as in the lab). */
function codexPrompt(session: string, text: string, at: bigint): { hook: EventRow[]; otlp: EventRow[] } {
  return {
    hook: hookRows('codex', 'UserPromptSubmit', { session_id: session, turn_id: `turn-${at}`, cwd: '/w', hook_event_name: 'UserPromptSubmit', prompt: text }, at + 15n * MS),
    otlp: logRow('codex_exec', { 'event.name': 'codex.user_prompt', prompt_length: String([...text].length), prompt: '[REDACTED]', 'conversation.id': session }, at),
  };
}

describe("prompt join: the length as each agent counts it", () => {
  // '🐛' is one Unicode scalar value and two UTF-16 code units: 9 against 10
  const TEXT = 'fix 🐛 now';
  it("Codex counts Unicode scalar values (Rust's chars().count()): 9 joins, 10 does not", () => {
    for (const [length, rows] of [['9', 1], ['10', 2]] as const) {
      const log = freshLog();
      try {
        store(log, hookRows('codex', 'UserPromptSubmit', { session_id: `codex-emoji-${length}`, prompt: TEXT }, T0), logRow('codex_exec', { 'event.name': 'codex.user_prompt', prompt_length: length, prompt: '[REDACTED]', 'conversation.id': `codex-emoji-${length}` }, T0));
        assert.equal(prompts(log, `codex-emoji-${length}`).length, rows, `prompt_length ${length}`);
      } finally {
        log.close();
      }
    }
  });

  it("Gemini CLI counts JavaScript's length (UTF-16 code units): 10 joins, 9 does not", () => {
    for (const [length, rows] of [[10, 1], [9, 2]] as const) {
      const log = freshLog();
      try {
        store(log, hookRows('gemini-cli', 'BeforeAgent', { session_id: `gemini-emoji-${length}`, prompt: TEXT }, T0), logRow('gemini-cli', { 'session.id': `gemini-emoji-${length}`, 'event.name': 'gemini_cli.user_prompt', prompt_length: length, prompt_id: `gemini-emoji-${length}` }, T0));
        assert.equal(prompts(log, `gemini-emoji-${length}`).length, rows, `prompt_length ${length}`);
      } finally {
        log.close();
      }
    }
  });
});

describe('prompt join: never two prompts in one', () => {
  it('two prompts of one Codex session with the same length, 20 s apart, stay two, each joined with its own OTLP record, in any arrival order', () => {
    const a = codexPrompt('codex-two', 'yes, do it', T0);
    const b2 = codexPrompt('codex-two', 'no, stop 2', T0 + 20_000n * MS);
    for (const order of [[a.hook, b2.hook, a.otlp, b2.otlp], [b2.otlp, a.otlp, b2.hook, a.hook], [a.otlp, b2.hook, a.hook, b2.otlp]]) {
      const log = freshLog();
      try {
        store(log, ...order);
        const rows = prompts(log, 'codex-two');
        assert.deepEqual(rows.map((r) => [r.prompt?.text, r.harness.collection_method, r.event.merged_ids]), [['yes, do it', 'hook', [a.otlp[0]!.id]], ['no, stop 2', 'hook', [b2.otlp[0]!.id]]]);
      } finally {
        log.close();
      }
    }
  });

  it('Claude: two prompt ids are two prompts, whatever else agrees (same length, same moment)', () => {
    const log = freshLog();
    try {
      const hook = hookRows('claude-code', 'UserPromptSubmit', { session_id: 'claude-two', prompt_id: 'p-1', prompt: PROMPT }, T0);
      const otlp = logRow('claude-code', { 'session.id': 'claude-two', 'event.name': 'user_prompt', 'prompt.id': 'p-2', prompt_length: '52', prompt: '<REDACTED>' }, T0);
      store(log, hook, otlp);
      assert.equal(prompts(log, 'claude-two').length, 2);
    } finally {
      log.close();
    }
  });

  it('Gemini: a length that differs is another prompt; a length alone joins only within 10 s', () => {
    const log = freshLog();
    try {
      const hook = hookRows('gemini-cli', 'BeforeAgent', { session_id: 'gemini-two', prompt: PROMPT }, T0);
      store(log, hook, logRow('gemini-cli', { 'session.id': 'gemini-two', 'event.name': 'gemini_cli.user_prompt', prompt_length: 51, prompt_id: 'gemini-two' }, T0));
      store(log, logRow('gemini-cli', { 'session.id': 'gemini-two', 'event.name': 'gemini_cli.user_prompt', prompt_length: 52, prompt_id: 'gemini-two' }, T0 + 30_000n * MS));
      assert.deepEqual(prompts(log, 'gemini-two').map((r) => r.harness.collection_method), ['hook', 'otlp', 'otlp']);
    } finally {
      log.close();
    }
  });

  it('another session or another agent is never joined', () => {
    const log = freshLog();
    try {
      const a = codexPrompt('codex-a', PROMPT, T0);
      const b = codexPrompt('codex-b', PROMPT, T0);
      store(log, a.hook, b.otlp, hookRows('qwen-code', 'UserPromptSubmit', { session_id: 'codex-a', prompt: PROMPT }, T0));
      assert.equal(prompts(log, 'codex-a').length, 2);
      assert.equal(prompts(log, 'codex-b').length, 1);
    } finally {
      log.close();
    }
  });
});

describe('prompt join and import', () => {
  it("a joined prompt still takes its import (the store's record merges into it by the text's hash)", () => {
    const log = freshLog();
    try {
      const c = CASES.find((x) => x.session.endsWith('claude'))!;
      store(log, c.hook(), c.otlp());
      const imported: NormalizedEvent = promptEvent({ harness: 'claude-code', usage: { inputIncludesCache: false, outputIncludesReasoning: true }, classifyTool: () => ({ consumed: true }) as never },
        { time: T0 + 30n * MS, resource: {}, sessionId: c.session, key: 'prompt:uuid-1', method: 'poll' }, PROMPT);
      store(log, toRows([imported]).rows);
      const rows = prompts(log, c.session);
      assert.equal(rows.length, 1, JSON.stringify(rows));
      assert.deepEqual(rows[0]!.event.merged_paths, ['otlp', 'poll']);
    } finally {
      log.close();
    }
  });
});
