import type Database from 'better-sqlite3';
import { isAbsolute, join } from 'node:path';
import type { NormalizedEvent } from '../../model/record';
import { modelCallEvent, promptEvent, toolCallEvent, type Agent } from '../agent-events';
import { columnsOf, jsonObject, markOf, sessionsSince, type DatabaseStore, type MarkedTable } from '../store-db';
import type { ReaderContext } from '../store-registry';
import { asObject, asText, inTimeOrder, mergeable, storeObservation } from '../store-events';
import type { Warn } from '../store-read';
import { OPENCODE_STREAM_USAGE } from './stream-opencode';
import { classifyOpencodeTool } from './tools';

/**
 * opencode's own database (1.18, checked on the lab's real runs; shared/docs/agent-streams-stores-facts.md §5b):
 * `$OPENCODE_DB` (relative: under the data directory), else `$XDG_DATA_HOME/opencode/opencode.db`
 * (default `~/.local/share/opencode/`). Only three tables are read — the database also holds
 * `account` and `credential` rows with access tokens, which are never selected:
 *
 * - `session{id, version}`; `message{id, session_id, time_created, data{role, modelID, providerID}}`;
 * - `part{id, message_id, session_id, time_created, data}`, the stream's parts: a user message's
 *   `text` parts are the prompt (the text its OTLP export sends, quotes and all); each `step-finish`
 *   `{reason, cost, tokens{input (cache NOT included), output (reasoning NOT included), reasoning,
 *   cache{read, write}}}` is one model call (its `step-start` is when it began); a `tool` part
 *   `{tool, callID, state{status, input, output, error, metadata{exit}, time{start, end}}}` a tool call.
 *
 * No response id is stored: a model call meets its OTLP `ai.streamText.doStream` record by session
 * and tokens within a minute (store/log/merge.ts). The title side call is in no table: only OTLP has it.
 * A tool still `pending`/`running` is left for a later import (its part is rewritten when it ends).
 */
const AGENT: Agent = { harness: 'opencode', usage: OPENCODE_STREAM_USAGE, classifyTool: classifyOpencodeTool };

const NEEDED: Record<string, string[]> = {
  session: ['id'],
  message: ['id', 'session_id', 'time_created', 'data'],
  part: ['id', 'message_id', 'session_id', 'time_created', 'data'],
};

interface Row {
  id: string;
  time_created: number;
  data: string;
}

const ms = (v: unknown): bigint | undefined => (typeof v === 'number' && Number.isFinite(v) ? BigInt(Math.trunc(v)) * 1_000_000n : undefined);

function sessionEvents(sessionId: string, version: string | undefined, messages: Row[], parts: (Row & { message_id: string })[]): NormalizedEvent[] {
  const at = (time: bigint, key: string) => storeObservation({ time, sessionId, version, key });
  const byMessage = new Map<string, (Row & { message_id: string })[]>();
  for (const p of parts) byMessage.set(p.message_id, [...(byMessage.get(p.message_id) ?? []), p]);
  const out: NormalizedEvent[] = [];
  for (const m of messages) {
    const data = jsonObject(m.data);
    if (!data) continue;
    const mine = byMessage.get(m.id) ?? [];
    if (data.role === 'user') {
      const texts = mine.map((p) => jsonObject(p.data)).filter((d) => d?.type === 'text' && d.ignored !== true && typeof d.text === 'string').map((d) => d!.text as string);
      if (texts.length) out.push(mergeable(promptEvent(AGENT, at(ms(m.time_created)!, `prompt:${m.id}`), texts.join('\n'))));
      continue;
    }
    let stepStart: bigint | undefined;
    for (const p of mine) {
      const d = jsonObject(p.data);
      if (!d) continue;
      const created = ms(p.time_created) ?? ms(m.time_created)!;
      if (d.type === 'step-start') stepStart = created;
      else if (d.type === 'step-finish') {
        out.push(modelCall(data, d, at(stepStart ?? ms(m.time_created)!, `step:${p.id}`), stepStart !== undefined ? Number((created - stepStart) / 1_000_000n) : undefined));
        stepStart = undefined;
      } else if (d.type === 'tool') {
        const ev = toolCall(d, p.id, (t) => at(t ?? created, `tool:${asText(d.callID) ?? p.id}`));
        if (ev) out.push(ev);
      }
    }
  }
  return inTimeOrder(out);
}

function modelCall(message: Record<string, unknown>, step: Record<string, unknown>, o: ReturnType<typeof storeObservation>, durationMs: number | undefined): NormalizedEvent {
  const t = asObject(step.tokens) ?? {};
  const cache = asObject(t.cache) ?? {};
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);
  const cost = num(step.cost);
  const model = asText(message.modelID);
  const provider = asText(message.providerID);
  const reason = asText(step.reason);
  return mergeable(modelCallEvent(AGENT, o, {
    ...(model ? { model } : {}), ...(provider ? { provider } : {}), ...(reason ? { finishReasons: [reason] } : {}),
    usage: { input: num(t.input), output: num(t.output), reasoning: num(t.reasoning), cacheRead: num(cache.read), cacheWrite: num(cache.write), ...(cost ? { costUsd: cost } : {}) },
    ...(durationMs !== undefined ? { durationMs } : {}),
  }));
}

function toolCall(d: Record<string, unknown>, partId: string, at: (t: bigint | undefined) => ReturnType<typeof storeObservation>): NormalizedEvent | undefined {
  const state = asObject(d.state) ?? {};
  if (state.status !== 'completed' && state.status !== 'error') return undefined;
  const name = asText(d.tool);
  if (!name) return undefined;
  const time = asObject(state.time) ?? {};
  const exit = asObject(state.metadata)?.exit;
  const start = ms(time.start);
  const end = ms(time.end);
  const ev = toolCallEvent(AGENT, at(start), {
    name, callId: asText(d.callID) ?? partId, args: state.input,
    ...(state.status === 'error' ? { success: false } : {}),
    ...(typeof exit === 'number' && Number.isInteger(exit) ? { exitCode: exit } : {}),
    ...(start !== undefined && end !== undefined && end >= start ? { durationMs: Number((end - start) / 1_000_000n) } : {}),
  });
  const result = asText(state.output) ?? asText(state.error);
  if (ev?.record.gen_ai?.tool?.call && result !== undefined) ev.record.gen_ai.tool.call.result = result;
  return ev;
}

/** The tables read and their `time_updated` (a tool part is rewritten when its call ends: its creation time would miss that). */
function markedTables(db: Database.Database): MarkedTable[] | undefined {
  const tables = ['message', 'part'];
  return tables.every((t) => columnsOf(db, t).has('time_updated')) ? tables.map((table) => ({ table, column: 'time_updated', time: true })) : undefined;
}

function* readOpencode(db: Database.Database, warn: Warn, since?: ReaderContext): Iterable<NormalizedEvent[]> {
  for (const [table, cols] of Object.entries(NEEDED)) {
    const have = columnsOf(db, table);
    const missing = cols.filter((c) => !have.has(c));
    if (missing.length) {
      warn(`${db.name}: opencode's ${table} table ${have.size ? `has no ${missing.join(', ')}` : 'is not there'} (another opencode version?): nothing read`);
      return;
    }
  }
  const hasVersion = columnsOf(db, 'session').has('version');
  const marked = markedTables(db);
  const changed = marked ? sessionsSince(db, marked, since) : undefined;
  const sessions = (db.prepare(`SELECT id${hasVersion ? ', version' : ''} FROM session ORDER BY time_created, id`).all() as { id: string; version?: string }[]).filter((s) => !changed || changed.has(s.id));
  const messages = db.prepare('SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created, id');
  const parts = db.prepare('SELECT id, message_id, time_created, data FROM part WHERE session_id = ? ORDER BY message_id, id');
  for (const s of sessions) {
    yield sessionEvents(s.id, asText(s.version), messages.all(s.id) as Row[], parts.all(s.id) as (Row & { message_id: string })[]);
  }
}

export const opencodeStore: DatabaseStore = {
  harness: AGENT.harness,
  names: ['opencode'],
  path(home, env) {
    const data = join(env?.XDG_DATA_HOME || join(home, '.local', 'share'), 'opencode');
    const own = env?.OPENCODE_DB;
    if (own && own !== ':memory:') return isAbsolute(own) ? own : join(data, own);
    return join(data, 'opencode.db');
  },
  read: readOpencode,
  mark: (db) => {
    const marked = markedTables(db);
    return marked ? markOf(db, marked) : undefined;
  },
};
