import type Database from 'better-sqlite3';
import type { EventRow } from './row';

/**
 * One turn, one end (issue 30): an agent whose hook and OTLP export both report the end of a turn
 * (Claude Code's Stop hook and its `assistant_response` log record; Copilot CLI's agentStop hook and,
 * with content capture on, its `invoke_agent` span's answer) records one `tool.completed` per path.
 * They are one event: the one stored first absorbs the other (a union, as merge.ts's), whichever
 * arrives first. The rule, the Go reference's dedupe of `tool.completed` (another harness there,
 * another path here, within 10 s) made strict, so two turns of one session stay two:
 *
 * - same session and harness, the other path (hook ↔ otlp), within `TURN_END_WINDOW_NS`, the nearest;
 * - the same turn: the same prompt id where both records carry one (Claude's `prompt_id` /
 *   `prompt.id`), else no prompt submitted in the session between the two;
 * - one to one: a record that absorbed one of the other path's takes no second (`event.merged_ids`),
 *   and a retried export finds its own earlier merge there.
 */
export const TURN_END_WINDOW_NS = 10_000_000_000n;

const TURN_END = 'tool.completed';
const PATHS = new Set(['hook', 'otlp']);

/** Fields of the stored record a merge never changes: who it is and when it was recorded (its content marker, unless the text comes with the other's). */
const KEEP = new Set(['timestamp', 'event', 'severity', 'content', 'response', 'schema_version', 'vendor', 'product', 'endpoint']);

type Rec = Record<string, unknown> & { event?: { merged_ids?: unknown; merged_paths?: unknown }; prompt?: { id?: unknown }; response?: { text?: unknown }; content?: unknown };
type Stored = { seq: bigint; tsNs: bigint; record: string };

export class StoredTurnEnds {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  /** Whether `row` is a turn end another path's stored record may be. */
  static applies(row: EventRow): boolean {
    return row.action === TURN_END && row.sessionId !== null && PATHS.has(row.method);
  }

  /** Before `row` is inserted: 'merged' when it was folded into the other path's stored record of the same turn end. */
  absorb(row: EventRow): 'merged' | undefined {
    if (this.q('SELECT 1 FROM events WHERE id = ?').get(row.id)) return undefined; // its own retry: the insert ignores it
    const incoming = parse(row.record);
    const promptId = promptIdOf(incoming);
    const other = row.method === 'hook' ? 'otlp' : 'hook';
    const candidates = this.q(
      `SELECT seq, ts_ns AS tsNs, record FROM events WHERE session_id = ? AND ts_ns BETWEEN ? AND ? AND action = '${TURN_END}' AND method = ? AND harness = ?
       ORDER BY abs(ts_ns - ?), seq`,
    ).safeIntegers(true).all(row.sessionId, row.tsNs - TURN_END_WINDOW_NS, row.tsNs + TURN_END_WINDOW_NS, other, row.harness, row.tsNs) as Stored[];
    for (const c of candidates) {
      const stored = parse(c.record);
      const merged = mergedIds(stored);
      if (merged.includes(row.id)) return 'merged'; // a retry of a record already absorbed
      if (merged.length > 0) continue; // one to one
      const storedPrompt = promptIdOf(stored);
      if (promptId !== undefined && storedPrompt !== undefined ? promptId !== storedPrompt : this.promptBetween(row.sessionId!, c.tsNs, row.tsNs)) continue;
      this.merge(c.seq, stored, incoming, row);
      return 'merged';
    }
    return undefined;
  }

  /** A prompt submitted in the session strictly between two times: the two turn ends are of two turns. */
  private promptBetween(sessionId: string, a: bigint, b: bigint): boolean {
    const [lo, hi] = a < b ? [a, b] : [b, a];
    return this.q(`SELECT 1 FROM events WHERE session_id = ? AND ts_ns > ? AND ts_ns < ? AND action = 'prompt.submitted' LIMIT 1`).get(sessionId, lo, hi) !== undefined;
  }

  /** The union: the stored record keeps its identity and time, and gains what only the other knew (the answer's text with its content marker, a version, a trace, a directory). */
  private merge(seq: bigint, stored: Rec, incoming: Rec, row: EventRow): void {
    if (typeof stored.response?.text !== 'string' && typeof incoming.response?.text === 'string') {
      stored.response = incoming.response;
      if (incoming.content !== undefined) stored.content = incoming.content;
    }
    fillMissing(stored, incoming, KEEP);
    const event = (stored.event ??= {});
    event.merged_ids = [...mergedIds(stored), row.id];
    event.merged_paths = [...(Array.isArray(event.merged_paths) ? event.merged_paths : []), row.method];
    this.q('UPDATE events SET record = ? WHERE seq = ?').run(JSON.stringify(stored), seq);
  }

  private q(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) this.statements.set(sql, (s = this.db.prepare(sql)));
    return s;
  }
}

const promptIdOf = (r: Rec): string | undefined => (typeof r.prompt?.id === 'string' && r.prompt.id !== '' ? r.prompt.id : undefined);

function mergedIds(r: Rec): string[] {
  const ids = r.event?.merged_ids;
  return Array.isArray(ids) ? ids.filter((x): x is string => typeof x === 'string') : [];
}

/** Copies into `into` what only `from` has, recursively into objects both have; values `into` has stay, and so do the top-level fields `keep` names. */
function fillMissing(into: Record<string, unknown>, from: Record<string, unknown>, keep: ReadonlySet<string> = new Set()): void {
  for (const [k, v] of Object.entries(from)) {
    if (keep.has(k)) continue;
    const have = into[k];
    if (have === undefined) into[k] = v;
    else if (isObject(have) && isObject(v)) fillMissing(have, v);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function parse(json: string): Rec {
  try {
    const v: unknown = JSON.parse(json);
    return isObject(v) ? (v as Rec) : {};
  } catch {
    return {};
  }
}
