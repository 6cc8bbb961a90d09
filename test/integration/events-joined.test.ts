/**
 * `beacon events` shows one line per tool call, however many paths saw it (pre-tool and post-tool
 * hook, OTLP execute_tool span, policy), and one line per other event; `--raw` every record.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { logEvents, spanEvents } from '../../src/sources/dispatch';
import { sessionTimeline } from '../../src/store/queries/timeline';
import { needsAttention } from '../../src/store/queries/overview';
import { toRows } from '../../src/ingest/rows';
import { EventLog } from '../../src/store/log/event-log';
import { decodeJsonTraces } from '../../src/receiver/signals/traces';
import { jsonl, runBeacon } from '../helpers/daemon';
import { gooseDefaultLoopTurn, hex } from '../helpers/goose-spans';
import { runHookSync } from '../helpers/hooks';
import { traceRequest, type SpanSpec } from '../helpers/otlp-json';
import { tempDir } from '../helpers/paths';

const MS = 1_000_000n;
const SESSION = '20261201_7';
const now = () => BigInt(Date.now()) * MS;

function storeSpans(path: string, spans: SpanSpec[]): void {
  const log = EventLog.open(path);
  const ex = spanEvents(decodeJsonTraces(Buffer.from(JSON.stringify(traceRequest(spans)))));
  log.append(toRows(ex.events).rows);
  log.close();
}

const hookCall = (id: string, command: string, event = 'PreToolUse') => ({ event, session_id: SESSION, matcher_context: 'shell', tool_call_id: id, tool_name: 'shell', tool_input: { command }, working_dir: '/home/alice/proj' });

/** goose's execute_tool span for one shell call, as the default loop exports it (the turn's own shape). */
function shellSpan(callId: string, command: string, start: bigint): SpanSpec {
  const turn = gooseDefaultLoopTurn({ sessionId: SESSION, start });
  const span = turn.spans.find((s) => s.attributes['gen_ai.tool.call.id'] === 'toolu_01AbC')!;
  const args = JSON.stringify({ command });
  return {
    ...span, spanId: hex(8), start, end: start + 50n * MS,
    attributes: { ...span.attributes, 'gen_ai.tool.call.id': callId, 'gen_ai.tool.call.arguments': args, input: JSON.stringify({ arguments: { command }, tool: 'shell' }) },
  };
}

/**
 * A goose session: a prompt, then goose's default-loop turn over OTLP (two model calls; the shell
 * call toolu_01AbC, a failed edit) with the hooks' view of the shell call; then a call the
 * post-tool hook reports failed, one the policy denies, one still running; last, a call seen by all
 * three paths.
 */
function session(): string {
  const path = join(tempDir('joined-'), 'events.db');
  const t0 = now() - 60_000n * MS;
  runHookSync(path, 'prompt-submit', { event: 'UserPromptSubmit', session_id: SESSION, message: 'fix the failing test' });
  storeSpans(path, gooseDefaultLoopTurn({ sessionId: SESSION, start: t0 }).spans);
  runHookSync(path, 'pre-tool', hookCall('toolu_01AbC', 'cargo test'));
  runHookSync(path, 'post-tool', hookCall('toolu_01AbC', 'cargo test', 'PostToolUse'));
  runHookSync(path, 'prompt-submit', { event: 'UserPromptSubmit', session_id: SESSION, message: 'now build it' });
  runHookSync(path, 'pre-tool', hookCall('toolu_make', 'make'));
  runHookSync(path, 'post-tool', hookCall('toolu_make', 'make', 'PostToolUseFailure'));
  runHookSync(path, 'pre-tool', hookCall('toolu_rm', 'rm -rf /'));
  runHookSync(path, 'pre-tool-result', { ...hookCall('toolu_rm', 'rm -rf /'), event: 'PreToolUseResult', decision: 'deny', blocked_by: 'guard', reason: 'destructive' });
  runHookSync(path, 'pre-tool', hookCall('toolu_sleep', 'sleep 600'));
  // the newest: pre-tool hook, the span (stamped at the call's start), post-tool hook
  const start = now();
  runHookSync(path, 'pre-tool', hookCall('toolu_last', 'git status'));
  storeSpans(path, [shellSpan('toolu_last', 'git status', start)]);
  runHookSync(path, 'post-tool', hookCall('toolu_last', 'git status', 'PostToolUse'));
  return path;
}

const table = (path: string, args: string[] = []) => {
  const r = runBeacon(['events', '--log', path, '--utc', ...args], { COLUMNS: '' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trimEnd().split('\n');
};
const rowsOf = (lines: string[], re: RegExp) => lines.slice(1).filter((l) => re.test(l));

describe('beacon events: one line per tool call', () => {
  const path = session();

  it('a call seen by the pre-tool hook, the post-tool hook and the OTLP span is one line naming the three; --raw shows three', () => {
    const lines = table(path);
    assert.match(lines[0]!, /^TIME\s+HARNESS\s+SEEN BY\s+ACTION\s+RESULT\s+SESSION\s+WHAT\s+TOKENS/);
    const call = rowsOf(lines, /toolu_01AbC/);
    assert.equal(call.length, 1, lines.join('\n'));
    assert.match(call[0]!, /goose\s+pre-tool\+post-tool\+otlp\s+command\.executed\s+ok\s+20261201_7\s+shell: cargo test · 5\.5 s \(call toolu_01AbC\)/);
    assert.equal(rowsOf(lines, /cargo test/).length, 1, 'no record of the call on a line of its own');

    const raw = table(path, ['--raw']);
    assert.match(raw[0]!, /^TIME\s+HARNESS\s+METHOD\s+ACTION\s+SESSION\s+WHAT/);
    assert.deepEqual(rowsOf(raw, /cargo test/).map((l) => /\s(hook|otlp)\s+(\S+)/.exec(l)!.slice(1).join(' ')), ['otlp command.executed', 'hook tool.invoked', 'hook command.executed']);
    // --json is the records, raw by nature
    const records = jsonl(runBeacon(['events', '--log', path, '--json']).stdout);
    assert.equal(records.filter((r) => r.gen_ai?.tool?.call?.id === 'toolu_01AbC').length, 3);
    assert.equal(raw.length - 1, records.length, '--raw: one line per stored record');
  });

  it('events without a call id stay one line each; every call is one line with its outcome', () => {
    const lines = table(path);
    assert.equal(rowsOf(lines, /prompt\.submitted/).length, 2);
    assert.equal(rowsOf(lines, /model\.invoked/).length, 2);
    const outcome = (id: string) => {
      const [row, ...more] = rowsOf(lines, new RegExp(`\\(call ${id}\\)`));
      assert.equal(more.length, 0, `${id} on one line`);
      const m = /goose\s+(\S+)\s+(\S+)\s+(\S+)\s/.exec(row ?? '');
      return m?.slice(1).join(' ');
    };
    assert.equal(outcome('toolu_make'), 'pre-tool+post-tool command.executed failed', 'a failed shell call is a failed command (issue 33)');
    assert.equal(outcome('toolu_rm'), 'pre-tool+policy approval.denied denied');
    assert.equal(outcome('toolu_sleep'), 'pre-tool tool.invoked unfinished');
    assert.equal(outcome('toolu_02XyZ'), 'otlp tool.failed failed', "goose's failed edit, seen by its span alone");
    assert.equal(outcome('toolu_last'), 'pre-tool+post-tool+otlp command.executed ok');
    // 2 prompts, 2 model calls, 6 tool calls
    assert.equal(lines.length - 1, 10, lines.join('\n'));
  });

  it('--limit N keeps the newest N lines, each call whole', () => {
    const one = table(path, ['--limit', '1']);
    assert.equal(one.length, 2, one.join('\n'));
    assert.match(one[1]!, /pre-tool\+post-tool\+otlp\s+command\.executed\s+ok\s.*shell: git status · \d+ m?s \(call toolu_last\)/);
    const three = table(path, ['--limit', '3']);
    assert.deepEqual(three.slice(1).map((l) => /\(call (\S+)\)/.exec(l)?.[1]), ['toolu_rm', 'toolu_sleep', 'toolu_last']);
    assert.match(three[1]!, /pre-tool\+policy/, 'the denied call keeps its pre-tool hook, read beyond the limit');
    const hookOnly = table(path, ['--limit', '1', '--method', 'hook']);
    assert.match(hookOnly[1]!, /pre-tool\+post-tool\+otlp\s.*\(call toolu_last\)/, 'the span is read though --method hook left it out');
    assert.equal(table(path, ['--raw', '--limit', '1']).length, 2);
    assert.equal(jsonl(runBeacon(['events', '--log', path, '--json', '--limit', '2']).stdout).length, 2, '--json --limit: records');
  });

  it('a filter chooses calls, and a chosen call shows every path that saw it', () => {
    const hook = table(path, ['--method', 'hook']);
    assert.match(rowsOf(hook, /toolu_01AbC/)[0] ?? '', /pre-tool\+post-tool\+otlp\s+command\.executed/);
    assert.equal(rowsOf(hook, /model\.invoked/).length, 0, 'the model calls came over OTLP');
    assert.equal(rowsOf(hook, /toolu_02XyZ/).length, 0, 'a call no hook saw is not listed');
    const otlp = table(path, ['--method', 'otlp', '--action', 'command.executed']);
    assert.deepEqual(otlp.slice(1).map((l) => /goose\s+(\S+)\s.*\(call (\S+)\)/.exec(l)?.slice(1).join(' ')), ['pre-tool+post-tool+otlp toolu_01AbC', 'pre-tool+post-tool+otlp toolu_last']);
    const byId = table(path, ['--tool-call', 'toolu_rm']);
    assert.equal(byId.length, 2);
    assert.match(byId[1]!, /pre-tool\+policy\s+approval\.denied\s+denied/);
  });
});

/**
 * Call ids are the provider's: two sessions both have a `call_1`, and a provider numbering its calls
 * anew in every turn reuses them within one session (issue 30 item 1, issue 33). Each call stays a
 * call: in `beacon events`, `beacon sessions` and the timeline the dashboard reads.
 */
describe('a call id names a call within its session, harness and pairing', () => {
  const codexResult = (session: string, callId: string, cmd: string, code: number, ms: bigint) => ({
    timeUnixNano: 0n, observedTimeUnixNano: ms * MS, severityNumber: 9, severityText: '', body: null, traceId: '', spanId: '', eventName: '',
    resource: { 'service.name': 'codex_exec' }, scope: { name: 'codex_otel.log_only', version: '' },
    attributes: { 'event.name': 'codex.tool_result', 'conversation.id': session, tool_name: 'exec_command', call_id: callId, arguments: JSON.stringify({ cmd }), success: code === 0 ? 'true' : 'false', output: `Process exited with code ${code}\n` },
  });
  const storeLogs = (path: string, records: ReturnType<typeof codexResult>[]) => {
    const log = EventLog.open(path);
    log.append(toRows(logEvents(records as never).events).rows);
    log.close();
  };
  /** goose's shell span for one call of `session` (span ids are unique: every span is stored) */
  const gooseShell = (session: string, callId: string, command: string, start: bigint): SpanSpec => {
    const span = gooseDefaultLoopTurn({ sessionId: session, start }).spans.find((s) => s.attributes['gen_ai.tool.call.id'] === 'toolu_01AbC')!;
    return { ...span, spanId: hex(8), start, end: start + 50n * MS, attributes: { ...span.attributes, 'gen_ai.tool.call.id': callId, 'gen_ai.tool.call.arguments': JSON.stringify({ command }), input: JSON.stringify({ arguments: { command }, tool: 'shell' }) } };
  };
  const base = BigInt(Date.now()) - 3_600_000n;

  it('two sessions sharing call ids: every tool record of each is its own row, every failure listed', () => {
    const path = join(tempDir('reuse-'), 'events.db');
    // 2 sessions × 7 calls call_1…call_7; 3 failures in each
    const records = ['c-one', 'c-two'].flatMap((s, si) => [1, 2, 3, 4, 5, 6, 7].map((n) => codexResult(s, `call_${n}`, `step ${n}`, n % 2 === 0 && n < 7 ? 1 : 0, base + BigInt(si * 100 + n) * 1000n)));
    storeLogs(path, records);
    storeSpans(path, ['g-one', 'g-two'].flatMap((s, si) => [1, 2, 3, 4, 5, 6, 7].map((n) => gooseShell(s, `call_${n}`, `make ${n}`, (base + BigInt(si * 100 + 50 + n) * 1000n) * MS))));
    const rows = table(path, ['--limit', '0']).slice(1);
    assert.equal(rows.filter((l) => /\(call call_\d\)/.test(l)).length, 28, rows.join('\n'));
    for (const s of ['c-one', 'c-two', 'g-one', 'g-two']) assert.equal(rows.filter((l) => l.includes(` ${s} `)).length, 7, s);
    const failed = table(path, ['--action', 'tool.failed', '--limit', '0']).slice(1);
    assert.equal(failed.length, 6, failed.join('\n'));
    assert.ok(failed.every((l) => /command\.executed\s+failed\s+c-(one|two)\s/.test(l)), failed.join('\n'));
    // the dashboard's attention list counts them as the rows do
    const log = EventLog.open(path);
    try {
      assert.deepEqual(needsAttention(log.db).counts, { 'command.failed': 6 }, 'failed shell calls are failed commands (issue 33)');
    } finally {
      log.close();
    }
  });

  it('one session whose provider numbers calls call_1, call_2 in every turn: ten calls are ten rows, counted ten times', () => {
    const path = join(tempDir('reuse-'), 'events.db');
    const session = 'g-turns';
    let invocations = 0;
    // 5 turns × 2 calls, each seen by the pre-tool hook, the span (stamped at its start) and the post-tool hook
    for (let turn = 0; turn < 5; turn++) {
      for (const id of ['call_1', 'call_2']) {
        const command = `turn ${turn} ${id}`;
        const call = { ...hookCall(id, command), session_id: session };
        // each invocation with its own key, as the installed launcher gives it (BEACON_HOOK_KEY="$$-…")
        runHookSync(path, 'pre-tool', call, { BEACON_HOOK_KEY: `${process.pid}-${++invocations}` });
        storeSpans(path, [gooseShell(session, id, command, now())]);
        runHookSync(path, 'post-tool', { ...call, event: id === 'call_2' && (turn === 1 || turn === 3) ? 'PostToolUseFailure' : 'PostToolUse' }, { BEACON_HOOK_KEY: `${process.pid}-${++invocations}` });
      }
    }
    const rows = table(path, ['--session', session]).slice(1);
    assert.equal(rows.length, 10, rows.join('\n'));
    for (const l of rows) assert.match(l, /pre-tool\+post-tool\+otlp\s/, l);
    assert.deepEqual(rows.map((l) => /shell: (turn \d call_\d)/.exec(l)?.[1]), [0, 1, 2, 3, 4].flatMap((t) => [`turn ${t} call_1`, `turn ${t} call_2`]));
    assert.equal(rows.filter((l) => /\sfailed\s/.test(l)).length, 2);
    const [summary] = jsonl(runBeacon(['sessions', '--log', path, '--json']).stdout);
    assert.equal(summary.tool_calls, 10, JSON.stringify(summary));
    assert.equal(summary.failed_calls, 2);
    const log = EventLog.open(path);
    try {
      const calls = sessionTimeline(log.db, session).items.filter((it) => it.kind === 'tool_call');
      assert.equal(calls.length, 10);
      assert.deepEqual(needsAttention(log.db).counts, { 'command.failed': 2 }, 'two failed calls, both call_2, both shell calls');
      // a page boundary inside the calls: each call on one page, none repeated on the next
      const first = sessionTimeline(log.db, session, { limit: 4 });
      const second = sessionTimeline(log.db, session, { limit: 4, after: first.next });
      const ids = (p: typeof first) => p.items.flatMap((it) => (it.kind === 'tool_call' ? [it.observations.map((o) => o.event.seq).join(',')] : []));
      assert.equal(ids(first).filter((c) => ids(second).includes(c)).length, 0);
    } finally {
      log.close();
    }
  });
});
