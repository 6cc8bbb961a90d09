import { cutDeepNesting } from '../../model/nesting';
import type { HarnessEvent, StreamDetail, StreamEvent } from '../../model/harness-event';
import { disjointUsage } from '../../model/usage';
import { GOOSE_USAGE } from './usage';
import type { Line } from '../../stream/lines';
import type { StreamParser } from '../stream-adapter';
import { harnessToolEvent } from './stream-tools';
import { asString } from '../attributes';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

export interface ParserOptions {
  sessionId?: string;
  /** pending agent/reasoning text kept at most (a runaway message cannot exhaust memory) */
  maxPendingChars?: number;
  /** tool requests awaiting their response at most; the oldest is reported unanswered beyond it */
  maxOpenTools?: number;
  now?: () => Date;
}

interface Pending {
  kind: 'agent' | 'reasoning';
  id: string;
  text: string;
  timestamp: string;
  inference: Inference;
}

interface OpenTool {
  callId: string;
  name: string;
  arguments: unknown;
  timestamp: string;
  messageId: string;
  inference: Inference;
}

interface Inference {
  model?: string;
  provider?: string;
}

/** What goose's startup banner said (printed to stdout before the JSON unless `goose run -q`). */
export interface GooseBanner {
  sessionId?: string;
  workingDirectory?: string;
}

/** ANSI SGR sequences: goose styles its banner when it thinks stdout is a terminal. */
const SGR = /\u001b\[[0-9;]*m/g;
const BANNER_START = /^(starting|resuming) session \|/;
const BANNER_FIELD = /^\s+(session id|working directory):\s+(.+?)\s*$/;

/**
 * `goose run --output-format stream-json` → normalized harness events, one input line at a time.
 * Text and thinking arrive as cumulative-or-delta fragments per message id: a fragment restating the
 * pending text replaces it, any other is appended; the pending text is flushed when the kind or id
 * changes, at a tool event, at `complete`, at `error` and at the end.
 */
export class GooseStreamParser implements StreamParser {
  private pending?: Pending;
  /** goose's startup banner: its session id and working directory, for the run's records */
  readonly banner: GooseBanner = {};
  private sawRecord = false;
  /** goose's time of the last message, for events that carry none */
  private lastTime?: string;
  private readonly open = new Map<string, OpenTool>();
  private readonly options: Required<Omit<ParserOptions, 'sessionId'>> & { sessionId?: string };

  constructor(options: ParserOptions = {}) {
    this.options = { maxPendingChars: 1024 * 1024, maxOpenTools: 10_000, now: () => new Date(), ...options };
  }

  /** The session id goose's banner printed (none with `goose run -q`): the stream seam's view of it. */
  get streamSessionId(): string | undefined {
    return this.banner.sessionId;
  }

  get workingDirectory(): string | undefined {
    return this.banner.workingDirectory;
  }

  line(line: Line | string): StreamEvent[] {
    const l = typeof line === 'string' ? { text: line, truncated: false, bytes: Buffer.byteLength(line) } : line;
    if (l.truncated) return [this.unknown({ truncated_line: l.text, bytes: l.bytes })];
    if (l.text.trim() === '') return [];
    let rec: unknown;
    try {
      rec = cutDeepNesting(JSON.parse(l.text) as unknown).value; // issue 22 item 14
    } catch {
      if (!this.sawRecord && this.bannerLine(l.text)) return [];
      return [this.unknown(l.text)];
    }
    this.sawRecord = true;
    if (!isObj(rec)) return [this.unknown(rec)];
    switch (rec.type) {
      case 'message':
        return isObj(rec.message) ? this.message(rec.message) : [this.unknown(rec)];
      case 'notification':
        // The spec: a notification is surfaced verbatim as an unknown harness event, never parsed from
        // prose. An MCP server's log or progress notification (its known shapes) is not an agent
        // action, so it gets no Beacon record; any other shape is recorded as agent.unknown.
        return [this.emit({ type: 'unknown', raw: rec }, undefined, isNotification(rec) ? { unrecorded: true } : {})];
      case 'error':
        return [...this.flush(), this.emit({ type: 'error', message: asString(rec.error) ?? JSON.stringify(rec.error ?? null) })];
      case 'complete': {
        // session-cumulative, in goose's semantics (input includes both cache buckets): stored disjoint
        const reported = { total_tokens: num(rec.total_tokens), input_tokens: num(rec.input_tokens), output_tokens: num(rec.output_tokens), cache_read_input_tokens: num(rec.cache_read_input_tokens), cache_write_input_tokens: num(rec.cache_write_input_tokens), cost_usd: num(rec.cost_usd) };
        const usage = disjointUsage({ input: reported.input_tokens, output: reported.output_tokens, cacheRead: reported.cache_read_input_tokens, cacheWrite: reported.cache_write_input_tokens, costUsd: reported.cost_usd }, GOOSE_USAGE);
        return [...this.flush(), ...this.unanswered(), { harness: null, detail: { usageReport: { scope: 'session', usage: usage ?? {}, reported }, ...this.lastInference } }];
      }
      default:
        return [this.unknown(rec)];
    }
  }

  /**
   * A line of goose's startup banner (`starting session | provider: … model: …`, then the session id
   * and working directory, indented): consumed, its session id and directory kept. Only before the
   * first JSON record, so an agent's own output can never pose as one.
   */
  private bannerLine(text: string): boolean {
    const t = text.replace(SGR, '');
    if (BANNER_START.test(t)) return true;
    const m = BANNER_FIELD.exec(t);
    if (!m) return false;
    if (m[1] === 'session id') this.banner.sessionId = m[2];
    else this.banner.workingDirectory = m[2];
    return true;
  }

  /** End of stream (with or without `complete`): pending text and unanswered requests are reported. */
  end(): StreamEvent[] {
    return [...this.flush(), ...this.unanswered()];
  }

  private lastInference: Inference = {};

  private message(m: Obj): StreamEvent[] {
    const out: StreamEvent[] = [];
    const id = asString(m.id) ?? '';
    const role = asString(m.role);
    const created = num(m.created);
    // Any number may arrive here (`1e17` is past the end of time for Date): only a representable time is used.
    const at = created !== undefined ? new Date(created * 1000) : undefined;
    const valid = at && !Number.isNaN(at.getTime()) ? at.toISOString() : undefined;
    if (valid) this.lastTime = valid;
    const timestamp = valid ?? this.options.now().toISOString();
    const inf = isObj(m.metadata) && isObj(m.metadata.inference) ? m.metadata.inference : undefined;
    if (inf) this.lastInference = { model: asString(inf.resolvedModel) ?? asString(inf.requestedModel), provider: asString(inf.provider) };
    const content = Array.isArray(m.content) ? m.content : [];
    for (const block of content) {
      if (!isObj(block)) {
        out.push(this.unknown(block));
        continue;
      }
      switch (block.type) {
        case 'text':
          if (role === 'assistant' && typeof block.text === 'string') out.push(...this.accumulate('agent', id, block.text, timestamp));
          break; // user text is the echoed prompt
        case 'thinking':
          if (role === 'assistant' && typeof block.thinking === 'string') out.push(...this.accumulate('reasoning', id, block.thinking, timestamp));
          break;
        case 'redactedThinking':
        case 'image':
          break; // no readable text (an image is base64 data, never stored)
        case 'systemNotification':
          // goose's own status lines (thinking, progress, inline); running out of credits ends the run
          if (block.notificationType === 'creditsExhausted') out.push(...this.flush(), this.emit({ type: 'error', message: asString(block.msg) ?? '', code: 'credits_exhausted' }, timestamp));
          else if (typeof block.notificationType !== 'string') out.push(this.unknown(block, timestamp));
          break;
        case 'toolConfirmationRequest':
          out.push(...this.approval(block, timestamp));
          break;
        case 'actionRequired':
          out.push(...this.actionRequired(block, timestamp));
          break;
        case 'frontendToolRequest': // a tool the UI runs: the same shape, answered by a toolResponse
        case 'toolRequest':
          out.push(...this.flush(), ...this.toolRequest(block, id, timestamp));
          break;
        case 'toolResponse':
          out.push(...this.flush(), ...this.toolResponse(block, timestamp));
          break;
        case 'error':
          out.push(...this.flush(), this.emit({ type: 'error', message: asString(block.message) ?? '', ...(asString(block.kind) ? { code: asString(block.kind) } : {}) }, timestamp));
          break;
        default:
          out.push(this.unknown(block, timestamp));
      }
    }
    return out;
  }

  private accumulate(kind: Pending['kind'], id: string, text: string, timestamp: string): StreamEvent[] {
    const p = this.pending;
    if (p && p.kind === kind && p.id === id) {
      // A cumulative record restates the pending text; anything else is a delta.
      p.text = text.startsWith(p.text) ? text : p.text + text;
      if (p.text.length > this.options.maxPendingChars) p.text = p.text.slice(0, this.options.maxPendingChars);
      return [];
    }
    const out = this.flush();
    this.pending = { kind, id, text: text.slice(0, this.options.maxPendingChars), timestamp, inference: this.lastInference };
    return out;
  }

  private flush(): StreamEvent[] {
    const p = this.pending;
    this.pending = undefined;
    if (!p || p.text === '') return [];
    return [this.emit({ type: p.kind, message: p.text }, p.timestamp, { messageId: p.id, ...p.inference })];
  }

  private toolRequest(block: Obj, messageId: string, timestamp: string): StreamEvent[] {
    const callId = asString(block.id);
    const call = block.toolCall;
    const value = isObj(call) && call.status === 'success' && isObj(call.value) ? call.value : undefined;
    const name = value ? asString(value.name) : undefined;
    if (!callId || !value || !name) return [this.unknown(block, timestamp)]; // unparseable request
    const out: StreamEvent[] = [];
    if (this.open.size >= this.options.maxOpenTools) {
      const [oldest] = this.open.values();
      this.open.delete(oldest!.callId);
      out.push(...this.toolEvent(oldest!, undefined));
    }
    this.open.set(callId, { callId, name, arguments: value.arguments ?? {}, timestamp, messageId, inference: this.lastInference });
    return out;
  }

  private toolResponse(block: Obj, timestamp: string): StreamEvent[] {
    const callId = asString(block.id);
    const req = callId ? this.open.get(callId) : undefined;
    if (!req) return [this.unknown(block, timestamp)];
    this.open.delete(req.callId);
    const result = isObj(block.toolResult) ? block.toolResult : {};
    const value = isObj(result.value) ? result.value : {};
    // status is the transport only: a failed edit or a non-zero shell exit is status success + isError.
    const ok = result.status === 'success' && value.isError !== true;
    const sc = isObj(value.structuredContent) ? value.structuredContent : {};
    const exitCode = typeof sc.exit_code === 'number' && Number.isInteger(sc.exit_code) ? sc.exit_code : undefined;
    return this.toolEvent(req, { ok, exitCode });
  }

  private toolEvent(req: OpenTool, outcome: { ok: boolean; exitCode?: number } | undefined): StreamEvent[] {
    const mapped = harnessToolEvent(req.name, req.arguments);
    if (mapped === 'consumed') return [];
    const detail: StreamDetail = {
      messageId: req.messageId,
      ...req.inference,
      tool: { callId: req.callId, name: req.name, arguments: req.arguments, answered: outcome !== undefined, failed: outcome ? !outcome.ok : false, ...(outcome?.exitCode !== undefined ? { exitCode: outcome.exitCode } : {}) },
    };
    if (mapped === 'unknown') {
      return [this.emit({ type: 'unknown', raw: { toolRequest: { id: req.callId, name: req.name, arguments: req.arguments }, ...(outcome ? { isSuccess: outcome.ok } : {}) } }, req.timestamp, detail)];
    }
    const ev = { ...mapped } as Exclude<HarnessEvent, { type: 'agent' | 'reasoning' | 'error' | 'unknown' }>;
    if (ev.type === 'command' && outcome?.exitCode !== undefined) ev.exitCode = outcome.exitCode;
    if (outcome) ev.isSuccess = outcome.ok;
    return [this.emit(ev, req.timestamp, detail)];
  }

  /**
   * goose asks the user to confirm a tool call (`toolConfirmationRequest`, or `actionRequired` with
   * `actionType: toolConfirmation`): an approval request, recorded but not a harness event.
   */
  private approval(block: Obj, timestamp: string): StreamEvent[] {
    const callId = asString(block.id);
    if (!callId) return [this.unknown(block, timestamp)];
    const toolName = asString(block.toolName);
    const prompt = asString(block.prompt);
    return [{ harness: null, detail: { timestamp, approval: { callId, ...(toolName ? { toolName } : {}), ...(block.arguments !== undefined ? { arguments: block.arguments } : {}), ...(prompt ? { prompt } : {}) } } }];
  }

  /** `actionRequired`: a confirmation request or its answer; MCP elicitations (a question to the user) are consumed. */
  private actionRequired(block: Obj, timestamp: string): StreamEvent[] {
    const data = isObj(block.data) ? block.data : undefined;
    switch (data?.actionType) {
      case 'toolConfirmation':
        return this.approval(data, timestamp);
      case 'toolConfirmationResponse': {
        const callId = asString(data.id);
        const decision = asString(data.permission);
        if (!callId || !decision) return [this.unknown(block, timestamp)];
        return [{ harness: null, detail: { timestamp, approval: { callId, decision } } }];
      }
      case 'elicitation':
      case 'elicitationResponse':
        return [];
      default:
        return [this.unknown(block, timestamp)];
    }
  }

  private unanswered(): StreamEvent[] {
    const out: StreamEvent[] = [];
    for (const req of this.open.values()) out.push(...this.toolEvent(req, undefined));
    this.open.clear();
    return out;
  }

  private unknown(raw: unknown, timestamp?: string): StreamEvent {
    return this.emit({ type: 'unknown', raw }, timestamp);
  }

  /**
   * An event with no time of its own (an unreadable line, an error, a notification) is stamped with the
   * run's own time line — goose's `created` of the last message — not the wall clock: a replayed or
   * delayed stream would otherwise stretch a session over the hours between.
   */
  private emit(fields: DistributiveOmit<HarnessEvent, 'timestamp' | 'sessionId'>, timestamp?: string, detail: StreamDetail = {}): StreamEvent {
    const harness = {
      timestamp: timestamp ?? this.lastTime ?? this.options.now().toISOString(),
      ...(this.options.sessionId !== undefined ? { sessionId: this.options.sessionId } : {}),
      ...fields,
    } as HarnessEvent;
    return { harness, detail };
  }
}

/** `{"type":"notification","extension_id","log":{"message"}}` or `…,"progress":{"progress","total","message"}}`. */
function isNotification(rec: Obj): boolean {
  return typeof rec.extension_id === 'string' && (isObj(rec.log) || isObj(rec.progress));
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
