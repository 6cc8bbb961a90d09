import type { StreamEvent } from '../../model/harness-event';
import { disjointUsage } from '../../model/usage';
import type { ToolUse } from '../../taxonomy/tool-use';
import { asString } from '../attributes';
import type { StreamAdapter } from '../stream-adapter';
import { agentStreamRecord } from '../stream-records';
import { isObj, StreamState, type Obj } from '../stream-state';
import { resultText } from '../store-events';
import { classifyPiTool, piExitCode, piToolUse } from './tools';
import { PI_USAGE, piTokenUsage } from './usage';

/** Lines that carry nothing a final line does not say again (deltas, turn and agent boundaries). */
const PASSED_OVER = new Set(['agent_start', 'agent_end', 'turn_start', 'turn_end', 'message_start', 'message_update', 'tool_execution_update', 'queue_update', 'compaction_start', 'compaction_end', 'auto_retry_start', 'auto_retry_end']);

/**
 * `pi --mode json "…"` (docs/agents/pi-facts.md §5): a session header `{type:"session", id, cwd}`,
 * then Pi's session events. Read: an assistant `message_end` (its text, and its usage as one model
 * call keyed by the provider's response id, the id the extension and the store key it by),
 * `tool_execution_start` (the request) and `tool_execution_end` (`isError`; a failed command's
 * exit code only in the result text). The lines carry no time of their own; messages do (epoch ms).
 */
export class PiStreamParser extends StreamState {
  protected toolUse(name: string, args: unknown): ToolUse {
    return piToolUse(name, args);
  }

  protected record(rec: Obj): StreamEvent[] {
    const at = this.timeNow();
    if (typeof rec.type === 'string' && PASSED_OVER.has(rec.type)) return [];
    switch (rec.type) {
      case 'session':
        this.streamSessionId ??= asString(rec.id);
        this.workingDirectory ??= asString(rec.cwd);
        this.ownTime(rec.timestamp);
        return [];
      case 'message_end':
        return isObj(rec.message) ? this.message(rec.message) : this.unknown(rec, at);
      case 'tool_execution_start': {
        const callId = asString(rec.toolCallId);
        const name = asString(rec.toolName);
        return callId && name ? this.request(callId, name, rec.args, at) : this.unknown(rec, at);
      }
      case 'tool_execution_end': {
        const result = isObj(rec.result) ? rec.result : {};
        const exitCode = piExitCode(resultText(result.content));
        return this.resolve(asString(rec.toolCallId), { ok: rec.isError !== true, ...(exitCode !== undefined ? { exitCode } : {}) }, rec, at);
      }
      default:
        return this.unknown(rec, at);
    }
  }

  /** A user or tool-result message says nothing new (the prompt has no stream event; the result was its tool's end). */
  private message(m: Obj): StreamEvent[] {
    if (m.role !== 'assistant') return [];
    const at = this.ownTime(m.timestamp) ?? this.timeNow();
    this.model = asString(m.model) ?? this.model;
    this.provider = asString(m.provider) ?? this.provider;
    const responseId = asString(m.responseId);
    const out: StreamEvent[] = [];
    const text = (Array.isArray(m.content) ? m.content : []).filter((b): b is Obj => isObj(b) && b.type === 'text' && typeof b.text === 'string').map((b) => b.text as string).join('');
    if (text !== '') out.push(...this.accumulate('agent', responseId ?? String(m.timestamp), text, at), ...this.flush());
    const usage = disjointUsage(piTokenUsage(m.usage), PI_USAGE);
    if (usage) out.push(this.usage({ scope: 'call', usage, reported: { responseId, usage: m.usage }, ...(responseId ? { callId: responseId } : {}) }, at));
    return out;
  }
}

export const piStream: StreamAdapter = {
  platform: 'pi',
  mode: { program: 'pi', flags: [{ name: '--mode', value: 'json' }] },
  example: 'pi --mode json "fix the tests" | beacon stream pi --tee',
  createParser: (o) => new PiStreamParser(o),
  record: (ev, ctx) => agentStreamRecord(ev, ctx, { harness: 'pi', classify: classifyPiTool }),
};
