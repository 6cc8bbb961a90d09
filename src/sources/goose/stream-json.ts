import type { StreamEvent } from '../../model/harness-event';
import { disjointUsage } from '../../model/usage';
import type { ToolUse } from '../../taxonomy/tool-use';
import { isObj, num, StreamState, type Obj, type StreamStateOptions } from '../stream-state';
import { asString } from '../attributes';
import { gooseToolUse } from './tools';
import { GOOSE_USAGE } from './usage';

export type ParserOptions = StreamStateOptions;

/** ANSI SGR sequences: goose styles its banner when it thinks stdout is a terminal. */
const SGR = /\u001b\[[0-9;]*m/g;
const BANNER_START = /^(starting|resuming) session \|/;
const BANNER_FIELD = /^\s+(session id|working directory):\s+(.+?)\s*$/;
/**
 * goose 1.51's banner (goose-cli `session/output.rs`, `display_session_info`, after an empty line):
 * `__( O)>  ● new session · <provider> <model>`, `\____)  <id> · <cwd>`, `L L  goose is ready`,
 * each indented and spaced as the terminal art needs (seen: four spaces before the goose, four
 * after `\____)`). The id is one word; the directory is the rest of the line, whatever it holds.
 */
const GOOSE_151_HEAD = /^\s*__\( O\)>\s+● (new|resumed?) session\b/;
const GOOSE_151_ID = /^\s*\\____\)\s+(\S+) · (.+?)\s*$/;
const GOOSE_151_READY = /^\s*L L\s+goose is ready\s*$/;

/**
 * `goose run --output-format stream-json` → normalized harness events, one input line at a time,
 * by the specification's rules (the shared stream state's, with goose's variants below). Text and
 * thinking arrive as cumulative-or-delta fragments per message id: a fragment restating the
 * pending text replaces it, any other is appended; the pending text is flushed when the kind or id
 * changes, at a tool event, at `complete`, at `error` and at the end.
 */
export class GooseStreamParser extends StreamState {
  private sawRecord = false;

  /**
   * goose's variant of the rules: an unrecognised record or block, a notification, an unreadable
   * line is surfaced where it stands without flushing the pending text — it is no activity of a
   * message, so a message's fragments on both sides of it stay one span.
   */
  protected override unknown(raw: unknown, timestamp?: string): StreamEvent[] {
    return [this.emit({ type: 'unknown', raw }, timestamp)];
  }

  /** The spec: "harness events from a Goose run carry no session ID" (the banner's is for the records only). */
  protected override eventSessionId(): string | undefined {
    return this.options.sessionId;
  }

  protected override toolUse(name: string, args: unknown): ToolUse {
    return gooseToolUse(name, args);
  }

  protected override notJson(text: string): StreamEvent[] {
    if (!this.sawRecord && this.bannerLine(text)) return [];
    return this.unknown(text);
  }

  protected override parsed(rec: unknown): StreamEvent[] {
    this.sawRecord = true;
    return super.parsed(rec);
  }

  protected record(rec: Obj): StreamEvent[] {
    switch (rec.type) {
      case 'message':
        return isObj(rec.message) ? this.message(rec.message) : this.unknown(rec);
      case 'notification':
        // The spec: a notification is surfaced verbatim as an unknown harness event, never parsed from
        // prose. An MCP server's log or progress notification (its known shapes) is not an agent
        // action, so it gets no Beacon record; any other shape is recorded as agent.unknown.
        return [this.emit({ type: 'unknown', raw: rec }, undefined, isNotification(rec) ? { unrecorded: true } : {})];
      case 'error':
        return this.error(asString(rec.error) ?? JSON.stringify(rec.error ?? null));
      case 'complete': {
        // session-cumulative, in goose's semantics (input includes both cache buckets): stored disjoint
        const reported = { total_tokens: num(rec.total_tokens), input_tokens: num(rec.input_tokens), output_tokens: num(rec.output_tokens), cache_read_input_tokens: num(rec.cache_read_input_tokens), cache_write_input_tokens: num(rec.cache_write_input_tokens), cost_usd: num(rec.cost_usd) };
        const usage = disjointUsage({ input: reported.input_tokens, output: reported.output_tokens, cacheRead: reported.cache_read_input_tokens, cacheWrite: reported.cache_write_input_tokens, costUsd: reported.cost_usd }, GOOSE_USAGE);
        return [...this.runBoundary(), this.usage({ scope: 'session', usage: usage ?? {}, reported })];
      }
      default:
        return this.unknown(rec);
    }
  }

  /**
   * A line of goose's startup banner (before 1.51: `starting session | provider: … model: …`, then
   * the session id and working directory, indented; 1.51: the three lines of GOOSE_151_*): consumed,
   * its session id and directory kept. Only before the first JSON record, so an agent's own output
   * can never pose as one.
   */
  private bannerLine(text: string): boolean {
    const t = text.replace(SGR, '');
    if (BANNER_START.test(t) || GOOSE_151_HEAD.test(t) || GOOSE_151_READY.test(t)) return true;
    const id = GOOSE_151_ID.exec(t);
    if (id) {
      this.streamSessionId = id[1];
      this.workingDirectory = id[2];
      return true;
    }
    const m = BANNER_FIELD.exec(t);
    if (!m) return false;
    if (m[1] === 'session id') this.streamSessionId = m[2];
    else this.workingDirectory = m[2];
    return true;
  }

  private message(m: Obj): StreamEvent[] {
    const out: StreamEvent[] = [];
    const id = asString(m.id) ?? '';
    const role = asString(m.role);
    const created = num(m.created);
    // Any number may arrive here (`1e17` is past the end of time for Date): only a representable time is used.
    const timestamp = (created !== undefined ? this.ownTime(created * 1000) : undefined) ?? this.options.now().toISOString();
    const inf = isObj(m.metadata) && isObj(m.metadata.inference) ? m.metadata.inference : undefined;
    if (inf) {
      this.model = asString(inf.resolvedModel) ?? asString(inf.requestedModel);
      this.provider = asString(inf.provider);
    }
    const content = Array.isArray(m.content) ? m.content : [];
    for (const block of content) {
      if (!isObj(block)) {
        out.push(...this.unknown(block));
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
          if (block.notificationType === 'creditsExhausted') out.push(...this.error(asString(block.msg) ?? '', timestamp, 'credits_exhausted'));
          else if (typeof block.notificationType !== 'string') out.push(...this.unknown(block, timestamp));
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
          out.push(...this.error(asString(block.message) ?? '', timestamp, asString(block.kind)));
          break;
        default:
          out.push(...this.unknown(block, timestamp));
      }
    }
    return out;
  }

  private toolRequest(block: Obj, messageId: string, timestamp: string): StreamEvent[] {
    const callId = asString(block.id);
    const call = block.toolCall;
    const value = isObj(call) && call.status === 'success' && isObj(call.value) ? call.value : undefined;
    const name = value ? asString(value.name) : undefined;
    if (!callId || !value || !name) return this.unknown(block, timestamp); // unparseable request
    return this.request(callId, name, value.arguments, timestamp, messageId);
  }

  private toolResponse(block: Obj, timestamp: string): StreamEvent[] {
    const result = isObj(block.toolResult) ? block.toolResult : {};
    const value = isObj(result.value) ? result.value : {};
    // status is the transport only: a failed edit or a non-zero shell exit is status success + isError.
    const ok = result.status === 'success' && value.isError !== true;
    const sc = isObj(value.structuredContent) ? value.structuredContent : {};
    const exitCode = typeof sc.exit_code === 'number' && Number.isInteger(sc.exit_code) ? sc.exit_code : undefined;
    return this.resolve(asString(block.id), { ok, exitCode }, block, timestamp);
  }

  /**
   * goose asks the user to confirm a tool call (`toolConfirmationRequest`, or `actionRequired` with
   * `actionType: toolConfirmation`): an approval request, recorded but not a harness event.
   */
  private approval(block: Obj, timestamp: string): StreamEvent[] {
    const callId = asString(block.id);
    if (!callId) return this.unknown(block, timestamp);
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
        if (!callId || !decision) return this.unknown(block, timestamp);
        return [{ harness: null, detail: { timestamp, approval: { callId, decision } } }];
      }
      case 'elicitation':
      case 'elicitationResponse':
        return [];
      default:
        return this.unknown(block, timestamp);
    }
  }
}

/** `{"type":"notification","extension_id","log":{"message"}}` or `…,"progress":{"progress","total","message"}}`. */
function isNotification(rec: Obj): boolean {
  return typeof rec.extension_id === 'string' && (isObj(rec.log) || isObj(rec.progress));
}

