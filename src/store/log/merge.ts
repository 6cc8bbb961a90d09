import type Database from 'better-sqlite3';
import type { EventRow } from './row';

/**
 * Counted once, whatever the path: a model call or a prompt that reaches the log by two paths (an
 * agent's OTLP export and `beacon import` of its session store) is one event. Where both paths know
 * the same id, the event ids agree and the UNIQUE index makes the second a duplicate. Where they
 * share none (Codex's OTLP records carry no response id; Claude Code's carry a request id only when
 * the API sent one), the call is found by what both recorded: same session and harness, another
 * collection path, within `MATCH_WINDOW_NS` of each other, and the same four token buckets (a model
 * call) or the same content hash (a prompt: both paths hash the original text). Matching is one to
 * one: the stored record remembers what it absorbed (`event.merged_ids`), so two identical calls of
 * a session are never folded into one, and a re-import finds its own earlier merge.
 *
 * Merging is a union: the stored record keeps its identity, path, time and content marker, and gains
 * every field only the other path knew (a response id, finish reasons, a cost), plus the columns
 * still empty (model, provider, reasoning, cost). Token columns are equal by construction, so the
 * usage rollup (its UPDATE triggers) does not move.
 *
 * Both directions: an import merges into what OTLP or a hook stored; an OTLP model call or prompt
 * arriving after the import of its session merges into the imported record. Records of two other
 * paths (OTLP and a hook's prompt) are not matched with each other here: prompt-join.ts joins those.
 * The paths absorbed are noted beside the ids (`event.merged_paths`), so a hook record that absorbed
 * its OTLP record still takes its import.
 */
export const MATCH_WINDOW_NS = 60_000_000_000n;

type Found = { seq: bigint; record: string };

export type Counterpart = { kind: 'same-id' | 'matched'; seq: bigint; record: Record<string, unknown> };

/** Fields of the stored record a merge never changes: who it is, how and when it was recorded. */
const KEEP = new Set(['timestamp', 'event', 'harness', 'severity', 'content', 'schema_version', 'vendor', 'product', 'endpoint']);

export class StoredCounterparts {
  private byId?: Database.Statement;
  private readonly queries = new Map<string, Database.Statement>();
  private update?: Database.Statement;
  private fillColumns?: Database.Statement;
  private otherPath?: Database.Statement;
  /** per session: does the log hold a record of it from another path than import? (one transaction's answers: see `forget`) */
  private readonly othersIn = new Map<string, boolean>();

  constructor(private readonly db: Database.Database) {}

  /**
   * Forgets what `onlyImported` learnt: called at the start of each transaction (and each --dry-run
   * look), since another writer may have added a session's OTLP or hook records in between.
   */
  forget(): void {
    this.othersIn.clear();
  }

  /** A row of another path than import is being stored in `sessionId`: `onlyImported` says no from now on. */
  noteOther(sessionId: string | null): void {
    if (sessionId !== null) this.othersIn.set(sessionId, true);
  }

  /**
   * Whether an import's row can only be its own earlier record (same id), never another path's: its
   * session has no record of another path at all. One query per session and transaction instead of
   * a match query per row (a first import of a month: 40k rows, most sessions never seen by OTLP).
   */
  onlyImported(row: EventRow): boolean {
    if (row.method !== 'poll') return false;
    if (row.sessionId === null) return true;
    let others = this.othersIn.get(row.sessionId);
    if (others === undefined) {
      this.otherPath ??= this.db.prepare("SELECT 1 FROM events WHERE session_id = ? AND method <> 'poll' LIMIT 1");
      others = this.otherPath.get(row.sessionId) !== undefined;
      this.othersIn.set(row.sessionId, others);
    }
    return !others;
  }

  /** The stored event with `row`'s id, for an import's row (a re-import merges the union into it). */
  sameId(row: EventRow): Counterpart | undefined {
    this.byId ??= this.db.prepare('SELECT seq, record FROM events WHERE id = ?').safeIntegers(true);
    const same = this.byId.get(row.id) as Found | undefined;
    return same ? { kind: 'same-id', seq: same.seq, record: parse(same.record) } : undefined;
  }

  /** The stored event `row` is another record of, if any (read only: `beacon import --dry-run` asks this too). */
  find(row: EventRow): Counterpart | undefined {
    const importing = row.method === 'poll';
    // An import's row may repeat an id already stored (a re-import): the union is merged into it. Any
    // other path's retry is INSERT OR IGNORE's, as before.
    if (importing) {
      const same = this.sameId(row);
      if (same || this.onlyImported(row)) return same;
    }
    if (row.sessionId === null) return undefined;
    let fingerprint: unknown[];
    if (row.action === 'model.invoked') fingerprint = [row.inputTokens ?? 0, row.outputTokens ?? 0, row.cacheReadTokens ?? 0, row.cacheCreationTokens ?? 0];
    else if (row.action === 'prompt.submitted') {
      const hash = contentHash(row.record);
      if (hash === undefined) return undefined;
      fingerprint = [hash];
    } else return undefined;
    const query = this.matchQuery(row.action, importing);
    const candidates = query.all(row.sessionId, row.tsNs - MATCH_WINDOW_NS, row.tsNs + MATCH_WINDOW_NS, row.harness, ...fingerprint, row.tsNs) as Found[];
    // The nearest one not already merged with another record of this path; one merged with this very record is its own earlier merge.
    for (const c of candidates) {
      const record = parse(c.record);
      const merged = mergedFrom(record);
      if (merged.ids.includes(row.id)) return { kind: 'matched', seq: c.seq, record };
      // a record merged before paths were noted absorbed an import or was one (this path or its counterpart's)
      const taken = merged.paths.length > 0 ? merged.paths.includes(row.method) : merged.ids.length > 0;
      if (!taken) return { kind: 'matched', seq: c.seq, record };
    }
    return undefined;
  }

  /**
   * The records of other paths `row` may be one of. An import (`poll`) matches any other path's; any
   * other path matches imported records only, through the index that holds only those (schema v6:
   * a log without imports pays one empty index seek), and records of two other paths (OTLP and a
   * hook's prompt) are not matched with each other, as before.
   */
  private matchQuery(action: 'model.invoked' | 'prompt.submitted', importing: boolean): Database.Statement {
    const key = `${action}/${importing}`;
    let q = this.queries.get(key);
    if (!q) {
      const same = action === 'model.invoked'
        ? 'coalesce(input_tokens, 0) = ? AND coalesce(output_tokens, 0) = ? AND coalesce(cache_read_tokens, 0) = ? AND coalesce(cache_creation_tokens, 0) = ?'
        : "json_extract(record, '$.content.hash') = ?";
      q = this.db.prepare(
        `SELECT seq, record FROM events WHERE ${importing ? "method <> 'poll'" : "method = 'poll'"} AND session_id = ? AND ts_ns BETWEEN ? AND ?
           AND action = '${action}' AND harness = ? AND ${same} ORDER BY abs(ts_ns - ?), seq`,
      ).safeIntegers(true);
      this.queries.set(key, q);
    }
    return q;
  }

  /** Merges `row` into its counterpart (a union, see above); false when the stored record already held all of it. */
  merge(row: EventRow, into: Counterpart): boolean {
    const incoming = parse(row.record);
    const stored = into.record;
    let changed = fillMissing(stored, incoming, KEEP);
    if (into.kind === 'matched') {
      const event = (stored.event ??= {}) as { merged_ids?: string[]; merged_paths?: string[] };
      const ids = Array.isArray(event.merged_ids) ? event.merged_ids : [];
      if (!ids.includes(row.id)) {
        event.merged_ids = [...ids, row.id];
        event.merged_paths = [...(Array.isArray(event.merged_paths) ? event.merged_paths : []), row.method];
        changed = true;
      }
    }
    if (!changed) return false;
    // the record alone: the usage rollup's triggers fire only when a column they read is set (schema v6)
    this.update ??= this.db.prepare('UPDATE events SET record = ? WHERE seq = ?');
    this.update.run(JSON.stringify(stored), into.seq);
    // the columns only where the stored call had none and the row has one (the rollup then moves, rightly)
    this.fillColumns ??= this.db.prepare(
      `UPDATE events SET model = coalesce(model, ?), provider = coalesce(provider, ?), reasoning_tokens = coalesce(reasoning_tokens, ?), cost_usd = coalesce(cost_usd, ?)
       WHERE seq = ? AND ((model IS NULL AND ? IS NOT NULL) OR (provider IS NULL AND ? IS NOT NULL) OR (reasoning_tokens IS NULL AND ? IS NOT NULL) OR (cost_usd IS NULL AND ? IS NOT NULL))`,
    );
    this.fillColumns.run(row.model, row.provider, row.reasoningTokens, row.costUsd, into.seq, row.model, row.provider, row.reasoningTokens, row.costUsd);
    return true;
  }
}

const NONE: ReadonlySet<string> = new Set();

/**
 * Copies into `into` what only `from` has, recursively into objects both have; arrays and values
 * `into` has stay, and so do the top-level fields `keep` names. Also the union of prompt-join.ts.
 */
export function fillMissing(into: Record<string, unknown>, from: Record<string, unknown>, keep: ReadonlySet<string> = NONE): boolean {
  let changed = false;
  for (const [k, v] of Object.entries(from)) {
    if (keep.has(k)) continue;
    const have = into[k];
    if (have === undefined) {
      into[k] = v;
      changed = true;
    } else if (isObject(have) && isObject(v)) {
      changed = fillMissing(have, v) || changed;
    }
  }
  return changed;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The ids a stored record absorbed (`event.merged_ids`) and their paths (`event.merged_paths`, noted since issue 30's prompt join). */
export function mergedFrom(record: Record<string, unknown>): { ids: string[]; paths: string[] } {
  const event = record.event as { merged_ids?: unknown; merged_paths?: unknown } | undefined;
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  return { ids: strings(event?.merged_ids), paths: strings(event?.merged_paths) };
}

export const parseRecord = parse;

function parse(json: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(json);
    return isObject(v) ? v : {};
  } catch {
    return {};
  }
}

function contentHash(json: string): string | undefined {
  const hash = (parse(json).content as { hash?: unknown } | undefined)?.hash;
  return typeof hash === 'string' ? hash : undefined;
}
