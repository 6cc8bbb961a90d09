import type { HarnessEvent, StreamEvent } from '../../model/harness-event';
import type { ToolUse } from '../../taxonomy/tool-use';
import { asString } from '../attributes';
import type { StreamAdapter } from '../stream-adapter';
import { agentStreamRecord } from '../stream-records';
import { isObj, num, StreamState, type Obj, type StreamStateOptions } from '../stream-state';
import { classifyCopilotTool, copilotToolUse } from './tools';

/**
 * Copilot's ephemeral session events: streaming repeats of what its lasting events say (text and
 * argument deltas, shell output, model-call progress) and session setup. Consumed; an ephemeral
 * type not listed here is still `unknown`.
 */
const EPHEMERAL = new Set([
  'session.skills_loaded', 'session.mcp_servers_loaded', 'session.tools_updated', 'session.info', 'session.background_tasks_changed',
  'model.call_start', 'model.call_finished', 'model.call_final_result', 'assistant.message_start', 'assistant.message_delta',
  'assistant.reasoning_delta', 'assistant.tool_call_delta', 'assistant.idle', 'tool.shell_output', 'tool.execution_partial_result',
]);
/** Lasting events that frame what the others say: no event of their own. */
const FRAMING = new Set(['user.message', 'assistant.turn_start', 'assistant.turn_end', 'tool.execution_start']);
/** Events held at most until `result` names the session (beyond it they go out without it). */
const MAX_HELD = 10_000;

/**
 * `copilot -p … --output-format json`: session events `{type, data, id, timestamp, ephemeral?}`.
 * assistant.message carries the text and the tool requests; tool.execution_complete the result
 * (`success`, and a shell's exit code: the failed `ls` is success true with exit code 2, a failure
 * here as in Codex's stream). No token usage anywhere in it. The session id comes only on the last
 * line (`result`), so the events are held until it (bounded) and then released with it.
 */
export class CopilotStreamParser extends StreamState {
  private held: StreamEvent[] = [];

  constructor(options: StreamStateOptions = {}) {
    super(options);
  }

  protected toolUse(name: string, args: unknown): ToolUse {
    return copilotToolUse(name, args);
  }

  override line(line: Parameters<StreamState['line']>[0]): StreamEvent[] {
    return this.hold(super.line(line));
  }

  override end(): StreamEvent[] {
    return this.release(super.end());
  }

  protected record(rec: Obj): StreamEvent[] {
    const at = this.ownTime(rec.timestamp) ?? this.timeNow();
    const type = asString(rec.type) ?? '';
    const data = isObj(rec.data) ? rec.data : {};
    if (rec.ephemeral === true && EPHEMERAL.has(type)) return [];
    if (FRAMING.has(type)) return [];
    switch (type) {
      case 'assistant.message':
        return this.message(data, at);
      case 'tool.execution_complete': {
        const exitCode = isObj(data.shellExecution) ? num(data.shellExecution.exitCode) : undefined;
        const ok = data.success === true && (exitCode === undefined || exitCode === 0);
        return this.resolve(asString(data.toolCallId), { ok, ...(exitCode !== undefined ? { exitCode } : {}) }, rec, at);
      }
      case 'session.error':
        return this.error(asString(data.message) ?? 'session error', at, asString(data.errorType));
      case 'result': {
        this.streamSessionId ??= asString(rec.sessionId);
        const out = this.runBoundary();
        if (num(rec.exitCode) !== undefined && rec.exitCode !== 0) out.push(...this.error(`copilot exited with ${String(rec.exitCode)}`, at, 'exit_code'));
        return out;
      }
      default:
        return this.unknown(rec, at);
    }
  }

  private message(data: Obj, at: string): StreamEvent[] {
    const id = asString(data.messageId) ?? '';
    this.model = asString(data.model) ?? this.model;
    const out: StreamEvent[] = [];
    if (typeof data.reasoningText === 'string' && data.reasoningText !== '') out.push(...this.accumulate('reasoning', id, data.reasoningText, at));
    if (typeof data.content === 'string' && data.content !== '') out.push(...this.accumulate('agent', id, data.content, at));
    for (const t of Array.isArray(data.toolRequests) ? data.toolRequests : []) {
      if (isObj(t) && typeof t.toolCallId === 'string' && typeof t.name === 'string') out.push(...this.request(t.toolCallId, t.name, t.arguments, at, id));
      else out.push(...this.unknown(t, at));
    }
    return out;
  }

  /** Events wait for the session id (it comes last); once it is known, or too many wait, they go out. */
  private hold(events: StreamEvent[]): StreamEvent[] {
    this.held.push(...events);
    return this.options.sessionId !== undefined || this.streamSessionId !== undefined || this.held.length > MAX_HELD ? this.release([]) : [];
  }

  private release(more: StreamEvent[]): StreamEvent[] {
    const out = [...this.held, ...more];
    this.held = [];
    const sessionId = this.options.sessionId ?? this.streamSessionId;
    if (sessionId === undefined) return out;
    // the contract's field order: timestamp, sessionId, then the type's fields
    return out.map((ev) => {
      if (!ev.harness) return ev;
      const { timestamp, sessionId: _none, ...fields } = ev.harness;
      return { ...ev, harness: { timestamp, sessionId, ...fields } as HarnessEvent };
    });
  }
}

export const copilotCliStream: StreamAdapter = {
  platform: 'copilot-cli',
  mode: { program: 'copilot', userPart: '-p …', flags: [{ name: '--output-format', value: 'json' }] },
  example: 'copilot -p "fix the tests" --allow-all --output-format json | beacon stream copilot-cli --tee',
  createParser: (o) => new CopilotStreamParser(o),
  record: (ev, ctx) => agentStreamRecord(ev, ctx, { harness: 'copilot-cli', classify: classifyCopilotTool }),
};
