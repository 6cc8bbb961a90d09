import { join } from 'node:path';
import type { NormalizedEvent } from '../../model/record';
import type { Attributes } from '../../model/span';
import type { TokenUsage } from '../../model/usage';
import { modelCallEvent, promptEvent, toolCallEvent } from '../agent-events';
import { tokenAttr } from '../attributes';
import type { SessionStore, StoreFileReader } from '../store-registry';
import { asObject, asText, isoTimeNs, mergeable, storeObservation, withResult } from '../store-events';
import { AGENT, exitCode as exitCodeIn } from './index';

/**
 * Codex's rollout files: `$CODEX_HOME` (else `~/.codex`) `/sessions/YYYY/MM/DD/rollout-<start>-<thread
 * id>.jsonl`, lines `{timestamp, type, payload}` (shared/docs/agent-streams-stores-facts.md §2b,
 * checked on 0.171.0's own files):
 *
 * - `session_meta{id, cli_version, model_provider}`: the session; `turn_context{model}` and
 *   `event_msg thread_settings_applied{thread_settings.model}`: the model from then on.
 * - `token_usage_record{response_id, usage}`: one per model response, the per-call truth (input
 *   includes cached, output includes reasoning). Older rollouts have only `event_msg token_count`,
 *   whose `last_token_usage` is the last call's and whose `total_token_usage` is cumulative — never
 *   summed; a `token_count` repeating the previous total is the same call again, skipped.
 * - prompts: `event_msg item_completed{item: UserMessage}` (older: `event_msg user_message{message}`).
 * - tools: `response_item function_call{name, arguments, call_id}` / `custom_tool_call{name, input,
 *   call_id}`, their `…_output{call_id, output}`, and `item_completed CommandExecution{id = call_id,
 *   exit_code, status, duration}` with the exit code (else "Process exited with code N" in the output).
 */
interface Call {
  name: string;
  args: unknown;
  time: bigint;
  output?: string;
  exitCode?: number;
  failed?: boolean;
  durationMs?: number;
}

type Usage = Record<string, unknown>;

class CodexRollout implements StoreFileReader {
  private sessionId?: string;
  private version?: string;
  private provider?: string;
  private model?: string;
  private readonly calls = new Map<string, Call>();
  private readonly models: NormalizedEvent[] = [];
  private readonly prompts: { items: NormalizedEvent[]; legacy: NormalizedEvent[] } = { items: [], legacy: [] };
  private usageRecords = false;
  private lastTotal?: string;

  line(v: Record<string, unknown>): NormalizedEvent[] {
    const time = isoTimeNs(v.timestamp);
    const p = asObject(v.payload);
    if (!p) return [];
    if (time === undefined) throw new Error('a record without a valid timestamp');
    switch (v.type) {
      case 'session_meta':
        this.sessionId = asText(p.id) ?? asText(p.session_id);
        this.version = asText(p.cli_version);
        this.provider = asText(p.model_provider)?.toLowerCase();
        break;
      case 'turn_context':
        this.model = asText(p.model) ?? this.model;
        break;
      case 'token_usage_record':
        this.usageRecord(p, time);
        break;
      case 'event_msg':
        this.event(p, time);
        break;
      case 'response_item':
        this.responseItem(p, time);
        break;
    }
    return [];
  }

  private at(time: bigint, key: string) {
    return storeObservation({ time, sessionId: this.sessionId, version: this.version, key });
  }

  private modelCall(time: bigint, key: string, usage: Usage, responseId?: string): void {
    const u = usage as Attributes;
    const reported: TokenUsage = {
      input: tokenAttr(u, 'input_tokens'), output: tokenAttr(u, 'output_tokens'),
      cacheRead: tokenAttr(u, 'cached_input_tokens'), cacheWrite: tokenAttr(u, 'cache_write_input_tokens'),
      reasoning: tokenAttr(u, 'reasoning_output_tokens'),
    };
    this.models.push(mergeable(modelCallEvent(AGENT, this.at(time, key), {
      ...(this.model ? { model: this.model } : {}), ...(this.provider ? { provider: this.provider } : {}), ...(responseId ? { responseId } : {}), usage: reported,
    })));
  }

  private usageRecord(p: Record<string, unknown>, time: bigint): void {
    const usage = asObject(p.usage);
    if (!usage) return;
    if (!this.usageRecords) this.models.length = 0; // token_count calls read before the first record give way to the records
    this.usageRecords = true;
    const responseId = asText(p.response_id);
    this.modelCall(time, `response:${responseId ?? String(time)}`, usage, responseId);
  }

  private event(p: Record<string, unknown>, time: bigint): void {
    switch (p.type) {
      case 'thread_settings_applied':
        this.model = asText(asObject(p.thread_settings)?.model) ?? this.model;
        break;
      case 'token_count': {
        const info = asObject(p.info);
        const last = asObject(info?.last_token_usage);
        if (this.usageRecords || !info || !last) return;
        const total = JSON.stringify(info.total_token_usage ?? null);
        if (total === this.lastTotal) return; // the same call reported again
        this.lastTotal = total;
        this.modelCall(time, `token_count:${total}`, last);
        break;
      }
      case 'item_completed':
        this.item(asObject(p.item), time);
        break;
      case 'user_message': {
        const text = asText(p.message);
        if (text) this.prompts.legacy.push(mergeable(promptEvent(AGENT, this.at(time, `user_message:${time}`), text)));
        break;
      }
    }
  }

  private item(item: Record<string, unknown> | undefined, time: bigint): void {
    if (item?.type === 'UserMessage') {
      const text = (Array.isArray(item.content) ? item.content : []).flatMap((c: { type?: unknown; text?: unknown }) => (c?.type === 'text' && typeof c.text === 'string' ? [c.text] : [])).join('\n');
      if (text) this.prompts.items.push(mergeable(promptEvent(AGENT, this.at(time, `prompt:${asText(item.id) ?? time}`), text)));
    } else if (item?.type === 'CommandExecution') {
      const call = this.calls.get(asText(item.id) ?? '');
      if (!call) return;
      if (typeof item.exit_code === 'number') call.exitCode = item.exit_code;
      if (item.status === 'failed') call.failed = true;
      const d = asObject(item.duration);
      if (typeof d?.secs === 'number' && typeof d.nanos === 'number') call.durationMs = d.secs * 1000 + Math.round(d.nanos / 1e6);
    }
  }

  private responseItem(p: Record<string, unknown>, time: bigint): void {
    const callId = asText(p.call_id);
    if (!callId) return;
    if (p.type === 'function_call' || p.type === 'custom_tool_call') {
      const name = asText(p.name) ?? '';
      const args = p.type === 'function_call' ? parseArguments(p.arguments) : { input: p.input };
      this.calls.set(callId, { name, args, time });
    } else if (p.type === 'function_call_output' || p.type === 'custom_tool_call_output') {
      const call = this.calls.get(callId);
      if (!call) return;
      call.output = typeof p.output === 'string' ? p.output : JSON.stringify(p.output);
    }
  }

  end(): NormalizedEvent[] {
    const tools: NormalizedEvent[] = [];
    for (const [callId, c] of this.calls) {
      const exit = c.exitCode ?? exitCodeIn(c.output);
      const ev = toolCallEvent(AGENT, this.at(c.time, `tool:${callId}`), {
        name: c.name, callId, args: c.args,
        ...(c.output !== undefined || c.failed ? { success: !c.failed } : {}),
        ...(exit !== undefined ? { exitCode: exit } : {}),
        ...(c.durationMs !== undefined ? { durationMs: c.durationMs } : {}),
      });
      const withOutput = withResult(ev, c.output);
      if (withOutput) tools.push(withOutput);
    }
    const prompts = this.prompts.items.length > 0 ? this.prompts.items : this.prompts.legacy;
    return [...prompts, ...this.models, ...tools].sort((a, b) => (a.timeUnixNano < b.timeUnixNano ? -1 : a.timeUnixNano > b.timeUnixNano ? 1 : 0));
  }
}

/** The function call's arguments: Codex stores them as the JSON text the model sent. */
function parseArguments(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

export const codexStore: SessionStore = {
  harness: AGENT.harness,
  names: ['codex'],
  root: (home, env) => join(env?.CODEX_HOME || join(home, '.codex'), 'sessions'),
  depth: 4,
  isSessionFile: (relative) => /^\d{4}\/\d{2}\/\d{2}\/rollout-[^/]+\.jsonl$/.test(relative),
  reader: () => new CodexRollout(),
};
