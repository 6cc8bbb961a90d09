import { join, resolve } from 'node:path';
import type { NormalizedEvent } from '../../model/record';
import type { Attributes } from '../../model/span';
import type { TokenUsage } from '../../model/usage';
import { modelCallEvent, promptEvent, toolCallEvent } from '../agent-events';
import { tokenAttr } from '../attributes';
import { providerOfAuthType } from '../gemini-style-logs';
import type { ReaderContext, SessionStore, StoreFileReader } from '../store-registry';
import { asObject, asText, inTimeOrder, isoTimeNs, mergeable, storeObservation, withResult } from '../store-events';
import { AGENT } from './index';

/**
 * Qwen Code's chat files: `$QWEN_RUNTIME_DIR`, else `$QWEN_HOME`, else `~/.qwen`, then
 * `/projects/<cwd, each non-alphanumeric character a "-">/chats/<session id>.jsonl` (archived:
 * `chats/archive/<session id>.jsonl`), one record per line `{uuid, sessionId, timestamp, type,
 * version, …}` (shared/docs/agent-streams-stores-facts.md
 * §4b, checked on 0.24.4's own files and its Storage):
 *
 * - `system` `ui_telemetry`: a copy of the OTel event, written whether telemetry is on or not (its
 *   logApiResponse): `qwen-code.api_response{response_id, model, *_token_count, duration_ms,
 *   auth_type}`, one per model call of the session (the response id is OTLP's too: one event id for
 *   both paths), `qwen-code.api_error`, `qwen-code.tool_call{call_id, duration_ms}`. Calls with an
 *   internal prompt id (side queries) are not copied: only OTLP has those.
 * - `assistant{model, message.parts[functionCall{id, name, args} | text], usageMetadata}`: the answer
 *   of a main-chat call, its usage again in Gemini's field names with OpenAI's meaning
 *   (`promptTokenCount` includes the cached tokens, `candidatesTokenCount` includes
 *   `thoughtsTokenCount`). Its calls are the file's only when it has no api_response copy at all.
 * - `tool_result{toolCallResult{callId, status, resultDisplay{exitCode}}, message.parts[functionResponse
 *   {response{output|error}}]}`: completes the functionCall (0.24: a failed command is `error`, its
 *   exit code in `resultDisplay`; 0.15: `success` with `Exit Code: N` in the output).
 * - `user` (provenance `real_user`, or none before 0.24): the prompt.
 *
 * Settled as read (a follow shows each call without waiting for the file to go quiet): a prompt
 * and a telemetry copy are whole on their line, and 0.24 writes a call's api_response copy before
 * its assistant record and a tool's tool_call copy before its tool_result. Only two things wait:
 * a tool call for its result, and — in a file that has shown no api_response copy yet — the
 * assistant records' calls, which are the file's only if no copy ever comes (the first copy drops
 * them). Whether a copy was seen is the context a resumed read carries.
 */
interface Pending {
  name: string;
  args: unknown;
  time: bigint;
  sessionId?: string;
  version?: string;
}

interface Call {
  time: bigint;
  sessionId?: string;
  version?: string;
  model?: string;
  usage: TokenUsage;
  responseId?: string;
  provider?: string;
  durationMs?: number;
  error?: string;
  key: string;
}

class QwenChat implements StoreFileReader {
  private readonly tools = new Map<string, Pending>();
  private readonly toolDurations = new Map<string, number>();
  /** has the file an api_response / api_error copy (those are its calls)? */
  private copies: boolean;
  /** the assistant records' usage, held while no copy has come: the calls of a file without copies */
  private readonly answers: Call[] = [];
  private readonly done: NormalizedEvent[] = [];

  constructor(context?: ReaderContext) {
    this.copies = context?.copies === true;
  }

  line(v: Record<string, unknown>): NormalizedEvent[] {
    const time = isoTimeNs(v.timestamp);
    if (v.type !== 'user' && v.type !== 'assistant' && v.type !== 'tool_result' && v.type !== 'system') return [];
    if (time === undefined) throw new Error('a record without a valid timestamp');
    const at = { time, sessionId: asText(v.sessionId), version: asText(v.version) };
    const message = asObject(v.message);
    const parts = (Array.isArray(message?.parts) ? message.parts : []).map(asObject);
    if (v.type === 'system') {
      if (v.subtype === 'ui_telemetry') this.telemetry(asObject(asObject(v.systemPayload)?.uiEvent), at);
    } else if (v.type === 'assistant') {
      this.assistant(v, parts, at);
    } else if (v.type === 'tool_result') {
      this.toolResult(v, parts, at);
    } else if ((v.provenance === undefined || v.provenance === 'real_user') && (v.subtype === undefined || v.subtype === 'mid_turn_user_message')) {
      const text = parts.flatMap((p) => (typeof p?.text === 'string' ? [p.text] : [])).join('');
      const uuid = asText(v.uuid);
      if (text && uuid && !parts.some((p) => p?.functionResponse !== undefined)) this.done.push(mergeable(promptEvent(AGENT, storeObservation({ ...at, key: `prompt:${uuid}` }), text)));
    }
    return [];
  }

  private telemetry(e: Record<string, unknown> | undefined, at: Omit<Pending, 'name' | 'args'>): void {
    const name = asText(e?.['event.name']);
    if (!e || !name) return;
    if (name === 'qwen-code.api_response' || name === 'qwen-code.api_error') {
      const responseId = asText(e.response_id);
      const failed = name === 'qwen-code.api_error';
      const a = e as Attributes;
      this.copies = true;
      this.answers.length = 0;
      this.done.push(this.modelCall({
        ...at, model: asText(e.model), responseId, provider: providerOfAuthType(asText(e.auth_type)),
        usage: { input: tokenAttr(a, 'input_token_count'), output: tokenAttr(a, 'output_token_count'), cacheRead: tokenAttr(a, 'cached_content_token_count'), reasoning: tokenAttr(a, 'thoughts_token_count') },
        ...(typeof e.duration_ms === 'number' ? { durationMs: e.duration_ms } : {}),
        ...(failed ? { error: asText(e.error_type) ?? 'api_error' } : {}),
        key: `${failed ? 'api_error' : 'api_response'}:${responseId ?? String(at.time)}`,
      }));
    } else if (name === 'qwen-code.tool_call') {
      const callId = asText(e.call_id);
      if (callId && typeof e.duration_ms === 'number') this.toolDurations.set(callId, e.duration_ms);
    }
  }

  private assistant(v: Record<string, unknown>, parts: (Record<string, unknown> | undefined)[], at: Omit<Pending, 'name' | 'args'>): void {
    for (const p of parts) {
      const call = asObject(p?.functionCall);
      const id = asText(call?.id);
      const name = asText(call?.name);
      if (id && name) this.tools.set(id, { name, args: call!.args, ...at });
    }
    const metadata = asObject(v.usageMetadata);
    if (!metadata || this.copies) return;
    const u = metadata as Attributes;
    const usage: TokenUsage = { input: tokenAttr(u, 'promptTokenCount'), output: tokenAttr(u, 'candidatesTokenCount'), cacheRead: tokenAttr(u, 'cachedContentTokenCount'), reasoning: tokenAttr(u, 'thoughtsTokenCount') };
    this.answers.push({ ...at, model: asText(v.model), usage, key: `message:${asText(v.uuid) ?? String(at.time)}` });
  }

  private toolResult(v: Record<string, unknown>, parts: (Record<string, unknown> | undefined)[], at: Omit<Pending, 'name' | 'args'>): void {
    const r = asObject(v.toolCallResult);
    const response = parts.map((p) => asObject(p?.functionResponse)).find((f) => f !== undefined);
    const callId = asText(r?.callId) ?? asText(response?.id);
    const use = callId ? this.tools.get(callId) : undefined;
    if (!callId || !use) return; // a result of a call this file does not hold
    this.tools.delete(callId);
    const body = asObject(response?.response);
    const text = typeof body?.output === 'string' ? body.output : typeof body?.error === 'string' ? body.error : undefined;
    const display = asObject(r?.resultDisplay);
    const code = typeof display?.exitCode === 'number' ? display.exitCode : use.name === 'run_shell_command' && text ? Number(/^Exit Code: (-?\d+)$/m.exec(text)?.[1] ?? NaN) : NaN;
    const status = asText(r?.status);
    const duration = this.toolDurations.get(callId);
    const ev = toolCallEvent(AGENT, storeObservation({ time: use.time, sessionId: use.sessionId, version: use.version, key: `tool:${callId}` }), {
      name: use.name, callId, args: use.args,
      ...(status ? { success: status === 'success' } : {}),
      ...(Number.isInteger(code) ? { exitCode: code } : {}),
      ...(duration !== undefined ? { durationMs: duration } : {}),
    });
    const withText = withResult(ev, text);
    if (withText) this.done.push(withText);
    this.toolDurations.delete(callId);
    if (this.tools.size === 0) this.toolDurations.clear(); // a copy of a call this file does not hold: nothing will take it
  }

  private modelCall(c: Call): NormalizedEvent {
    return mergeable(modelCallEvent(AGENT, storeObservation({ time: c.time, sessionId: c.sessionId, version: c.version, key: c.key }), {
      ...(c.model ? { model: c.model } : {}), ...(c.provider ? { provider: c.provider } : {}), ...(c.responseId ? { responseId: c.responseId } : {}),
      usage: c.usage, ...(c.durationMs !== undefined ? { durationMs: c.durationMs } : {}), ...(c.error ? { error: c.error } : {}),
    }));
  }

  settled(): NormalizedEvent[] {
    return inTimeOrder(this.done.splice(0));
  }

  /** Nothing waits for a later line: no tool call without its result, no assistant call that a copy may still drop. */
  idle(): boolean {
    return this.tools.size === 0 && this.answers.length === 0;
  }

  context(): ReaderContext {
    return { copies: this.copies };
  }

  end(): NormalizedEvent[] {
    for (const [callId, use] of this.tools) {
      const ev = toolCallEvent(AGENT, storeObservation({ time: use.time, sessionId: use.sessionId, version: use.version, key: `tool:${callId}` }), { name: use.name, callId, args: use.args });
      if (ev) this.done.push(ev);
    }
    this.tools.clear();
    this.done.push(...this.answers.splice(0).map((c) => this.modelCall(c)));
    return this.settled();
  }
}

/** Qwen's own expansion of a configured directory: `~` is the home, a relative path is taken from the working directory. */
function configuredDir(dir: string, home: string): string {
  if (dir === '~') return home;
  if (dir.startsWith('~/')) return join(home, dir.slice(2));
  return resolve(dir);
}

export const qwenCodeStore: SessionStore = {
  harness: AGENT.harness,
  names: ['qwen-code', 'qwen'],
  // the runtime directory (sessions, debug logs) is QWEN_RUNTIME_DIR's, else the config home's (QWEN_HOME, else ~/.qwen)
  root: (home, env) => {
    const configured = env?.QWEN_RUNTIME_DIR || env?.QWEN_HOME;
    return join(configured ? configuredDir(configured, home) : join(home, '.qwen'), 'projects');
  },
  depth: 4,
  // an archived session is moved to chats/archive/ (its `archiveSessions`): still the session's history
  isSessionFile: (relative) => /^[^/]+\/chats\/(?:archive\/)?[^/]+\.jsonl$/.test(relative),
  reader: (_file, context) => new QwenChat(context),
};
