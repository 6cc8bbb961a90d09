import type { StreamEvent } from '../../model/harness-event';
import { disjointUsage, type UsageSemantics } from '../../model/usage';
import type { ToolUse } from '../../taxonomy/tool-use';
import { asString } from '../attributes';
import { classifyGeminiStyleTool, geminiStyleToolUse } from '../gemini-tools';
import type { StreamAdapter } from '../stream-adapter';
import { agentStreamRecord } from '../stream-records';
import { isObj, num, StreamState, type Obj } from '../stream-state';

/** Gemini's stream totals: input includes cached tokens, output excludes thoughts (implied by total − input − output). */
const GEMINI_STREAM_USAGE: UsageSemantics = { inputIncludesCache: true, outputIncludesReasoning: false };

/**
 * `gemini -p … --output-format stream-json`: init (session id, model), message (user: the prompt;
 * assistant: text deltas), tool_use / tool_result (correlated by tool_id, `<tool>__<call id>`),
 * error, and result (the run's stats). Assistant text has no message id: a tool event or the
 * result ends a message, so the deltas between two of them are one agent message. A failed command
 * is `status: success` here, with no exit code: it shows as a success, as Gemini says it.
 */
export class GeminiStreamParser extends StreamState {
  /** which assistant message the deltas belong to: the next one begins after a tool event */
  private message = 0;
  private runs = 0;

  protected toolUse(name: string, args: unknown): ToolUse {
    return geminiStyleToolUse(name, args);
  }

  protected record(rec: Obj): StreamEvent[] {
    const at = this.ownTime(rec.timestamp) ?? this.timeNow();
    switch (rec.type) {
      case 'init':
        this.streamSessionId ??= asString(rec.session_id);
        this.model = asString(rec.model) ?? this.model;
        return [];
      case 'message':
        if (rec.role === 'user') return [];
        if (rec.role !== 'assistant' || typeof rec.content !== 'string') return this.unknown(rec, at);
        return this.accumulate('agent', `message-${this.message}`, rec.content, at, rec.delta === true);
      case 'tool_use': {
        const id = asString(rec.tool_id);
        const name = asString(rec.tool_name);
        if (!id || !name) return this.unknown(rec, at);
        this.message++;
        return this.request(id, name, rec.parameters, at);
      }
      case 'tool_result': {
        this.message++;
        const ok = rec.status === 'success';
        return this.resolve(asString(rec.tool_id), { ok }, rec, at);
      }
      case 'error':
        return this.error(asString(rec.message) ?? 'error', at, asString(rec.severity));
      case 'result':
        return this.result(rec, at);
      default:
        return this.unknown(rec, at);
    }
  }

  private result(rec: Obj, at: string): StreamEvent[] {
    const out = this.runBoundary();
    this.message++;
    if (rec.status !== undefined && rec.status !== 'success') {
      const e = isObj(rec.error) ? rec.error : {};
      out.push(...this.error(asString(e.message) ?? `run ${String(rec.status)}`, at, asString(e.type)));
    }
    const s = isObj(rec.stats) ? rec.stats : undefined;
    if (!s) return out;
    const models = isObj(s.models) ? Object.keys(s.models) : [];
    if (models.length === 1) this.model = models[0];
    const input = num(s.input_tokens);
    const output = num(s.output_tokens);
    const total = num(s.total_tokens);
    // thoughts are only implied: what the total holds beyond input and output
    const thoughts = total !== undefined && input !== undefined && output !== undefined && total - input - output >= 0 ? total - input - output : undefined;
    const usage = disjointUsage({ input, output, cacheRead: num(s.cached), reasoning: thoughts }, GEMINI_STREAM_USAGE);
    if (usage) out.push(this.usage({ scope: 'run', usage, reported: { run: ++this.runs, stats: s } }, at));
    return out;
  }
}

export const geminiCliStream: StreamAdapter = {
  platform: 'gemini-cli',
  mode: { program: 'gemini', userPart: '-p …', flags: [{ name: '--output-format', aliases: ['-o'], value: 'stream-json' }] },
  example: 'gemini --yolo -p "fix the tests" --output-format stream-json | beacon stream gemini-cli --tee',
  createParser: (o) => new GeminiStreamParser(o),
  record: (ev, ctx) => agentStreamRecord(ev, ctx, { harness: 'gemini-cli', classify: classifyGeminiStyleTool }),
};
