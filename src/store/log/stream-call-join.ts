import type Database from 'better-sqlite3';
import { tryParse } from './call-join';
import { parseRecord } from './merge';
import type { EventRow } from './row';

/**
 * One tool call, one row, when the agent's stream names its calls with ids of its own (issue 32).
 * `codex exec --json` gives each item an id (`item_N`) and never the model's call id, which Codex's
 * OTLP export (`codex.tool_result`, `call_id`) carries. Its stream adapter marks the call's record
 * (`joinCall`, the item id kept in `raw.stream_item`), and the store gives it the call id of the OTLP
 * record of the same session, harness and tool, with the same command line where both have one:
 *
 * - Whichever arrives second does it, before its insert: a stream record looks for an OTLP record
 *   no stream record holds, an OTLP record (`joinCall`, with a call id) for a stream record that
 *   still has its own id, and renames it (an UPDATE: rows exported already keep the item id).
 * - Nearest in time, one to one: the distance of the stream record's time to the OTLP call's
 *   [time - duration, time] (a stream's time is when `beacon stream` read the item's start; the
 *   export's is the call's end). Each side names the other (`raw.stream_joined` on the stream
 *   record, `raw.stream_record` on the OTLP record: event ids, not call ids, because some providers
 *   number their calls anew each turn), so no record is taken twice and two calls never fold into one.
 * - Records within `NEAR_NS` are looked at first (a piped stream); only when none is there, the
 *   whole `STREAM_JOIN_WINDOW_NS`: a stream read after the run (its times are the reading's) still
 *   joins, and a run resumed days later in the same session does not reach back to the first.
 *   That wide scan reads each record of the window (~10 ms a row with 1,000 unmatched calls each side).
 *
 * The stream record keeps its event id (derived from the item id), so a replayed stream adds nothing.
 */
export const STREAM_JOIN_WINDOW_NS = 6n * 3600n * 1_000_000_000n;
/** Looked at first: a piped stream's call and its OTLP record lie this close (beyond the call's duration). */
const NEAR_NS = 30n * 1_000_000_000n;

const TOOL_NAME = "json_extract(record, '$.gen_ai.tool.name')";
const COMMAND = "coalesce(json_extract(record, '$.gen_ai.tool.call.arguments.cmd'), json_extract(record, '$.gen_ai.tool.call.arguments.command'))";
const DURATION = "json_extract(record, '$.gen_ai.duration_ms')";
/** the same command line, or either without one (content capture off, another tool): no evidence either way */
const SAME_COMMAND = `(@command IS NULL OR ${COMMAND} IS NULL OR ${COMMAND} = @command)`;
/** a record of the call itself, not a decision on it (Codex's `codex.tool_decision` names its call too) */
const NOT_DECISION = "substr(action, 1, 9) <> 'approval.'";
const RENAME = "UPDATE events SET tool_call_id = ?, record = json_set(record, '$.gen_ai.tool.call.id', ?, '$.raw.stream_joined', ?) WHERE seq = ?";
const HOLD = "UPDATE events SET record = json_set(record, '$.raw.stream_record', ?) WHERE seq = ?";

type Rec = { gen_ai?: { duration_ms?: unknown; tool?: { name?: unknown; call?: { id?: unknown; arguments?: unknown } } }; raw?: Record<string, unknown> };
type Found = { seq: bigint; id: string; tsNs: bigint; toolCallId: string; durationMs: unknown };

export class StreamCallJoins {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  /**
   * Before `row` is inserted: a stream call under its own id takes the call id of its OTLP record,
   * or an OTLP record gives its call id to its stream call stored before it. Each side names the
   * other (`raw.stream_joined` on the stream record, `raw.stream_record` on the OTLP record), so
   * neither is taken twice. The row given is never changed (a retried transaction prepares it again).
   */
  prepare(row: EventRow): EventRow {
    if (!row.joinCall || row.sessionId === null || row.toolCallId === null || row.action.startsWith('approval.')) return row;
    if (row.method !== 'stream' && row.method !== 'otlp') return row;
    const rec = parseRecord(row.record) as Rec;
    const name = rec.gen_ai?.tool?.name;
    if (typeof name !== 'string' || (row.method === 'stream' && rec.raw?.stream_item !== row.toolCallId)) return row;
    if (this.q('SELECT 1 FROM events WHERE id = ?').get(row.id)) return row; // a replay: the stored copy stays as it is
    const where = { command: commandOf(rec.gen_ai?.tool?.call?.arguments) ?? null, session: row.sessionId, lo: 0n, hi: 0n, harness: row.harness, name };
    // Near first (a piped stream reads a call as it starts): the wide window's scan only when nothing is near.
    const near = (lo: bigint, hi: bigint) => ({ ...where, lo, hi });
    const wide = near(row.tsNs - STREAM_JOIN_WINDOW_NS, row.tsNs + STREAM_JOIN_WINDOW_NS);
    if (row.method === 'stream') {
      const sql = `SELECT seq, id, ts_ns AS tsNs, tool_call_id AS toolCallId, ${DURATION} AS durationMs FROM events
         WHERE session_id = @session AND ts_ns BETWEEN @lo AND @hi AND harness = @harness AND method = 'otlp' AND tool_call_id IS NOT NULL AND ${NOT_DECISION}
           AND ${TOOL_NAME} = @name AND json_extract(record, '$.raw.stream_record') IS NULL AND ${SAME_COMMAND}`;
      const find = (w: typeof where) => nearest(this.q(sql).safeIntegers(true).all(w) as Found[], (h) => distance(row.tsNs, h));
      const best = find(near(row.tsNs - NEAR_NS, row.tsNs + NEAR_NS)) ?? find(wide);
      if (!best) return row;
      this.q(HOLD).run(row.id, best.seq);
      return { ...row, toolCallId: best.toolCallId, record: JSON.stringify(marked(rec, { stream_joined: best.id }, best.toolCallId)) };
    }
    const sql = `SELECT seq, id, ts_ns AS tsNs FROM events
       WHERE session_id = @session AND ts_ns BETWEEN @lo AND @hi AND harness = @harness AND method = 'stream' AND tool_call_id IS NOT NULL
         AND tool_call_id = json_extract(record, '$.raw.stream_item') AND ${TOOL_NAME} = @name AND ${SAME_COMMAND}`;
    const self = { tsNs: row.tsNs, durationMs: rec.gen_ai?.duration_ms };
    const find = (w: typeof where) => nearest(this.q(sql).safeIntegers(true).all(w) as Array<{ seq: bigint; id: string; tsNs: bigint }>, (c) => distance(c.tsNs, self));
    const best = find(near(row.tsNs - durationNs(self.durationMs) - NEAR_NS, row.tsNs + NEAR_NS)) ?? find(wide);
    if (!best) return row;
    this.q(RENAME).run(row.toolCallId, row.toolCallId, row.id, best.seq);
    return { ...row, record: JSON.stringify(marked(rec, { stream_record: best.id })) };
  }

  private q(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) this.statements.set(sql, (s = this.db.prepare(sql)));
    return s;
  }
}

/** How far the stream's time lies from the OTLP call's [end - duration, end] (0 inside). */
function distance(streamNs: bigint, otlp: { tsNs: bigint; durationMs: unknown }): bigint {
  const startNs = otlp.tsNs - durationNs(otlp.durationMs);
  return streamNs < startNs ? startNs - streamNs : streamNs > otlp.tsNs ? streamNs - otlp.tsNs : 0n;
}

/** A recorded duration (ms) in ns; 0 when there is none. */
function durationNs(ms: unknown): bigint {
  const n = typeof ms === 'number' ? ms : typeof ms === 'bigint' ? Number(ms) : NaN;
  return Number.isFinite(n) && n > 0 ? BigInt(Math.min(Math.round(n * 1e6), Number(STREAM_JOIN_WINDOW_NS))) : 0n;
}

/** The nearest; of equals the earliest stored (the calls' order). */
function nearest<T extends { seq: bigint }>(items: T[], d: (x: T) => bigint): T | undefined {
  let best: T | undefined;
  for (const x of items) if (!best || d(x) < d(best) || (d(x) === d(best) && x.seq < best.seq)) best = x;
  return best;
}

/** The command line a shell call ran (Codex's `exec_command` `cmd`; the stream unwraps its `bash -lc`), as `COMMAND` reads it. */
function commandOf(args: unknown): string | undefined {
  const a = typeof args === 'string' ? tryParse(args) : args;
  if (typeof a !== 'object' || a === null) return undefined;
  const o = a as Record<string, unknown>;
  const c = o.cmd ?? o.command;
  return typeof c === 'string' ? c : undefined;
}

/** A copy of the record naming the other side's record (and taking its call id, for the stream's). */
function marked(rec: Rec, raw: Record<string, string>, callId?: string): Rec {
  const out: Rec = { ...rec, raw: { ...(rec.raw ?? {}), ...raw } };
  if (callId !== undefined) out.gen_ai = { ...rec.gen_ai, tool: { ...rec.gen_ai?.tool, call: { ...rec.gen_ai?.tool?.call, id: callId } } };
  return out;
}
