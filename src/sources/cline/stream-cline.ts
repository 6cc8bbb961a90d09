import type { StreamEvent } from '../../model/harness-event';
import { disjointUsage } from '../../model/usage';
import type { ToolUse } from '../../taxonomy/tool-use';
import { asString } from '../attributes';
import type { StreamAdapter } from '../stream-adapter';
import { agentStreamRecord } from '../stream-records';
import { isObj, num, StreamState, type Obj } from '../stream-state';
import { AGENT } from './index';
import { classifyClineTool, clineOutcome, clineToolUse } from './tools';

/** Lines that frame what the others say (its hooks' firing, an iteration's bounds, a command's output as it comes): no event of their own. */
const FRAMING = new Set(['iteration_start', 'iteration_end', 'content_update', 'done']);

/**
 * `cline --json <prompt>` (3.0.65, docs/agents/cline-facts.md): `{ts, type}` lines — `hook_event`
 * (a hook fired), `agent_event` `{event: {type}}` (`usage` once per model call: inputTokens with the
 * cache read in it, outputTokens, cacheReadTokens; `content_start`/`content_end` of a tool call
 * (`toolCallId`, `toolName`, `input`, `output`) or of text), `run_result` (the model), `error`,
 * `run_aborted` (a hook's cancel, among others). The stream names no session (its `taskId` is the
 * conversation inside the session the hooks and the store name): give `--session` to join them.
 */
export class ClineStreamParser extends StreamState {
  private iteration = 0;

  protected toolUse(name: string, args: unknown): ToolUse {
    return clineToolUse(name, args);
  }

  protected record(rec: Obj): StreamEvent[] {
    const at = this.ownTime(rec.ts) ?? this.timeNow();
    switch (rec.type) {
      case 'hook_event':
        return [];
      case 'agent_event':
        return isObj(rec.event) ? this.agentEvent(rec.event, rec, at) : this.unknown(rec, at);
      case 'run_result': {
        const model = isObj(rec.model) ? rec.model : {};
        this.model = asString(model.id) ?? this.model;
        this.provider = asString(model.provider) ?? this.provider;
        return this.runBoundary();
      }
      case 'run_aborted':
        return this.error(asString(rec.message) ?? 'run aborted', at, asString(rec.reason));
      case 'error':
        return this.error(asString(rec.message) ?? 'error', at);
      default:
        return this.unknown(rec, at);
    }
  }

  private agentEvent(e: Obj, rec: Obj, at: string): StreamEvent[] {
    const type = asString(e.type) ?? '';
    if (type === 'iteration_start') this.iteration = num(e.iteration) ?? this.iteration + 1;
    if (FRAMING.has(type)) return [];
    const tool = e.contentType === 'tool';
    const callId = asString(e.toolCallId);
    switch (type) {
      case 'usage': {
        const reported = { inputTokens: e.inputTokens, outputTokens: e.outputTokens, cacheReadTokens: e.cacheReadTokens, cacheWriteTokens: e.cacheWriteTokens };
        const usage = disjointUsage({ input: num(e.inputTokens), output: num(e.outputTokens), cacheRead: num(e.cacheReadTokens), cacheWrite: num(e.cacheWriteTokens) }, AGENT.usage);
        // Two calls can report the same numbers (the lab's first two do): the iteration and its time tell them apart, not the tokens.
        return usage ? [...this.flush(), this.usage({ scope: 'call', usage, reported, callId: `iteration-${this.iteration}@${at}` }, at)] : this.unknown(rec, at);
      }
      case 'content_start':
        if (tool && callId) return this.request(callId, asString(e.toolName) ?? 'unknown', e.input, at);
        return e.contentType === 'text' ? [] : this.unknown(rec, at);
      case 'content_end': {
        if (tool && callId) {
          const outcome = clineOutcome(e.output);
          return this.resolve(callId, { ok: !outcome.failed, ...(outcome.exitCode !== undefined ? { exitCode: outcome.exitCode } : {}) }, e, at);
        }
        if (e.contentType === 'text' && typeof e.text === 'string') return this.accumulate('agent', `iteration-${this.iteration}`, e.text, at);
        return this.unknown(rec, at);
      }
      case 'error':
        return this.error(isObj(e.error) ? asString(e.error.message) ?? 'error' : 'error', at, asString(e.errorClass));
      default:
        return this.unknown(rec, at);
    }
  }
}

export const clineStream: StreamAdapter = {
  platform: 'cline',
  mode: { program: 'cline', userPart: '"…"', flags: [{ name: '--json' }] },
  example: 'cline --json "fix the tests" | beacon stream cline --tee',
  createParser: (o) => new ClineStreamParser(o),
  record: (ev, ctx) => agentStreamRecord(ev, ctx, { harness: 'cline', classify: classifyClineTool }),
};
