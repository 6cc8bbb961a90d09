import type Database from 'better-sqlite3';
import { fillMissing, mergedFrom, parseRecord } from './merge';
import type { EventRow } from './row';

/**
 * One turn, one end (issue 30): an agent whose hook and OTLP export both report the end of a turn
 * (Claude Code's Stop hook and its `assistant_response` log record; Copilot CLI's agentStop hook and,
 * with content capture on, its `invoke_agent` span's answer) records one `tool.completed` per path.
 * They are one event, the hook's row in either order (a union, as prompt-join.ts's: the OTLP
 * record's version and trace added, its id in `event.merged_ids`). The rule, the Go reference's
 * dedupe of `tool.completed` (another harness there, another path here, within 10 s) made strict,
 * so two turns of one session stay two:
 *
 * - same session and harness, the other path (hook ↔ otlp), within `TURN_END_WINDOW_NS`, the nearest;
 * - the same turn: the same prompt id where both records carry one (Claude's `prompt_id` /
 *   `prompt.id`), else no prompt submitted in the session between the two;
 * - one to one: a record that absorbed one of the other path's takes no second (`event.merged_paths`),
 *   and a retried export finds its own earlier merge (`event.merged_ids`).
 */
export const TURN_END_WINDOW_NS = 10_000_000_000n;

const TURN_END = 'tool.completed';
const PATHS = new Set(['hook', 'otlp']);

/** Fields of the kept record a join never changes: who it is, how and when it was recorded (the content marker goes with the text). */
const KEEP = new Set(['timestamp', 'event', 'severity', 'content', 'schema_version', 'vendor', 'product', 'endpoint', 'message']);

type Rec = Record<string, unknown> & { event?: { id?: unknown; merged_ids?: unknown; merged_paths?: unknown }; prompt?: { id?: unknown }; response?: { text?: unknown }; content?: unknown };
type Stored = { seq: bigint; tsNs: bigint; record: string };

export class StoredTurnEnds {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  /** Whether `row` is a turn end another path's stored record may be. */
  static applies(row: EventRow): boolean {
    return row.action === TURN_END && row.sessionId !== null && PATHS.has(row.method);
  }

  /**
   * Before `row` is inserted: 'merged' when it was folded into the stored hook record of its turn
   * end, else the row to insert — the hook's record with what the OTLP record it replaces knew (the
   * row kept is the hook's in either order, as prompt-join.ts's). The row given is never changed.
   */
  absorb(row: EventRow): EventRow | 'merged' {
    if (this.q('SELECT 1 FROM events WHERE id = ?').get(row.id)) return row; // its own retry: the insert ignores it
    const incoming = parseRecord(row.record) as Rec;
    const promptId = promptIdOf(incoming);
    const other = row.method === 'hook' ? 'otlp' : 'hook';
    const candidates = this.q(
      `SELECT seq, ts_ns AS tsNs, record FROM events WHERE session_id = ? AND ts_ns BETWEEN ? AND ? AND action = '${TURN_END}' AND method = ? AND harness = ?
       ORDER BY abs(ts_ns - ?), seq`,
    ).safeIntegers(true).all(row.sessionId, row.tsNs - TURN_END_WINDOW_NS, row.tsNs + TURN_END_WINDOW_NS, other, row.harness, row.tsNs) as Stored[];
    for (const c of candidates) {
      const stored = parseRecord(c.record) as Rec;
      const merged = mergedFrom(stored);
      if (merged.ids.includes(row.id)) return 'merged'; // a retry of a record already absorbed
      if (merged.paths.includes(row.method)) continue; // one to one
      const storedPrompt = promptIdOf(stored);
      if (promptId !== undefined && storedPrompt !== undefined ? promptId !== storedPrompt : this.promptBetween(row.sessionId!, c.tsNs, row.tsNs)) continue;
      if (row.method === 'otlp') {
        joinInto(stored, incoming, row.id);
        this.q('UPDATE events SET record = ? WHERE seq = ?').run(JSON.stringify(stored), c.seq);
        return 'merged';
      }
      joinInto(incoming, stored, typeof stored.event?.id === 'string' ? stored.event.id : '');
      this.q('DELETE FROM events WHERE seq = ?').run(c.seq);
      return { ...row, record: JSON.stringify(incoming) };
    }
    return row;
  }

  /** A prompt submitted in the session strictly between two times: the two turn ends are of two turns. */
  private promptBetween(sessionId: string, a: bigint, b: bigint): boolean {
    const [lo, hi] = a < b ? [a, b] : [b, a];
    return this.q(`SELECT 1 FROM events WHERE session_id = ? AND ts_ns > ? AND ts_ns < ? AND action = 'prompt.submitted' LIMIT 1`).get(sessionId, lo, hi) !== undefined;
  }

  private q(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) this.statements.set(sql, (s = this.db.prepare(sql)));
    return s;
  }
}

const promptIdOf = (r: Rec): string | undefined => (typeof r.prompt?.id === 'string' && r.prompt.id !== '' ? r.prompt.id : undefined);

/** The OTLP record `from` joins the kept hook record `into`: what only it knew, its id and path remembered. */
function joinInto(into: Rec, from: Rec, fromId: string): void {
  // the content marker describes the answer's text: it comes with it, if only the other record has the text
  if (typeof into.response?.text !== 'string' && typeof from.response?.text === 'string' && from.content !== undefined) into.content = from.content;
  fillMissing(into, from, KEEP);
  const event = (into.event ??= {});
  event.merged_ids = [...mergedFrom(into).ids, ...(fromId ? [fromId] : [])];
  event.merged_paths = [...mergedFrom(into).paths, 'otlp'];
}
