import type Database from 'better-sqlite3';
import { parseRecord } from './merge';
import type { EventRow } from './row';

/**
 * One tool call, one row, when only some of its paths know the agent's call id (issue 30 item 2).
 * Gemini CLI's and Copilot CLI's hooks send no call id (Beacon pairs their pre and post records under
 * an id of its own, `beacon:<tool and arguments>.<n>`: hooks/call-pairing.ts), and Gemini's OTLP tool
 * log record has none either; their spans do (Copilot's `execute_tool`, Gemini's `tool_call` with
 * `gen_ai.tool.call_id`). The call id is taken from the record that has it and given to the others,
 * so every reader (events, sessions, the timeline, exports) joins them by call id as for any agent:
 *
 * - A hook call takes the id of an OTLP record of the same session, harness and tool that no hook call
 *   holds yet, the nearest to the call's time (its pre-tool to post-tool records, `CALL_JOIN_WINDOW_NS`
 *   either side), with the same arguments where both recorded them. Whichever arrives second does it:
 *   an OTLP record looks for a finished hook call, a post-tool record for an OTLP record. A pre-tool
 *   record alone (running, or denied by the agent) is not joined: its post-tool record does it. A call
 *   the policy denied is finished by its denial (no post-tool hook comes): the denial joins as a
 *   post-tool record does. Its OTLP record may have no id at all (Gemini sends no span for a call its
 *   hook blocked): then the OTLP record takes the pairing's id, the only one the call has.
 *   Matching is one to one (a call id held by a hook call is taken), so two calls never fold into one.
 * - Gemini's log record and its span are one observation of one path: the log record (a child's
 *   parent: it carries the `schedule_tool_calls` span's ids, the span is its child `tool_call` of the
 *   same tool) takes the span's id, and the span itself is not stored beside it. A span that came
 *   first is stored on its own until its log record arrives and takes its place.
 *
 * The hook records keep their own id (`raw.paired_call`) for the pairing of the calls after them.
 *
 * And one path's two reads of a call: an agent's store read while the agent was mid-call, then again
 * once the call's outcome was written (`storeCallStage`, issue 31).
 */
export const CALL_JOIN_WINDOW_NS = 10_000_000_000n;

/** How long before an OTLP record a hook call may have started (a long build's span starts with it). */
const LONGEST_CALL_NS = 6n * 3600n * 1_000_000_000n;

export const PAIRED_CALL_PREFIX = 'beacon:';
const NOT_PAIRED = `tool_call_id IS NOT NULL AND substr(tool_call_id, 1, ${PAIRED_CALL_PREFIX.length}) <> '${PAIRED_CALL_PREFIX}'`;
const PAIRED = `substr(tool_call_id, 1, ${PAIRED_CALL_PREFIX.length}) = '${PAIRED_CALL_PREFIX}'`;
const TOOL_NAME = "json_extract(record, '$.gen_ai.tool.name')";
/** a record of the call itself, not a decision on it (an approval names its tool too) */
const NOT_DECISION = "substr(action, 1, 9) <> 'approval.'";
const DENIED = 'approval.denied';

type Rec = { gen_ai?: { tool?: { name?: unknown; call?: { id?: unknown; arguments?: unknown } } }; raw?: { hook_phase?: unknown; paired_call?: unknown } };
type Holder = { seq: bigint; tsNs: bigint; toolCallId: string; args: string | null };
type HookCall = { paired: string; startNs: bigint; endNs: bigint; args: string | null };

export class StoredCallJoins {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  /**
   * Before `row` is inserted: gives it the call id another path's stored record holds, if any.
   * 'merged': the row is folded into a stored record (a Gemini span into its log record), not inserted.
   * The row given is never changed (a transaction retried after SQLITE_BUSY prepares it again): a copy is returned.
   */
  prepare(row: EventRow): EventRow | 'merged' {
    if (!row.joinCall || row.sessionId === null || this.q('SELECT 1 FROM events WHERE id = ?').get(row.id)) return row;
    if (row.method === 'poll') return this.storeCallStage(row);
    const rec = parseRecord(row.record) as Rec;
    const name = rec.gen_ai?.tool?.name;
    if (typeof name !== 'string') return row;
    if (row.method === 'hook') return isPaired(row.toolCallId) && endsCall(row, rec) ? this.joinHookCall(row, rec, name) : row;
    if (row.method !== 'otlp' || row.traceId === null) return row;
    if (row.toolCallId === null) {
      const taken = row.spanId !== null ? this.takeFromSpan(row, rec, name) : row;
      return taken.toolCallId === null ? this.takeFromDeniedCall(row, rec, name) : taken;
    }
    if (row.toolCallId !== null && row.parentSpanId !== null) return this.giveToLogRecord(row, name);
    return row;
  }

  /** After `row` was inserted: an OTLP record holding the call id gives it to the finished hook call it is. */
  settle(row: EventRow): void {
    if (!row.joinCall || row.sessionId === null || row.method !== 'otlp' || row.toolCallId === null || isPaired(row.toolCallId)) return;
    const rec = parseRecord(row.record) as Rec;
    const name = rec.gen_ai?.tool?.name;
    if (typeof name === 'string') this.giveToHookCall(row.sessionId, row.harness, name, row.toolCallId, row.tsNs, argsOf(rec));
  }

  /**
   * A tool call read from an agent's store, once before its outcome and once with it (the agent was
   * mid-call at the first read): one row. A success has the outcome-less record's id (the merge adds
   * the result); a failure's id differs (its action is in it), so its record replaces that one, and an
   * outcome-less record of a call whose failure is stored (two imports racing) adds nothing. Ids, not
   * a search: the store's (session, call id) index is not needed, and an import of 40k calls pays a
   * lookup by the UNIQUE id only for the few calls read without an outcome or failed.
   */
  private storeCallStage(row: EventRow): EventRow | 'merged' {
    if (row.supersededBy !== undefined && this.q('SELECT 1 FROM events WHERE id = ?').get(row.supersededBy)) return 'merged';
    if (row.supersedes !== undefined) this.q("DELETE FROM events WHERE id = ? AND method = 'poll'").run(row.supersedes);
    return row;
  }

  /**
   * A post-tool record or a denial (its pre-tool stored): the call takes the id of the nearest OTLP
   * record no hook call holds. A denied call may have an OTLP record with no id at all (Gemini sends
   * no span for a call its hook blocked): that record takes the pairing's id instead.
   */
  private joinHookCall(row: EventRow, rec: Rec, name: string): EventRow {
    const paired = row.toolCallId!;
    const started = this.q(`SELECT min(ts_ns) FROM events WHERE session_id = ? AND harness = ? AND method = 'hook' AND tool_call_id = ?`).pluck().safeIntegers(true).get(row.sessionId, row.harness, paired) as bigint | null;
    const startNs = started ?? row.tsNs;
    const denied = row.action === DENIED;
    const holders = this.q(
      `SELECT seq, ts_ns AS tsNs, tool_call_id AS toolCallId, json_extract(record, '$.gen_ai.tool.call.arguments') AS args FROM events o
       WHERE session_id = ? AND harness = ? AND method = 'otlp' AND ts_ns BETWEEN ? AND ? AND (${NOT_PAIRED} OR (? AND tool_call_id IS NULL)) AND ${TOOL_NAME} = ? AND ${NOT_DECISION}
         AND NOT EXISTS (SELECT 1 FROM events h WHERE h.session_id = o.session_id AND h.harness = o.harness AND h.method = 'hook' AND h.tool_call_id = o.tool_call_id)`,
    ).safeIntegers(true).all(row.sessionId, row.harness, startNs - CALL_JOIN_WINDOW_NS, row.tsNs + CALL_JOIN_WINDOW_NS, denied ? 1 : 0, name) as (Omit<Holder, 'toolCallId'> & { toolCallId: string | null })[];
    const args = argsOf(rec);
    const best = nearest(holders.filter((h) => sameArgs(args, h.args)), (h) => distance(h.tsNs, startNs, row.tsNs), (h) => h.tsNs);
    if (!best) return row;
    if (best.toolCallId === null) {
      this.setCallId(best.seq, paired);
      return row;
    }
    this.renameHookCall(row.sessionId!, row.harness, paired, best.toolCallId);
    return withCallId(row, rec, best.toolCallId);
  }

  /**
   * An OTLP record with no call id and no span to take one from (Gemini's log record of a call its
   * hook blocked): the denied hook call of the same tool nearest to it, with no OTLP record yet, lends
   * it the pairing's id, so the two are one call.
   */
  private takeFromDeniedCall(row: EventRow, rec: Rec, name: string): EventRow {
    const calls = this.q(
      `SELECT tool_call_id AS paired, min(ts_ns) AS startNs, max(ts_ns) AS endNs, json_extract(record, '$.gen_ai.tool.call.arguments') AS args FROM events h
       WHERE session_id = ? AND harness = ? AND method = 'hook' AND ${PAIRED} AND ts_ns BETWEEN ? AND ? AND ${TOOL_NAME} = ?
         AND NOT EXISTS (SELECT 1 FROM events o WHERE o.session_id = h.session_id AND o.harness = h.harness AND o.method = 'otlp' AND o.tool_call_id = h.tool_call_id)
       GROUP BY tool_call_id HAVING max(action = '${DENIED}')`,
    ).safeIntegers(true).all(row.sessionId, row.harness, row.tsNs - LONGEST_CALL_NS, row.tsNs + CALL_JOIN_WINDOW_NS, name) as HookCall[];
    const args = argsOf(rec);
    const near = calls.filter((c) => distance(row.tsNs, c.startNs, c.endNs) <= CALL_JOIN_WINDOW_NS && sameArgs(args, c.args));
    const best = nearest(near, (c) => distance(row.tsNs, c.startNs, c.endNs), (c) => c.startNs);
    return best ? withCallId(row, rec, best.paired) : row;
  }

  /** An OTLP record with the call id: the finished (or denied) hook call of the same tool nearest to it, not joined yet, takes it. */
  private giveToHookCall(sessionId: string, harness: string, name: string, callId: string, tsNs: bigint, args: unknown): void {
    if (this.q(`SELECT 1 FROM events WHERE session_id = ? AND harness = ? AND method = 'hook' AND tool_call_id = ?`).get(sessionId, harness, callId)) return;
    const calls = this.q(
      `SELECT tool_call_id AS paired, min(ts_ns) AS startNs, max(ts_ns) AS endNs, json_extract(record, '$.gen_ai.tool.call.arguments') AS args FROM events
       WHERE session_id = ? AND harness = ? AND method = 'hook' AND ${PAIRED} AND ts_ns BETWEEN ? AND ? AND ${TOOL_NAME} = ? AND json_extract(record, '$.raw.paired_call') IS NOT NULL
       GROUP BY tool_call_id HAVING max(json_extract(record, '$.raw.hook_phase') = 'post-tool' OR action = '${DENIED}')`,
    ).safeIntegers(true).all(sessionId, harness, tsNs - LONGEST_CALL_NS, tsNs + CALL_JOIN_WINDOW_NS, name) as HookCall[];
    const near = calls.filter((c) => distance(tsNs, c.startNs, c.endNs) <= CALL_JOIN_WINDOW_NS && sameArgs(args, c.args));
    const best = nearest(near, (c) => distance(tsNs, c.startNs, c.endNs), (c) => c.startNs);
    if (best) this.renameHookCall(sessionId, harness, best.paired, callId);
  }

  /** Gemini's log record (no call id) arriving after its span: it takes the span's id and its place. */
  private takeFromSpan(row: EventRow, rec: Rec, name: string): EventRow {
    const span = this.q(
      `SELECT seq, tool_call_id AS toolCallId FROM events WHERE trace_id = ? AND parent_span_id = ? AND session_id = ? AND harness = ? AND method = 'otlp' AND ${NOT_PAIRED} AND ${TOOL_NAME} = ?
       ORDER BY abs(ts_ns - ?), seq LIMIT 1`,
    ).safeIntegers(true).get(row.traceId, row.spanId, row.sessionId, row.harness, name, row.tsNs) as { seq: bigint; toolCallId: string } | undefined;
    if (!span) return row;
    this.q('DELETE FROM events WHERE seq = ?').run(span.seq);
    return withCallId(row, rec, span.toolCallId);
  }

  /** Gemini's span arriving after its log record: the log record takes its id, and the span is not stored. */
  private giveToLogRecord(row: EventRow, name: string): EventRow | 'merged' {
    const log = this.q(
      `SELECT seq, ts_ns AS tsNs, tool_call_id AS toolCallId, record FROM events WHERE trace_id = ? AND span_id = ? AND parent_span_id IS NULL AND session_id = ? AND harness = ? AND method = 'otlp'
         AND (tool_call_id IS NULL OR tool_call_id = ? OR ${PAIRED}) AND ${TOOL_NAME} = ? ORDER BY tool_call_id = ? DESC, abs(ts_ns - ?), seq LIMIT 1`,
    ).safeIntegers(true).get(row.traceId, row.parentSpanId, row.sessionId, row.harness, row.toolCallId, name, row.toolCallId, row.tsNs) as { seq: bigint; tsNs: bigint; toolCallId: string | null; record: string } | undefined;
    if (!log) return row;
    if (log.toolCallId === null) {
      this.setCallId(log.seq, row.toolCallId!);
      this.giveToHookCall(row.sessionId!, row.harness, name, row.toolCallId!, log.tsNs, argsOf(parseRecord(log.record) as Rec));
    } else if (isPaired(log.toolCallId)) {
      // a log record that took a denied call's pairing id (no span had come): the span's id for both
      this.setCallId(log.seq, row.toolCallId!);
      this.renameHookCall(row.sessionId!, row.harness, log.toolCallId, row.toolCallId!);
    }
    return 'merged';
  }

  private setCallId(seq: bigint, callId: string): void {
    this.q(`UPDATE events SET tool_call_id = ?, record = json_set(record, '$.gen_ai.tool.call.id', ?) WHERE seq = ?`).run(callId, callId, seq);
  }

  private renameHookCall(sessionId: string, harness: string, paired: string, callId: string): void {
    this.q(`UPDATE events SET tool_call_id = ?, record = json_set(record, '$.gen_ai.tool.call.id', ?) WHERE session_id = ? AND harness = ? AND method = 'hook' AND tool_call_id = ?`).run(callId, callId, sessionId, harness, paired);
  }

  private q(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) this.statements.set(sql, (s = this.db.prepare(sql)));
    return s;
  }
}

const isPaired = (id: string | null): id is string => id !== null && id.startsWith(PAIRED_CALL_PREFIX);

/** A hook record that ends a call: its post-tool record, or the policy's denial of it (the call never runs, no post-tool comes). */
const endsCall = (row: EventRow, rec: Rec): boolean => rec.raw?.hook_phase === 'post-tool' || row.action === DENIED;

/** How far `t` lies outside [lo, hi] (0 inside). */
function distance(t: bigint, lo: bigint, hi: bigint): bigint {
  return t < lo ? lo - t : t > hi ? t - hi : 0n;
}

function nearest<T>(items: T[], d: (x: T) => bigint, t: (x: T) => bigint): T | undefined {
  let best: T | undefined;
  for (const x of items) if (!best || d(x) < d(best) || (d(x) === d(best) && t(x) < t(best))) best = x;
  return best;
}

function argsOf(rec: Rec): unknown {
  return rec.gen_ai?.tool?.call?.arguments;
}

/** Both recorded the arguments and they differ: two calls. Either without them (content capture off): no evidence either way. */
function sameArgs(a: unknown, stored: string | null): boolean {
  if (a === undefined || stored === null) return true;
  let b: unknown = stored;
  try {
    b = JSON.parse(stored);
  } catch {
    /* a plain string value */
  }
  return canonical(typeof a === 'string' ? tryParse(a) : a) === canonical(typeof b === 'string' ? tryParse(b) : b);
}

/** A JSON text's value, or the text itself when it is not JSON (a tool's arguments may be either). */
export function tryParse(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (typeof v === 'object' && v !== null) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

function withCallId(row: EventRow, rec: Rec, callId: string): EventRow {
  const tool = (rec.gen_ai ??= {}).tool ?? (rec.gen_ai.tool = {});
  tool.call = { ...(tool.call ?? {}), id: callId };
  return { ...row, toolCallId: callId, record: JSON.stringify(rec) };
}
