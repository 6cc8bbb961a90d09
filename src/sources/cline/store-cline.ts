import { join } from 'node:path';
import type { NormalizedEvent } from '../../model/record';
import { modelCallEvent, promptEvent, toolCallEvent } from '../agent-events';
import type { SessionStore, StoreFileReader } from '../store-registry';
import { asObject, asText, inTimeOrder, mergeable, resultText, storeObservation, withResult } from '../store-events';
import { AGENT } from './index';
import { clinePromptText } from './prompt';
import { clineOutcome } from './tools';

type Block = Record<string, unknown>;

const tokens = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined);
const blocks = (m: Block): Block[] => (Array.isArray(m.content) ? m.content.map(asObject).filter((b): b is Block => b !== undefined) : []);
const msTime = (v: unknown): bigint | undefined => (typeof v === 'number' && Number.isFinite(v) ? BigInt(Math.trunc(v)) * 1_000_000n : undefined);

/**
 * Cline's session store (3.0.65, docs/agents/cline-facts.md): `<root>/<id>/<id>.messages.json`, one
 * JSON document rewritten each turn: `{sessionId, messages[]}`, each message `{id, role, content[],
 * ts (ms)}`. An assistant message is one model call: `metrics {inputTokens (cache read included),
 * outputTokens, cacheReadTokens, cacheWriteTokens}`, `modelInfo {id, provider}`, its `tool_use`
 * blocks the calls; their `tool_result` blocks come in the next user message. A user message of
 * text is a prompt (`<user_input mode="act">…</user_input>` around it).
 */
class ClineMessages implements StoreFileReader {
  private sessionId?: string;
  private messages: Block[] = [];

  line(v: Record<string, unknown>): NormalizedEvent[] {
    this.sessionId = asText(v.sessionId) ?? this.sessionId;
    if (!Array.isArray(v.messages)) throw new Error('a messages file without its messages list');
    this.messages = v.messages.map(asObject).filter((m): m is Block => m !== undefined);
    return [];
  }

  private at(time: bigint, key: string) {
    return storeObservation({ time, sessionId: this.sessionId, key });
  }

  end(): NormalizedEvent[] {
    const out: NormalizedEvent[] = [];
    const results = new Map<string, Block>();
    for (const m of this.messages) for (const b of blocks(m)) if (b.type === 'tool_result' && typeof b.tool_use_id === 'string') results.set(b.tool_use_id, b);
    this.messages.forEach((m, i) => {
      const time = msTime(m.ts);
      if (time === undefined) return;
      const id = asText(m.id) ?? String(i);
      if (m.role === 'user') {
        const texts = blocks(m).filter((b) => b.type === 'text' && typeof b.text === 'string');
        if (texts.length > 0 && !blocks(m).some((b) => b.type === 'tool_result')) out.push(mergeable(promptEvent(AGENT, this.at(time, `prompt:${id}`), clinePromptText(texts.map((b) => b.text as string).join('')))));
      } else if (m.role === 'assistant') {
        const call = this.modelCall(m, time, id);
        if (call) out.push(call);
        for (const b of blocks(m)) if (b.type === 'tool_use') {
          const ev = this.toolCall(b, results.get(String(b.id)), time);
          if (ev) out.push(ev);
        }
      }
    });
    return inTimeOrder(out);
  }

  private modelCall(m: Block, time: bigint, id: string): NormalizedEvent | undefined {
    const metrics = asObject(m.metrics);
    if (!metrics) return undefined;
    const info = asObject(m.modelInfo);
    const usage = { input: tokens(metrics.inputTokens), output: tokens(metrics.outputTokens), cacheRead: tokens(metrics.cacheReadTokens), cacheWrite: tokens(metrics.cacheWriteTokens) };
    const model = asText(info?.id);
    const provider = asText(info?.provider);
    return mergeable(modelCallEvent(AGENT, this.at(time, `message:${id}`), { ...(model ? { model } : {}), ...(provider ? { provider } : {}), usage }));
  }

  private toolCall(b: Block, result: Block | undefined, time: bigint): NormalizedEvent | undefined {
    const callId = asText(b.id);
    const name = asText(b.name);
    // Not yet answered: the file is rewritten each turn, so a later read has its result (one event then, not an outcome-less one now).
    if (!callId || !name || !result) return undefined;
    const content = result?.content;
    const outcome = clineOutcome(typeof content === 'string' ? parseJson(content) : content);
    const ev = toolCallEvent(AGENT, this.at(time, `tool:${callId}`), {
      name, callId, args: b.input, success: !outcome.failed,
      ...(outcome.exitCode !== undefined ? { exitCode: outcome.exitCode } : {}),
    });
    return withResult(ev, typeof content === 'string' ? content : resultText(content) ?? (content !== undefined ? JSON.stringify(content) : undefined));
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Cline's own overrides, in its order: the sessions directory, the data directory, its whole directory. */
function clineSessions(home: string, env?: NodeJS.ProcessEnv): string {
  const set = (k: string) => (env?.[k]?.trim() ? env[k]!.trim() : undefined);
  return set('CLINE_SESSION_DATA_DIR') ?? join(set('CLINE_DATA_DIR') ?? join(set('CLINE_DIR') ?? join(home, '.cline'), 'data'), 'sessions');
}

export const clineStore: SessionStore = {
  harness: AGENT.harness,
  names: ['cline'],
  root: clineSessions,
  depth: 2,
  isSessionFile: (relative) => {
    const m = /^([^/]+)\/([^/]+)\.messages\.json$/.exec(relative);
    return m !== null && m[1] === m[2];
  },
  isJsonDocument: () => true,
  reader: () => new ClineMessages(),
};
