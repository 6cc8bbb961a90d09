import type Database from 'better-sqlite3';
import { fillMissing, mergedFrom, parseRecord } from './merge';
import type { EventRow } from './row';

/**
 * One prompt, one row, when the agent's hook and its OTLP export both report it (issue 30 item 2).
 * With content capture off (every agent's default), the OTLP record has no text (Claude's
 * `<REDACTED>`, Codex's `[REDACTED]`, Gemini's and Qwen's no `prompt` at all) and the hook's has it,
 * so the two share no content hash; what they do share differs by agent:
 *
 * - the prompt id, where both carry it: Claude Code (the hook's `prompt_id` is the log record's
 *   `prompt.id`) and Qwen Code 0.24 (`prompt_id`, `<session>########<n>`, on both);
 * - the text's hash, where both have the text: opencode (its spans always carry the prompt), and
 *   any agent with content capture on;
 * - else the prompt's length as the agent counts it (the OTLP `prompt_length`; the hook adapter
 *   counts the text it got the same way, before redaction: sources/hook-facts.ts): Codex (whose
 *   hook's `turn_id` is on no log record) and Gemini CLI (whose BeforeAgent has no id).
 *
 * Two records are one prompt when they are of the same session and harness, one from each path,
 * and the strongest evidence both have agrees: ids (equal, or different: two prompts, whatever
 * else agrees), else hashes, else lengths — within `PROMPT_JOIN_WINDOW_NS` of each other, or
 * `PROMPT_LENGTH_WINDOW_NS` when a length is all they share. Nothing to compare is no join. The
 * nearest in time such record is taken, one to one: a record that already absorbed one of this
 * path's (`event.merged_paths`) is not taken again, so two prompts of one session stay two.
 *
 * The row kept is the hook's, in either order (its id, time and text; the OTLP record's id, length,
 * trace and version added, its id in `event.merged_ids`): an OTLP record arriving second is merged
 * into the stored hook record; a hook record arriving second takes the stored OTLP record's place
 * (that row is deleted, so an export that already sent it sends the hook's record too).
 */
export const PROMPT_JOIN_WINDOW_NS = 60_000_000_000n;
export const PROMPT_LENGTH_WINDOW_NS = 10_000_000_000n;

/** Fields of the kept record a join never changes: who it is, how and when it was recorded (the content marker goes with the text). */
const KEEP = new Set(['timestamp', 'event', 'severity', 'content', 'schema_version', 'vendor', 'product', 'endpoint', 'message']);

type Rec = Record<string, unknown> & {
  prompt?: { text?: unknown; id?: unknown; length?: unknown };
  content?: { hash?: unknown };
  event?: { id?: unknown; merged_ids?: unknown; merged_paths?: unknown };
};
type Candidate = { seq: bigint; tsNs: bigint; record: string };

const JOINED_PATHS = new Set(['hook', 'otlp']);

export class StoredPromptJoins {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  /**
   * Before `row` is inserted: 'merged' when it was folded into the stored hook record of its prompt
   * (not inserted), else the row to insert — the hook's record with what the OTLP record it replaces knew.
   * The row given is never changed (a transaction retried after SQLITE_BUSY prepares it again).
   */
  prepare(row: EventRow): EventRow | 'merged' {
    if (row.action !== 'prompt.submitted' || row.sessionId === null || !JOINED_PATHS.has(row.method)) return row;
    if (this.q('SELECT 1 FROM events WHERE id = ?').get(row.id)) return row;
    const other = row.method === 'hook' ? 'otlp' : 'hook';
    const candidates = this.q(
      `SELECT seq, ts_ns AS tsNs, record FROM events WHERE session_id = ? AND ts_ns BETWEEN ? AND ? AND action = 'prompt.submitted' AND method = ? AND harness = ?
       ORDER BY abs(ts_ns - ?), seq`,
    ).safeIntegers(true).all(row.sessionId, row.tsNs - PROMPT_JOIN_WINDOW_NS, row.tsNs + PROMPT_JOIN_WINDOW_NS, other, row.harness, row.tsNs) as Candidate[];
    const rec = parseRecord(row.record) as Rec;
    for (const c of candidates) {
      const stored = parseRecord(c.record) as Rec;
      const absorbed = listOf(stored.event?.merged_ids);
      if (absorbed.includes(row.id)) return 'merged'; // a retry of a record it absorbed already
      if (listOf(stored.event?.merged_paths).includes(row.method)) continue;
      const gap = c.tsNs > row.tsNs ? c.tsNs - row.tsNs : row.tsNs - c.tsNs;
      if (!samePrompt(rec, stored, gap)) continue;
      if (row.method === 'otlp') {
        joinInto(stored, rec, row.id, 'otlp');
        this.q('UPDATE events SET record = ? WHERE seq = ?').run(JSON.stringify(stored), c.seq);
        return 'merged';
      }
      joinInto(rec, stored, String(stored.event?.id ?? ''), 'otlp');
      this.q('DELETE FROM events WHERE seq = ?').run(c.seq);
      return { ...row, record: JSON.stringify(rec) };
    }
    return row;
  }

  private q(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) this.statements.set(sql, (s = this.db.prepare(sql)));
    return s;
  }
}

/**
 * Whether two prompt records of one session, `gapNs` apart, are one prompt: the strongest evidence
 * both carry decides (id, then the text's hash, then the length); no evidence is no.
 */
export function samePrompt(a: Rec, b: Rec, gapNs: bigint): boolean {
  const idA = nonEmpty(a.prompt?.id);
  const idB = nonEmpty(b.prompt?.id);
  if (idA !== undefined && idB !== undefined) return idA === idB;
  const hashA = nonEmpty(a.prompt?.text) !== undefined ? nonEmpty(a.content?.hash) : undefined;
  const hashB = nonEmpty(b.prompt?.text) !== undefined ? nonEmpty(b.content?.hash) : undefined;
  if (hashA !== undefined && hashB !== undefined) return hashA === hashB;
  const lengthA = a.prompt?.length;
  const lengthB = b.prompt?.length;
  if (typeof lengthA === 'number' && typeof lengthB === 'number') return lengthA === lengthB && gapNs <= PROMPT_LENGTH_WINDOW_NS;
  return false;
}

/** `from`'s record joins the kept record `into`: what only it knew, its id and path remembered. */
function joinInto(into: Rec, from: Rec, fromId: string, fromPath: 'otlp'): void {
  // the content marker describes the text: it comes with it, if only the other record has the text
  if (nonEmpty(into.prompt?.text) === undefined && nonEmpty(from.prompt?.text) !== undefined && from.content !== undefined) into.content = from.content;
  fillMissing(into, from, KEEP);
  const earlier = mergedFrom(from);
  const event = (into.event ??= {}) as { merged_ids?: string[]; merged_paths?: string[] };
  event.merged_ids = [...listOf(event.merged_ids), ...earlier.ids, ...(fromId ? [fromId] : [])];
  event.merged_paths = [...listOf(event.merged_paths), ...earlier.paths, fromPath];
}

const listOf = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const nonEmpty = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
