import type { StreamEvent } from '../../model/harness-event';
import { disjointUsage, type UsageSemantics } from '../../model/usage';
import type { ToolUse } from '../../taxonomy/tool-use';
import { asString } from '../attributes';
import type { StreamAdapter } from '../stream-adapter';
import { agentStreamRecord } from '../stream-records';
import { isObj, num, StreamState, type Obj } from '../stream-state';
import { classifyOpencodeTool, opencodeToolUse } from './tools';

/** opencode's step tokens (stream and store alike): input WITHOUT the cache, output WITHOUT reasoning (the facts' capture: 1667 = 2345 − 678, 44 = 57 − 13). */
export const OPENCODE_STREAM_USAGE: UsageSemantics = { inputIncludesCache: false, outputIncludesReasoning: false };

/**
 * `opencode run --format json`: `{type, timestamp (epoch ms), sessionID, part}` lines — step_start,
 * text, reasoning, tool_use (once, finished: a failed command is `completed` with
 * `metadata.exit` 2, a failure here), step_finish (one model call's tokens), error. Each
 * step_finish is one call's usage; its ids are opencode's own, not the span ids its OTLP export
 * keys model calls by, so it is recorded as the stream's report of that call, counted only for a
 * session whose calls did not arrive one by one (its title side call is in no stream line).
 */
export class OpencodeStreamParser extends StreamState {
  protected toolUse(name: string, args: unknown): ToolUse {
    return opencodeToolUse(name, args);
  }

  protected record(rec: Obj): StreamEvent[] {
    const at = this.ownTime(rec.timestamp) ?? this.timeNow();
    this.streamSessionId ??= asString(rec.sessionID);
    const part = isObj(rec.part) ? rec.part : {};
    const messageId = asString(part.messageID) ?? '';
    switch (rec.type) {
      case 'step_start':
        return [];
      case 'text':
      case 'reasoning':
        if (typeof part.text !== 'string') return this.unknown(rec, at);
        return this.accumulate(rec.type === 'text' ? 'agent' : 'reasoning', messageId, part.text, at);
      case 'tool_use': {
        const state = isObj(part.state) ? part.state : {};
        const callId = asString(part.callID) ?? asString(part.id);
        const name = asString(part.tool);
        if (!callId || !name) return this.unknown(rec, at);
        const meta = isObj(state.metadata) ? state.metadata : {};
        const exitCode = num(meta.exit);
        const ok = state.status === 'completed' && (exitCode === undefined || exitCode === 0);
        return this.finished(callId, name, state.input, { ok, ...(exitCode !== undefined ? { exitCode } : {}) }, at, messageId);
      }
      case 'step_finish':
        return this.stepFinish(part, at);
      case 'error': {
        const e = isObj(rec.error) ? rec.error : {};
        const data = isObj(e.data) ? e.data : {};
        return this.error(asString(data.message) ?? asString(e.name) ?? 'error', at, asString(e.name));
      }
      default:
        return this.unknown(rec, at);
    }
  }

  private stepFinish(part: Obj, at: string): StreamEvent[] {
    const out = this.flush();
    const t = isObj(part.tokens) ? part.tokens : undefined;
    const cache = t && isObj(t.cache) ? t.cache : {};
    const cost = num(part.cost);
    const usage = t && disjointUsage({ input: num(t.input), output: num(t.output), reasoning: num(t.reasoning), cacheRead: num(cache.read), cacheWrite: num(cache.write) || undefined, costUsd: cost || undefined }, OPENCODE_STREAM_USAGE);
    if (usage) out.push(this.usage({ scope: 'call', usage, reported: { step: asString(part.id), tokens: t, ...(cost !== undefined ? { cost } : {}) }, callId: asString(part.id) }, at));
    return out;
  }
}

export const opencodeStream: StreamAdapter = {
  platform: 'opencode',
  mode: { program: 'opencode', subcommand: { name: 'run' }, flags: [{ name: '--format', value: 'json' }] },
  example: 'opencode run --format json "fix the tests" | beacon stream opencode --tee',
  createParser: (o) => new OpencodeStreamParser(o),
  record: (ev, ctx) => agentStreamRecord(ev, ctx, { harness: 'opencode', classify: classifyOpencodeTool }),
};
