import { cutDeepNesting } from '../model/nesting';
import type { HarnessEvent, StreamDetail, StreamEvent, StreamUsageReport } from '../model/harness-event';
import type { ToolUse } from '../taxonomy/tool-use';
import type { Line } from '../stream/lines';
import type { StreamParser } from './stream-adapter';
import { harnessToolFields } from './stream-tools';

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
export const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type HarnessFields = DistributiveOmit<HarnessEvent, 'timestamp' | 'sessionId'>;

export interface StreamStateOptions {
  /** --session: tags every event instead of the stream's own session id */
  sessionId?: string;
  /** pending agent/reasoning text kept at most (a runaway message cannot exhaust memory) */
  maxPendingChars?: number;
  /** tool requests awaiting their result at most; the oldest is reported unanswered beyond it */
  maxOpenTools?: number;
  now?: () => Date;
}

/** The model (and its provider, where the stream names one: goose's) the stream last named. */
interface Inference {
  model?: string;
  provider?: string;
}

interface Pending extends Inference {
  kind: 'agent' | 'reasoning';
  id: string;
  text: string;
  timestamp: string;
}

interface OpenTool extends Inference {
  callId: string;
  name: string;
  arguments: unknown;
  /** the request's own time; none: the event takes its result's (Claude's assistant lines carry no time) */
  timestamp?: string;
  messageId?: string;
}

export interface ToolOutcome {
  ok: boolean;
  exitCode?: number;
}

/**
 * The specification's stream rules, once for every agent whose stream is not goose's: text and
 * reasoning accumulated per message id and flushed on a change of kind or id (or at a tool event,
 * an error, the run boundary and the end); a tool request kept by its call id until its result
 * resolves it, success from the result; anything unrecognised an `unknown` event, never dropped.
 * An agent's parser reads its own record shapes (`record`) and calls these; goose's
 * (goose/stream-json.ts) keeps the specification's own variants by overriding `unknown`,
 * `notJson`, `parsed` and `eventSessionId`.
 */
export abstract class StreamState implements StreamParser {
  streamSessionId?: string;
  workingDirectory?: string;
  /** the model the stream last named */
  protected model?: string;
  /** the provider the stream last named (goose's inference metadata) */
  protected provider?: string;
  /** the last time the stream gave (for events that carry none) */
  protected lastTime?: string;
  private pending?: Pending;
  private readonly open = new Map<string, OpenTool>();
  protected readonly options: Required<Omit<StreamStateOptions, 'sessionId'>> & { sessionId?: string };

  constructor(options: StreamStateOptions = {}) {
    this.options = { maxPendingChars: 1024 * 1024, maxOpenTools: 10_000, now: () => new Date(), ...options };
  }

  /** One parsed record (a JSON object) of the agent's stream. */
  protected abstract record(rec: Obj): StreamEvent[];
  /** What the agent's tool does, from its own tool table. */
  protected abstract toolUse(name: string, args: unknown): ToolUse;

  line(line: Line | string): StreamEvent[] {
    const l = typeof line === 'string' ? { text: line, truncated: false, bytes: Buffer.byteLength(line) } : line;
    if (l.truncated) return this.unknown({ truncated_line: l.text, bytes: l.bytes });
    if (l.text.trim() === '') return [];
    let rec: unknown;
    try {
      rec = cutDeepNesting(JSON.parse(l.text) as unknown).value; // issue 22 item 14
    } catch {
      return this.notJson(l.text);
    }
    return this.parsed(rec);
  }

  /** A line that is not JSON. */
  protected notJson(text: string): StreamEvent[] {
    return this.unknown(text);
  }

  /** A line's JSON value: an object is a record of the agent's stream. */
  protected parsed(rec: unknown): StreamEvent[] {
    return isObj(rec) ? this.record(rec) : this.unknown(rec);
  }

  end(): StreamEvent[] {
    return this.runBoundary();
  }

  /** The run boundary (a result, a turn's end, the end of input): the pending text, then every request still unanswered. */
  protected runBoundary(): StreamEvent[] {
    return [...this.flush(), ...this.unanswered()];
  }

  /** A record's own time (ISO text or epoch ms), when it is a representable one; remembered for the events after it. */
  protected ownTime(v: unknown): string | undefined {
    const at = typeof v === 'string' || typeof v === 'number' ? new Date(v) : undefined;
    const valid = at && !Number.isNaN(at.getTime()) ? at.toISOString() : undefined;
    if (valid) this.lastTime = valid;
    return valid;
  }

  /**
   * The time of a record without one: the stream's last, else now. A stream read as the agent
   * writes it (a pipe) is stamped as it goes; a replayed one keeps the times it carries.
   */
  protected timeNow(): string {
    return this.lastTime ?? this.options.now().toISOString();
  }

  /** Text of one kind and message id: `delta` fragments are appended; otherwise one restating the pending text replaces it. */
  protected accumulate(kind: Pending['kind'], id: string, text: string, timestamp: string, delta = false): StreamEvent[] {
    const p = this.pending;
    if (p && p.kind === kind && p.id === id) {
      p.text = !delta && text.startsWith(p.text) ? text : p.text + text;
      if (p.text.length > this.options.maxPendingChars) p.text = p.text.slice(0, this.options.maxPendingChars);
      return [];
    }
    const out = this.flush();
    this.pending = { kind, id, text: text.slice(0, this.options.maxPendingChars), timestamp, ...this.inference() };
    return out;
  }

  protected flush(): StreamEvent[] {
    const p = this.pending;
    this.pending = undefined;
    if (!p || p.text === '') return [];
    return [this.emit({ type: p.kind, message: p.text }, p.timestamp, { messageId: p.id, ...inferenceDetail(p) })];
  }

  /** A tool request, kept until its result arrives (flushing the text before it). */
  protected request(callId: string, name: string, args: unknown, timestamp: string | undefined, messageId?: string): StreamEvent[] {
    const out = this.flush();
    if (this.open.size >= this.options.maxOpenTools) {
      const [oldest] = this.open.values();
      this.open.delete(oldest!.callId);
      out.push(...this.toolEvent(oldest!, undefined));
    }
    this.open.set(callId, { callId, name, arguments: args ?? {}, timestamp, messageId, ...this.inference() });
    return out;
  }

  /** A tool result: resolves its request by id; one without a request is `unknown` (raw: the result as the stream said it). */
  protected resolve(callId: string | undefined, outcome: ToolOutcome, raw: unknown, timestamp: string): StreamEvent[] {
    const req = callId !== undefined ? this.open.get(callId) : undefined;
    if (!req) return this.unknown(raw, timestamp);
    this.open.delete(req.callId);
    return [...this.flush(), ...this.toolEvent({ ...req, timestamp: req.timestamp ?? timestamp }, outcome)];
  }

  /** A tool call the stream reports once, finished (opencode's tool_use, Codex's file_change): request and result at once. */
  protected finished(callId: string, name: string, args: unknown, outcome: ToolOutcome, timestamp: string, messageId?: string): StreamEvent[] {
    const out = this.flush();
    out.push(...this.toolEvent({ callId, name, arguments: args ?? {}, timestamp, messageId, ...this.inference() }, outcome));
    return out;
  }

  private toolEvent(req: OpenTool, outcome: ToolOutcome | undefined): StreamEvent[] {
    const mapped = harnessToolFields(this.toolUse(req.name, req.arguments));
    if (mapped === 'consumed') return [];
    const detail: StreamDetail = {
      ...(req.messageId !== undefined ? { messageId: req.messageId } : {}),
      ...inferenceDetail(req),
      tool: { callId: req.callId, name: req.name, arguments: req.arguments, answered: outcome !== undefined, failed: outcome ? !outcome.ok : false, ...(outcome?.exitCode !== undefined ? { exitCode: outcome.exitCode } : {}) },
    };
    if (mapped === 'unknown') {
      return [this.emit({ type: 'unknown', raw: { toolRequest: { id: req.callId, name: req.name, arguments: req.arguments }, ...(outcome ? { isSuccess: outcome.ok } : {}) } }, req.timestamp, detail)];
    }
    const ev = { ...mapped } as Exclude<HarnessFields, { type: 'agent' | 'reasoning' | 'error' | 'unknown' }>;
    if (ev.type === 'command' && outcome?.exitCode !== undefined) ev.exitCode = outcome.exitCode;
    if (outcome) ev.isSuccess = outcome.ok;
    return [this.emit(ev, req.timestamp, detail)];
  }

  protected unanswered(): StreamEvent[] {
    const out: StreamEvent[] = [];
    for (const req of this.open.values()) out.push(...this.toolEvent(req, undefined));
    this.open.clear();
    return out;
  }

  /** The run boundary, or a model call's usage: no harness event of its own. */
  protected usage(report: StreamUsageReport, timestamp?: string): StreamEvent {
    return { harness: null, detail: { usageReport: report, timestamp: timestamp ?? this.lastTime ?? this.options.now().toISOString(), ...inferenceDetail(this.inference()) } };
  }

  protected error(message: string, timestamp?: string, code?: string): StreamEvent[] {
    return [...this.flush(), this.emit({ type: 'error', message, ...(code ? { code } : {}) }, timestamp)];
  }

  /** Activity of another kind: the pending text goes first, so the events keep the stream's order. */
  protected unknown(raw: unknown, timestamp?: string): StreamEvent[] {
    return [...this.flush(), this.emit({ type: 'unknown', raw }, timestamp)];
  }

  /** The session id harness events carry: --session, else the stream's own. */
  protected eventSessionId(): string | undefined {
    return this.options.sessionId ?? this.streamSessionId;
  }

  private inference(): Inference {
    return { model: this.model, provider: this.provider };
  }

  protected emit(fields: HarnessFields, timestamp?: string, detail: StreamDetail = {}): StreamEvent {
    const sessionId = this.eventSessionId();
    const harness = {
      timestamp: timestamp ?? this.lastTime ?? this.options.now().toISOString(),
      ...(sessionId !== undefined ? { sessionId } : {}),
      ...fields,
    } as HarnessEvent;
    return { harness, detail };
  }
}

/** The model and provider an event was made under, as its detail says them (none when unnamed). */
function inferenceDetail(i: Inference): Pick<StreamDetail, 'model' | 'provider'> {
  return { ...(i.model ? { model: i.model } : {}), ...(i.provider ? { provider: i.provider } : {}) };
}
