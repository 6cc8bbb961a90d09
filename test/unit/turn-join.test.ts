/**
 * Issue 30: an agent whose hook and OTLP export both report a turn's end (Claude Code: Stop and
 * `assistant_response`; Copilot CLI with content capture on: agentStop and `invoke_agent`'s answer)
 * shows it once, the union of both, in either arrival order; two turns of one session stay two.
 * The real adapters and sources on the payloads the CLIs sent (Claude 2.1.332's Stop, captured in
 * issue 30's run), real SQLite on disk (store/log/turn-join.ts).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { toRows } from '../../src/ingest/rows';
import type { LogRecord } from '../../src/model/otlp-signals';
import type { NormalizedEvent } from '../../src/model/record';
import type { SpanRecord } from '../../src/model/span';
import { logEvents, spanEvents } from '../../src/sources/dispatch';
import { hookAdapter } from '../../src/sources/hook-registry';
import { EventLog } from '../../src/store/log/event-log';
import { tempDir } from '../helpers/paths';

const MS = 1_000_000n;
const T0 = 1_796_000_000_000n * MS;
const SESSION = 'f5959716-959a-4927-9487-28729953c0b7';
const ANSWER = 'The command printed beacon-lab. Done.';
const CWD = '/home/alice/proj';
const ctx = (now: bigint) => ({ now, env: { BEACON_DISABLE_GIT_METADATA: '1' }, key: `inv-${now}` });

function hook(platform: string, event: string, payload: unknown, now: bigint): NormalizedEvent[] {
  return hookAdapter(platform)!.read(event, JSON.stringify(payload), ctx(now)).events;
}

/** Claude Code 2.1.332's Stop payload, as the lab's run captured it. */
const claudeStop = (promptId: string, now: bigint) => hook('claude-code', 'Stop', {
  session_id: SESSION, transcript_path: `/h/.claude/projects/-x/${SESSION}.jsonl`, cwd: CWD, prompt_id: promptId, permission_mode: 'bypassPermissions',
  hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: ANSWER, background_tasks: [], session_crons: [],
}, now);

const claudePrompt = (promptId: string, now: bigint) => hook('claude-code', 'UserPromptSubmit', {
  session_id: SESSION, transcript_path: '/h/t.jsonl', cwd: CWD, prompt_id: promptId, permission_mode: 'bypassPermissions', hook_event_name: 'UserPromptSubmit', prompt: 'list it',
}, now);

/** Its `assistant_response` log record with content capture off (OTEL_LOG_ASSISTANT_RESPONSES unset: the placeholder). */
function claudeResponse(promptId: string, at: bigint, seq = 20): NormalizedEvent[] {
  const rec = {
    timeUnixNano: at, observedTimeUnixNano: at, severityNumber: 9, severityText: '', body: 'claude_code.assistant_response', traceId: '', spanId: '', eventName: '',
    attributes: { 'event.name': 'assistant_response', 'event.timestamp': new Date(Number(at / MS)).toISOString(), 'event.sequence': seq, 'session.id': SESSION, 'prompt.id': promptId, 'user.id': 'u'.repeat(64), 'terminal.type': 'non-interactive', response: '<REDACTED>' },
    resource: { 'service.name': 'claude-code', 'service.version': '2.1.332' }, scope: { name: 'com.anthropic.claude_code.events', version: '2.1.332' },
  } as unknown as LogRecord;
  return logEvents([rec]).events;
}

function store(path: string, events: NormalizedEvent[]): void {
  const log = EventLog.open(path);
  log.append(toRows(events).rows);
  log.close();
}

function turnEnds(path: string): Record<string, any>[] { // eslint-disable-line @typescript-eslint/no-explicit-any
  const log = EventLog.open(path, { readonly: true });
  try {
    return log.list({ action: 'tool.completed' }).map((r) => JSON.parse(r.record));
  } finally {
    log.close();
  }
}

describe('Claude Code: the Stop hook and the assistant_response record are one turn end', () => {
  for (const order of ['hook first', 'OTLP first'] as const) {
    it(`${order}: one row, the answer's text with its marker, the version and both paths`, () => {
      const path = join(tempDir('turn-join-'), 'events.db');
      const h = claudeStop('p-1', T0 + 52n * MS);
      const o = claudeResponse('p-1', T0);
      for (const evs of order === 'hook first' ? [h, o] : [o, h]) store(path, evs);
      // a retried logs export after the merge: nothing more
      store(path, o);
      const ends = turnEnds(path);
      assert.equal(ends.length, 1, JSON.stringify(ends));
      const [end] = ends;
      assert.equal(end.response?.text, ANSWER, "the hook's answer");
      assert.equal(end.content?.included, true, "the answer's own content marker, not the withheld one's");
      assert.equal(end.harness.version, '2.1.332', "the OTLP record's version");
      assert.equal(end.session.working_directory, CWD, "the hook's directory");
      assert.equal(end.prompt?.id, 'p-1');
      assert.deepEqual([end.harness.collection_method, end.event.merged_paths], ['hook', ['otlp']], "the hook's row, in either order (as the prompt's)");
    });
  }

  for (const order of ['hook first', 'OTLP first'] as const) {
    it(`${order}: two turns 3 s apart stay two (their prompt ids differ), each end joined to its own`, () => {
      const path = join(tempDir('turn-join-'), 'events.db');
      const hooks = [...claudeStop('p-1', T0 + 40n * MS), ...claudeStop('p-2', T0 + 3040n * MS)];
      const otlp = [...claudeResponse('p-1', T0, 20), ...claudeResponse('p-2', T0 + 3000n * MS, 40)];
      for (const evs of order === 'hook first' ? [hooks, otlp] : [otlp, hooks]) store(path, evs);
      const ends = turnEnds(path);
      assert.deepEqual(ends.map((e) => [e.prompt?.id, e.event.merged_paths?.length]), [['p-1', 1], ['p-2', 1]], JSON.stringify(ends));
    });
  }

  it('a record of another prompt id is never the same turn, even a second apart', () => {
    const path = join(tempDir('turn-join-'), 'events.db');
    store(path, claudeResponse('p-1', T0));
    store(path, claudeStop('p-2', T0 + 1000n * MS));
    assert.equal(turnEnds(path).length, 2);
  });

  it('more than 10 s apart: two (the reference\'s window for tool.completed)', () => {
    const path = join(tempDir('turn-join-'), 'events.db');
    store(path, claudeResponse('p-1', T0));
    store(path, claudeStop('p-1', T0 + 10_001n * MS));
    assert.equal(turnEnds(path).length, 2);
  });
});

const COPILOT_SESSION = '4d344d6d-0000-4000-8000-000000000001';

/** Copilot CLI 1.0.102's agentStop payload (camelCase dialect, epoch-ms timestamp): no turn id. */
const copilotStop = (now: bigint) => hook('copilot-cli', 'agentStop', {
  sessionId: COPILOT_SESSION, timestamp: Number(now / MS), cwd: CWD, transcriptPath: `/h/.copilot/session-state/${COPILOT_SESSION}/events.jsonl`, stopReason: 'end_turn', stop_hook_active: false,
}, now);
const copilotPrompt = (now: bigint) => hook('copilot-cli', 'userPromptSubmitted', { sessionId: COPILOT_SESSION, timestamp: Number(now / MS), cwd: CWD, prompt: 'and again' }, now);

/** Its `invoke_agent` span with content capture on: the turn's answer in `gen_ai.output.messages`, stamped at the span's end. */
function copilotTurn(start: bigint, end: bigint, spanId: string): NormalizedEvent[] {
  const span: SpanRecord = {
    traceId: 'a'.repeat(32), spanId, parentSpanId: '', name: 'invoke_agent', kind: 1, startTimeUnixNano: start, endTimeUnixNano: end, status: { code: 0, message: '' },
    attributes: {
      'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': COPILOT_SESSION, 'gen_ai.provider.name': 'openai',
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: ANSWER }] }]),
    },
    resource: { 'service.name': 'github-copilot', 'service.version': '1.0.102' }, scope: { name: 'github.copilot', version: '1.0.102' },
  };
  return spanEvents([span]).events.filter((e) => e.record.event.action === 'tool.completed');
}

describe('Copilot CLI: agentStop and the invoke_agent answer are one turn end (no turn id: no prompt between)', () => {
  for (const order of ['hook first', 'OTLP first'] as const) {
    it(`${order}: one row`, () => {
      const path = join(tempDir('turn-join-'), 'events.db');
      const o = copilotTurn(T0 - 5000n * MS, T0, '1'.repeat(16));
      assert.equal(o.length, 1, 'the span gives a turn end');
      const h = copilotStop(T0 + 30n * MS);
      for (const evs of order === 'hook first' ? [h, o] : [o, h]) store(path, evs);
      const ends = turnEnds(path);
      assert.equal(ends.length, 1, JSON.stringify(ends));
      assert.equal(ends[0]!.response.text, ANSWER);
    });

    it(`${order}: two turns 4 s apart, a prompt between them, stay two`, () => {
      const path = join(tempDir('turn-join-'), 'events.db');
      // turn 1's span ends at T0, its agentStop comes 30 ms later; turn 2 starts at T0+1 s and ends at T0+4 s
      const hooks = [...copilotStop(T0 + 30n * MS), ...copilotPrompt(T0 + 1000n * MS), ...copilotStop(T0 + 4030n * MS)];
      const otlp = [...copilotTurn(T0 - 5000n * MS, T0, '1'.repeat(16)), ...copilotTurn(T0 + 1000n * MS, T0 + 4000n * MS, '2'.repeat(16))];
      for (const evs of order === 'hook first' ? [hooks, otlp] : [otlp, hooks]) store(path, evs);
      const ends = turnEnds(path);
      assert.equal(ends.length, 2, JSON.stringify(ends.map((e) => [e.timestamp, e.harness.collection_method])));
      assert.ok(ends.every((e) => e.event.merged_paths?.length === 1), 'each end joined to its own turn');
    });
  }

  it("turn 1's OTLP end lost: turn 2's, 4 s after turn 1's agentStop with a prompt between, is not taken for it", () => {
    const path = join(tempDir('turn-join-'), 'events.db');
    store(path, [...copilotStop(T0 + 30n * MS), ...copilotPrompt(T0 + 1000n * MS)]);
    store(path, copilotTurn(T0 + 1000n * MS, T0 + 4000n * MS, '2'.repeat(16)));
    store(path, copilotStop(T0 + 4030n * MS));
    const ends = turnEnds(path);
    assert.deepEqual(ends.map((e) => [e.timestamp, e.event.merged_paths ?? []]).sort(), [[copilotStop(T0 + 30n * MS)[0]!.record.timestamp, []], [copilotStop(T0 + 4030n * MS)[0]!.record.timestamp, ['otlp']]], JSON.stringify(ends));
  });

  it('a hook turn end with no OTLP one beside it (content capture off) stays as it is', () => {
    const path = join(tempDir('turn-join-'), 'events.db');
    store(path, [...copilotPrompt(T0 - 1000n * MS), ...copilotStop(T0)]);
    const ends = turnEnds(path);
    assert.equal(ends.length, 1);
    assert.equal(ends[0]!.event.merged_ids, undefined);
  });
});

describe('Claude Code: a prompt between two turn ends without ids keeps them apart', () => {
  it('an OTLP end with no prompt id (an older release) and the next turn\'s Stop after a new prompt: two', () => {
    const path = join(tempDir('turn-join-'), 'events.db');
    const o = claudeResponse('', T0);
    store(path, o);
    store(path, claudePrompt('p-2', T0 + 500n * MS));
    store(path, claudeStop('p-2', T0 + 2000n * MS));
    assert.equal(turnEnds(path).length, 2);
  });
});
