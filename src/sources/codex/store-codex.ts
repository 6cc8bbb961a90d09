import { join } from 'node:path';
import type { NormalizedEvent } from '../../model/record';
import type { Attributes } from '../../model/span';
import type { TokenUsage } from '../../model/usage';
import { modelCallEvent, promptEvent, toolCallEvent } from '../agent-events';
import { tokenAttr } from '../attributes';
import type { ReaderContext, SessionStore, StoreFileReader } from '../store-registry';
import { asObject, asText, inTimeOrder, isoTimeNs, mergeable, storeObservation, withResult } from '../store-events';
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
  /** the line its output came on, and whether its CommandExecution item came too: complete after both, or a line later */
  outputLine?: number;
  itemDone?: boolean;
}

type Usage = Record<string, unknown>;

/**
 * Read in order, its events handed out as soon as no later line can change them (`settled()`, for
 * cursors and follow): a model call of a token_usage_record at once; a tool call once its output and
 * its CommandExecution item have come (or a line after its output); the older files' token_count
 * calls and user_message prompts at the next turn, when no token_usage_record or UserMessage item
 * of the same turn has replaced them.
 */
class CodexRollout implements StoreFileReader {
  private sessionId?: string;
  private version?: string;
  private provider?: string;
  private model?: string;
  private readonly calls = new Map<string, Call>();
  private readonly done: NormalizedEvent[] = [];
  /** an older rollout's token_count calls and user_message prompts: given way to records and items of the same turn */
  private readonly legacy: { models: NormalizedEvent[]; prompts: NormalizedEvent[] } = { models: [], prompts: [] };
  private usageRecords = false;
  private promptItems = false;
  private lastTotal?: string;
  private lineNo = 0;

  constructor(context?: ReaderContext) {
    if (!context) return;
    const text = (k: string) => (typeof context[k] === 'string' ? (context[k] as string) : undefined);
    this.sessionId = text('sessionId');
    this.version = text('version');
    this.provider = text('provider');
    this.model = text('model');
    this.lastTotal = text('lastTotal');
    this.usageRecords = context.usageRecords === true;
    this.promptItems = context.promptItems === true;
  }

  line(v: Record<string, unknown>): NormalizedEvent[] {
    this.lineNo++;
    const time = isoTimeNs(v.timestamp);
    const p = asObject(v.payload);
    if (!p) return [];
    if (time === undefined) throw new Error('a record without a valid timestamp');
    this.record(v.type, p, time);
    this.settleTools();
    return [];
  }

  private record(type: unknown, p: Record<string, unknown>, time: bigint): void {
    switch (type) {
      case 'session_meta':
        this.sessionId = asText(p.id) ?? asText(p.session_id);
        this.version = asText(p.cli_version);
        this.provider = asText(p.model_provider)?.toLowerCase();
        break;
      case 'turn_context':
        this.model = asText(p.model) ?? this.model;
        this.settleLegacy(); // a new turn: nothing of the last one replaces its token_count calls or prompts any more
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
  }

  settled(): NormalizedEvent[] {
    return inTimeOrder(this.done.splice(0));
  }

  idle(): boolean {
    return this.calls.size === 0 && this.legacy.models.length === 0 && this.legacy.prompts.length === 0;
  }

  context(): ReaderContext {
    const c: ReaderContext = { usageRecords: this.usageRecords, promptItems: this.promptItems };
    for (const [k, v] of Object.entries({ sessionId: this.sessionId, version: this.version, provider: this.provider, model: this.model, lastTotal: this.lastTotal })) if (v !== undefined) c[k] = v;
    return c;
  }

  private settleLegacy(): void {
    if (!this.usageRecords) this.done.push(...this.legacy.models);
    if (!this.promptItems) this.done.push(...this.legacy.prompts);
    this.legacy.models.length = 0;
    this.legacy.prompts.length = 0;
  }

  /** Tool calls with their output and their item, or a line past their output: complete. */
  private settleTools(): void {
    for (const [callId, c] of this.calls) {
      if (c.outputLine === undefined || (!c.itemDone && c.outputLine === this.lineNo)) continue;
      const ev = this.toolEvent(callId, c);
      if (ev) this.done.push(ev);
      this.calls.delete(callId);
    }
  }

  private at(time: bigint, key: string) {
    return storeObservation({ time, sessionId: this.sessionId, version: this.version, key });
  }

  private modelCall(time: bigint, key: string, usage: Usage, responseId?: string): NormalizedEvent {
    const u = usage as Attributes;
    const reported: TokenUsage = {
      input: tokenAttr(u, 'input_tokens'), output: tokenAttr(u, 'output_tokens'),
      cacheRead: tokenAttr(u, 'cached_input_tokens'), cacheWrite: tokenAttr(u, 'cache_write_input_tokens'),
      reasoning: tokenAttr(u, 'reasoning_output_tokens'),
    };
    return mergeable(modelCallEvent(AGENT, this.at(time, key), {
      ...(this.model ? { model: this.model } : {}), ...(this.provider ? { provider: this.provider } : {}), ...(responseId ? { responseId } : {}), usage: reported,
    }));
  }

  private usageRecord(p: Record<string, unknown>, time: bigint): void {
    const usage = asObject(p.usage);
    if (!usage) return;
    this.legacy.models.length = 0; // token_count calls read before the first record give way to the records
    this.usageRecords = true;
    const responseId = asText(p.response_id);
    this.done.push(this.modelCall(time, `response:${responseId ?? String(time)}`, usage, responseId));
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
        this.legacy.models.push(this.modelCall(time, `token_count:${total}`, last));
        break;
      }
      case 'item_completed':
        this.item(asObject(p.item), time);
        break;
      case 'user_message': {
        const text = asText(p.message);
        if (text && !this.promptItems) this.legacy.prompts.push(mergeable(promptEvent(AGENT, this.at(time, `user_message:${time}`), text)));
        break;
      }
    }
  }

  private item(item: Record<string, unknown> | undefined, time: bigint): void {
    if (item?.type === 'UserMessage') {
      const text = (Array.isArray(item.content) ? item.content : []).flatMap((c: { type?: unknown; text?: unknown }) => (c?.type === 'text' && typeof c.text === 'string' ? [c.text] : [])).join('\n');
      if (!text) return;
      this.promptItems = true;
      this.legacy.prompts.length = 0; // the items are the prompts: the older event of the same turn gives way
      this.done.push(mergeable(promptEvent(AGENT, this.at(time, `prompt:${asText(item.id) ?? time}`), text)));
    } else if (item?.type === 'CommandExecution') {
      const call = this.calls.get(asText(item.id) ?? '');
      if (!call) return;
      if (typeof item.exit_code === 'number') call.exitCode = item.exit_code;
      if (item.status === 'failed') call.failed = true;
      const d = asObject(item.duration);
      if (typeof d?.secs === 'number' && typeof d.nanos === 'number') call.durationMs = d.secs * 1000 + Math.round(d.nanos / 1e6);
      call.itemDone = true;
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
      call.outputLine = this.lineNo;
    }
  }

  private toolEvent(callId: string, c: Call): NormalizedEvent | undefined {
    const exit = c.exitCode ?? exitCodeIn(c.output);
    const ev = toolCallEvent(AGENT, this.at(c.time, `tool:${callId}`), {
      name: c.name, callId, args: c.args,
      ...(c.output !== undefined || c.failed ? { success: !c.failed } : {}),
      ...(exit !== undefined ? { exitCode: exit } : {}),
      ...(c.durationMs !== undefined ? { durationMs: c.durationMs } : {}),
    });
    return withResult(ev, c.output);
  }

  end(): NormalizedEvent[] {
    // A call without its output (interrupted, or the session still running): recorded as far as it is known.
    for (const [callId, c] of this.calls) {
      const ev = this.toolEvent(callId, c);
      if (ev) this.done.push(ev);
    }
    this.calls.clear();
    this.settleLegacy();
    return this.settled();
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
  reader: (_file, context) => new CodexRollout(context),
};
