import { join } from 'node:path';
import type { NormalizedEvent } from '../../model/record';
import { modelCallEvent, promptEvent, toolCallEvent } from '../agent-events';
import type { SessionStore, StoreFileReader } from '../store-registry';
import { asObject, asText, isoTimeNs, mergeable, resultText, SettlingEvents, storeObservation, withResult } from '../store-events';
import { piExitCode } from './tools';
import { PI_AGENT, piTokenUsage } from './usage';

/**
 * Pi's session files (docs/agents/pi-facts.md §6): `<agent dir>/sessions/--<cwd>--/<time>_<uuid>.jsonl`,
 * a header `{type:"session", id, cwd}`, then entries `{type, id, parentId, timestamp}`. Read:
 * `message` entries — the user's prompt, an assistant message (one model call, its usage, its tool
 * calls), a tool result (completes its call). Everything else (model and thinking changes,
 * compactions, labels, extensions' own entries) is passed over.
 */
class PiSessionFile implements StoreFileReader {
  private sessionId?: string;
  private readonly calls = new SettlingEvents();

  line(v: Record<string, unknown>): NormalizedEvent[] {
    if (v.type === 'session') {
      this.sessionId = asText(v.id);
      return [];
    }
    if (v.type !== 'message') return [];
    const time = isoTimeNs(v.timestamp);
    if (time === undefined) throw new Error('a message without a valid timestamp');
    const m = asObject(v.message);
    if (!m) throw new Error('a message entry without a message');
    const entry = asText(v.id) ?? String(time);
    if (m.role === 'user') this.prompt(m, entry, time);
    else if (m.role === 'assistant') this.assistant(m, entry, time);
    else if (m.role === 'toolResult') this.toolResult(m, time);
    return [];
  }

  private at(time: bigint, key: string) {
    return storeObservation({ time, sessionId: this.sessionId, key });
  }

  private prompt(m: Record<string, unknown>, entry: string, time: bigint): void {
    const text = resultText(m.content);
    if (text !== undefined) this.calls.done.push(mergeable(promptEvent(PI_AGENT, this.at(time, `prompt:${entry}`), text)));
  }

  private assistant(m: Record<string, unknown>, entry: string, time: bigint): void {
    for (const block of Array.isArray(m.content) ? m.content : []) {
      const b = asObject(block);
      if (b?.type === 'toolCall' && typeof b.id === 'string' && typeof b.name === 'string') this.calls.pending.set(b.id, { name: b.name, args: b.arguments, time });
    }
    if (!asObject(m.usage)) return;
    const responseId = asText(m.responseId);
    const stop = asText(m.stopReason);
    this.calls.done.push(mergeable(modelCallEvent(PI_AGENT, this.at(time, `message:${entry}`), {
      model: asText(m.model), provider: asText(m.provider),
      ...(responseId ? { responseId } : {}),
      ...(stop ? { finishReasons: [stop] } : {}),
      usage: piTokenUsage(m.usage),
      ...(stop === 'error' ? { error: 'error' } : {}),
    })));
  }

  private toolResult(m: Record<string, unknown>, time: bigint): void {
    const callId = asText(m.toolCallId);
    const use = callId ? this.calls.pending.get(callId) : undefined;
    if (!callId || !use) return; // a result of a call this file does not hold
    this.calls.pending.delete(callId);
    const text = resultText(m.content);
    const exit = piExitCode(text);
    const ev = toolCallEvent(PI_AGENT, this.at(time, `tool:${callId}`), { name: use.name, callId, args: use.args, success: m.isError !== true, ...(exit !== undefined ? { exitCode: exit } : {}) });
    const withText = withResult(ev, text);
    if (withText) this.calls.done.push(withText);
  }

  settled(): NormalizedEvent[] {
    return this.calls.settled();
  }

  idle(): boolean {
    return this.calls.idle();
  }

  context() {
    return this.sessionId ? { sessionId: this.sessionId } : undefined;
  }

  resume(sessionId: unknown): this {
    if (typeof sessionId === 'string') this.sessionId = sessionId;
    return this;
  }

  end(): NormalizedEvent[] {
    return this.calls.endPending(PI_AGENT, (time, key) => this.at(time, key));
  }
}

export const piStore: SessionStore = {
  harness: PI_AGENT.harness,
  names: ['pi', 'pi-coding-agent'],
  root: (home, env) => (env?.PI_CODING_AGENT_SESSION_DIR ? env.PI_CODING_AGENT_SESSION_DIR : join(env?.PI_CODING_AGENT_DIR || join(home, '.pi', 'agent'), 'sessions')),
  depth: 2,
  isSessionFile: (relative) => /^[^/]+\/[^/]+\.jsonl$/.test(relative),
  reader: (_file, context) => new PiSessionFile().resume(context?.sessionId),
};
