import type Database from 'better-sqlite3';
import { isAbsolute, join } from 'node:path';
import type { NormalizedEvent } from '../../model/record';
import { modelCallEvent, promptEvent, toolCallEvent, type Agent } from '../agent-events';
import { columnsOf, markOf, sessionsSince, type DatabaseStore, type MarkedTable } from '../store-db';
import type { ReaderContext } from '../store-registry';
import { asObject, asText, inTimeOrder, mergeable, resultText, storeObservation } from '../store-events';
import type { Warn } from '../store-read';
import { classifyGooseTool } from './tools';
import { GOOSE_USAGE } from './usage';

/**
 * goose's sessions database, `<data>/sessions/sessions.db`: `<data>` is `$GOOSE_PATH_ROOT/data`
 * (an absolute GOOSE_PATH_ROOT only, as goose's config/paths.rs), else the XDG data dir
 * (`$XDG_DATA_HOME/goose`, default `~/.local/share/goose`; etcetera's app strategy is XDG on macOS too).
 * The schema is docs/goose-sessions-db.md (goose 1.47.0, schema version 16; goose is not installable
 * here, so its test builds a fixture from that document):
 *
 * - `usage_ledger{id, session_id, created_timestamp (epoch s), model, input_tokens (cache included),
 *   output_tokens, cache_read_tokens, cache_write_tokens, cost, cost_source, is_compaction}`: one row
 *   per model call. `cost_source = 'carried_forward'` rows are the session's totals from before the
 *   ledger existed (one lump, not a call): skipped, and counted in a warning.
 * - `messages{id, session_id, role, content_json, created_timestamp (epoch s)}`: a user message's
 *   `text` blocks are its prompt; an assistant's `toolRequest{id, toolCall{status, value{name,
 *   arguments}}}` and the next user message's `toolResponse{id, toolResult{status, value{content,
 *   isError} | error}}` a tool call.
 */
const AGENT: Agent = { harness: 'goose', usage: GOOSE_USAGE, classifyTool: classifyGooseTool };

const secs = (v: unknown): bigint | undefined => (typeof v === 'number' && Number.isFinite(v) ? BigInt(Math.trunc(v)) * 1_000_000_000n : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);

interface Ledger {
  id: number;
  session_id: string;
  created_timestamp: number;
  model: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens: number | null;
  cache_write_tokens: number | null;
  cost: number | null;
  cost_source: string | null;
}

function ledgerEvent(r: Ledger): NormalizedEvent {
  const o = storeObservation({ time: secs(r.created_timestamp) ?? 0n, sessionId: r.session_id, key: `ledger:${r.id}` });
  const cost = num(r.cost);
  return mergeable(modelCallEvent(AGENT, o, {
    ...(r.model ? { model: r.model } : {}),
    usage: { input: num(r.input_tokens), output: num(r.output_tokens), cacheRead: num(r.cache_read_tokens), cacheWrite: num(r.cache_write_tokens), ...(cost ? { costUsd: cost } : {}) },
  }));
}

interface Message {
  id: number;
  role: string;
  content_json: string;
  created_timestamp: number;
}

function messageEvents(sessionId: string, messages: Message[]): NormalizedEvent[] {
  const out: NormalizedEvent[] = [];
  const requests = new Map<string, { name: string; args: unknown; time: bigint }>();
  for (const m of messages) {
    let blocks: unknown;
    try {
      blocks = JSON.parse(m.content_json);
    } catch {
      continue;
    }
    if (!Array.isArray(blocks)) continue;
    const time = secs(m.created_timestamp) ?? 0n;
    const at = (key: string, t = time) => storeObservation({ time: t, sessionId, key });
    const texts: string[] = [];
    for (const b of blocks.map(asObject)) {
      if (!b) continue;
      if (b.type === 'text' && typeof b.text === 'string') texts.push(b.text);
      else if (b.type === 'toolRequest') {
        const call = asObject(b.toolCall);
        const value = asObject(call?.value);
        const name = asText(value?.name);
        if (asText(b.id) && name) requests.set(b.id as string, { name, args: value!.arguments, time });
      } else if (b.type === 'toolResponse') {
        const id = asText(b.id);
        const req = id ? requests.get(id) : undefined;
        if (!id || !req) continue;
        requests.delete(id);
        const result = asObject(b.toolResult);
        const value = result?.value;
        const failed = result?.status === 'error' || asObject(value)?.isError === true;
        const text = result?.status === 'error' ? asText(result.error) : resultText(Array.isArray(value) ? value : asObject(value)?.content);
        const ev = toolCallEvent(AGENT, at(`tool:${id}`, req.time), { name: req.name, callId: id, args: req.args, ...(failed ? { success: false } : {}) });
        if (ev?.record.gen_ai?.tool?.call && text !== undefined) ev.record.gen_ai.tool.call.result = text;
        if (ev) out.push(ev);
      }
    }
    if (m.role === 'user' && texts.length) out.push(mergeable(promptEvent(AGENT, at(`prompt:${m.id}`), texts.join('\n'))));
  }
  return out;
}

/** The tables read and their autoincrement ids (goose appends a row per message and per call; a rewritten conversation gets new ids). */
function markedTables(db: Database.Database): MarkedTable[] | undefined {
  const tables = (['usage_ledger', 'messages'] as const).filter((t) => columnsOf(db, t).size > 0);
  return tables.every((t) => columnsOf(db, t).has('id')) ? tables.map((table) => ({ table, column: 'id' })) : undefined;
}

function* readGoose(db: Database.Database, warn: Warn, since?: ReaderContext): Iterable<NormalizedEvent[]> {
  const ledger = columnsOf(db, 'usage_ledger');
  const messages = columnsOf(db, 'messages');
  if (!ledger.has('session_id') && !messages.has('session_id')) {
    warn(`${db.name}: neither goose's usage_ledger nor its messages table is there (a goose before schema 15?): nothing read`);
    return;
  }
  const marked = markedTables(db);
  let sessions = marked ? sessionsSince(db, marked, since) : undefined;
  if (!sessions) {
    sessions = new Set<string>();
    for (const t of [ledger.size ? 'usage_ledger' : '', messages.size ? 'messages' : ''].filter(Boolean)) {
      for (const r of db.prepare(`SELECT DISTINCT session_id FROM ${t}`).all() as { session_id: string }[]) sessions.add(r.session_id);
    }
  }
  const calls = ledger.size ? db.prepare('SELECT * FROM usage_ledger WHERE session_id = ? ORDER BY id') : undefined;
  const msgs = messages.size ? db.prepare('SELECT id, role, content_json, created_timestamp FROM messages WHERE session_id = ? ORDER BY created_timestamp, id') : undefined;
  let carried = 0;
  for (const id of sessions) {
    const rows = (calls?.all(id) ?? []) as Ledger[];
    const kept = rows.filter((r) => r.cost_source !== 'carried_forward');
    carried += rows.length - kept.length;
    yield inTimeOrder([...kept.map(ledgerEvent), ...messageEvents(id, (msgs?.all(id) ?? []) as Message[])]);
  }
  if (carried) warn(`${db.name}: ${carried} usage_ledger row${carried === 1 ? '' : 's'} "carried_forward" (a session's totals from before goose kept a ledger, not calls): not imported`);
}

export const gooseStore: DatabaseStore = {
  harness: AGENT.harness,
  names: ['goose'],
  path(home, env) {
    const root = env?.GOOSE_PATH_ROOT && isAbsolute(env.GOOSE_PATH_ROOT) ? env.GOOSE_PATH_ROOT : undefined;
    const xdg = env?.XDG_DATA_HOME && isAbsolute(env.XDG_DATA_HOME) ? env.XDG_DATA_HOME : join(home, '.local', 'share');
    return join(root ? join(root, 'data') : join(xdg, 'goose'), 'sessions', 'sessions.db');
  },
  read: readGoose,
  mark: (db) => {
    const marked = markedTables(db);
    return marked ? markOf(db, marked) : undefined;
  },
};
