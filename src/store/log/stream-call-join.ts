import type Database from 'better-sqlite3';
import type { EventRow } from './row';

/**
 * One tool call, one row, when the agent's stream names its calls with ids of its own (issue 32).
 * `codex exec --json` gives each item an id (`item_N`) and never the model's call id, which Codex's
 * OTLP export (`codex.tool_result`, `call_id`) carries. Its stream adapter marks the call's record
 * (`joinCall`, the item id kept in `raw.stream_item`), and the store gives it the call id of the OTLP
 * record of the same session, harness and tool, with the same command line where both have one:
 *
 * - Whichever arrives second does it: a stream record looks for an OTLP record no stream record holds,
 *   an OTLP record (`joinCall`, with a call id) for a stream record that still has its own id.
 * - Nearest in time, one to one: the distance of the stream record's time to the OTLP call's
 *   [time - duration, time] (a stream's time is when `beacon stream` read the item's start; the
 *   export's is the call's end). The holder is named (`raw.stream_joined`, the OTLP record's event
 *   id), not inferred from the call id, because some providers number their calls anew each turn.
 *   Two stream calls never take one OTLP record, so two calls never fold into one.
 * - Within `STREAM_JOIN_WINDOW_NS`: a stream piped after the run (its times are the reading's)
 *   still joins; a run resumed days later in the same session does not reach back to the first.
 *
 * The stream record keeps its event id (derived from the item id), so a replayed stream adds nothing.
 */
export const STREAM_JOIN_WINDOW_NS = 6n * 3600n * 1_000_000_000n;

const TOOL_NAME = "json_extract(record, '$.gen_ai.tool.name')";
const ARGS = "json_extract(record, '$.gen_ai.tool.call.arguments')";
const STREAM_ITEM = "json_extract(record, '$.raw.stream_item')";
/** a record of the call itself, not a decision on it (Codex's `codex.tool_decision` names its call too) */
const NOT_DECISION = "substr(action, 1, 9) <> 'approval.'";

type Rec = { gen_ai?: { tool?: { name?: unknown; call?: { arguments?: unknown } } }; raw?: { stream_item?: unknown } };
type Candidate = { seq: bigint; id: string; tsNs: bigint; toolCallId: string; durationMs: number | null; args: string | null };

export class StreamCallJoins {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  /** Before a stream `row` is inserted: it takes the call id of the nearest OTLP record of its call no stream record holds. */
  prepare(row: EventRow): EventRow {
    if (!row.joinCall || row.method !== 'stream' || row.sessionId === null || row.toolCallId === null) return row;
    const rec = parse(row.record);
    const name = rec.gen_ai?.tool?.name;
    if (typeof name !== 'string' || rec.raw?.stream_item !== row.toolCallId) return row;
    if (this.q('SELECT 1 FROM events WHERE id = ?').get(row.id)) return row; // a replay: the stored copy stays as it is
    const holders = this.q(
      `SELECT seq, id, ts_ns AS tsNs, tool_call_id AS toolCallId, json_extract(record, '$.gen_ai.duration_ms') AS durationMs, ${ARGS} AS args FROM events o
       WHERE session_id = ? AND harness = ? AND method = 'otlp' AND ts_ns BETWEEN ? AND ? AND tool_call_id IS NOT NULL AND ${TOOL_NAME} = ? AND ${NOT_DECISION}
         AND NOT EXISTS (SELECT 1 FROM events s WHERE s.session_id = o.session_id AND s.harness = o.harness AND s.method = 'stream' AND s.tool_call_id = o.tool_call_id
                           AND json_extract(s.record, '$.raw.stream_joined') = o.id)`,
    ).safeIntegers(true).all(row.sessionId, row.harness, row.tsNs - STREAM_JOIN_WINDOW_NS, row.tsNs + STREAM_JOIN_WINDOW_NS, name) as Candidate[];
    const command = commandOf(rec.gen_ai?.tool?.call?.arguments);
    const best = nearest(holders.filter((h) => sameCommand(command, h.args)), (h) => distance(row.tsNs, h));
    if (!best) return row;
    return { ...row, toolCallId: best.toolCallId, record: joined(rec, best) };
  }

  /** After an OTLP `row` with a call id was inserted: the nearest stream record of its call still under its own id takes it. */
  settle(row: EventRow): void {
    if (!row.joinCall || row.method !== 'otlp' || row.sessionId === null || row.toolCallId === null || row.action.startsWith('approval.')) return;
    const rec = parse(row.record);
    const name = rec.gen_ai?.tool?.name;
    if (typeof name !== 'string') return;
    const calls = this.q(
      `SELECT seq, ts_ns AS tsNs, ${ARGS} AS args FROM events
       WHERE session_id = ? AND harness = ? AND method = 'stream' AND ts_ns BETWEEN ? AND ? AND tool_call_id = ${STREAM_ITEM} AND ${TOOL_NAME} = ?`,
    ).safeIntegers(true).all(row.sessionId, row.harness, row.tsNs - STREAM_JOIN_WINDOW_NS, row.tsNs + STREAM_JOIN_WINDOW_NS, name) as Array<{ seq: bigint; tsNs: bigint; args: string | null }>;
    const command = commandOf(rec.gen_ai?.tool?.call?.arguments);
    const self: Candidate = { seq: 0n, id: row.id, tsNs: row.tsNs, toolCallId: row.toolCallId, durationMs: durationOf(rec), args: null };
    const best = nearest(calls.filter((c) => sameCommand(command, c.args)), (c) => distance(c.tsNs, self));
    if (!best) return;
    this.q(`UPDATE events SET tool_call_id = ?, record = json_set(record, '$.gen_ai.tool.call.id', ?, '$.raw.stream_joined', ?) WHERE seq = ?`).run(row.toolCallId, row.toolCallId, row.id, best.seq);
  }

  private q(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) this.statements.set(sql, (s = this.db.prepare(sql)));
    return s;
  }
}

/** How far the stream's time lies from the OTLP call's [end - duration, end] (0 inside). */
function distance(streamNs: bigint, otlp: { tsNs: bigint; durationMs: number | null }): bigint {
  const ms = otlp.durationMs !== null && Number.isFinite(Number(otlp.durationMs)) && Number(otlp.durationMs) > 0 ? Number(otlp.durationMs) : 0;
  const startNs = otlp.tsNs - BigInt(Math.round(ms * 1e6));
  return streamNs < startNs ? startNs - streamNs : streamNs > otlp.tsNs ? streamNs - otlp.tsNs : 0n;
}

/** The nearest; of equals the earliest stored (the calls' order). */
function nearest<T extends { seq: bigint }>(items: T[], d: (x: T) => bigint): T | undefined {
  let best: T | undefined;
  for (const x of items) if (!best || d(x) < d(best) || (d(x) === d(best) && x.seq < best.seq)) best = x;
  return best;
}

/** The command line a shell call ran (Codex's `exec_command` `cmd`; the stream unwraps its `bash -lc`). */
function commandOf(args: unknown): string | undefined {
  const a = typeof args === 'string' ? tryParse(args) : args;
  if (typeof a !== 'object' || a === null) return undefined;
  const o = a as Record<string, unknown>;
  const c = o.cmd ?? o.command;
  return typeof c === 'string' ? c : undefined;
}

/** Both have a command line and they differ: two calls. Either without one (content capture off, another tool): no evidence. */
function sameCommand(command: string | undefined, stored: string | null): boolean {
  const other = stored === null ? undefined : commandOf(tryParse(stored));
  return command === undefined || other === undefined || command === other;
}

function durationOf(rec: Rec): number | null {
  const d = (rec.gen_ai as { duration_ms?: unknown } | undefined)?.duration_ms;
  return typeof d === 'number' ? d : null;
}

function joined(rec: Rec, holder: Candidate): string {
  const r = rec as Rec & { gen_ai: { tool: { call?: Record<string, unknown> } }; raw?: Record<string, unknown> };
  r.gen_ai.tool.call = { ...(r.gen_ai.tool.call ?? {}), id: holder.toolCallId };
  r.raw = { ...(r.raw ?? {}), stream_joined: holder.id };
  return JSON.stringify(r);
}

function tryParse(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}

function parse(json: string): Rec {
  const v = tryParse(json);
  return typeof v === 'object' && v !== null ? (v as Rec) : {};
}
