import { join } from 'node:path';
import type { NormalizedEvent } from '../../model/record';
import type { Attributes } from '../../model/span';
import { modelCallEvent, promptEvent, toolCallEvent } from '../agent-events';
import { tokenAttr } from '../attributes';
import type { ReaderContext, SessionStore, StoreFileReader } from '../store-registry';
import { asObject, asText, isoTimeNs, mergeable, SettlingEvents, storeObservation, withResult, type PendingCall } from '../store-events';
import { AGENT } from './index';
import { userPromptText } from './prompt-text';

/**
 * Copilot CLI's session state: `$COPILOT_HOME` (else `~/.copilot`) `/session-state/<session id>/
 * events.jsonl`, one session event per line `{type, data, id, timestamp, parentId}` — the stream's
 * non-ephemeral events with the same ids, plus store-only ones (shared/docs/agent-streams-stores-facts.md
 * §6b, checked on 1.0.102's own files):
 *
 * - `session.start{sessionId, copilotVersion, selectedModel}`: the session.
 * - `session.usage_record{usage{model, inputTokens (cached included), outputTokens (reasoning
 *   included), cacheReadTokens, cacheWriteTokens, reasoningTokens, duration, apiCallId (the provider's
 *   response id, the chat span's gen_ai.response.id: one event id for both paths), providerType,
 *   finishReason}}`: one per model call. `cost` is Copilot's premium-request accounting (0 with
 *   BYOK), not dollars: not recorded. `session.shutdown`'s totals are the session's sum: not a call.
 * - `user.message{content, transformedContent, messageId}`: the prompt is `content`, what the user
 *   typed; `transformedContent` is what Copilot sent (its `<current_datetime>` line first).
 * - `assistant.message{toolRequests[]{toolCallId, name, arguments}}` and `tool.execution_complete
 *   {toolCallId, success, result{content}, shellExecution{exitCode}}`: a tool call and its outcome
 *   (a command that exited 2 is `success: true` with its exit code beside it).
 */
interface Pending extends PendingCall {
  /** tool.execution_start's time */
  started?: bigint;
}

class CopilotEvents implements StoreFileReader {
  private sessionId?: string;
  private version?: string;

  constructor(context?: ReaderContext) {
    if (typeof context?.sessionId === 'string') this.sessionId = context.sessionId;
    if (typeof context?.version === 'string') this.version = context.version;
  }

  private readonly calls = new SettlingEvents<Pending>();

  line(v: Record<string, unknown>): NormalizedEvent[] {
    const data = asObject(v.data);
    if (typeof v.type !== 'string' || !data) return [];
    const time = isoTimeNs(v.timestamp);
    if (time === undefined) throw new Error('an event without a valid timestamp');
    switch (v.type) {
      case 'session.start':
        this.sessionId = asText(data.sessionId) ?? this.sessionId;
        this.version = asText(data.copilotVersion) ?? this.version;
        break;
      case 'session.usage_record':
        this.usage(asObject(data.usage), time, asText(v.id));
        break;
      case 'user.message': {
        // what the user typed (Copilot's `<current_datetime>` line taken off what it sent): the text every path records
        const sent = asText(data.content) ?? asText(data.transformedContent);
        const text = sent === undefined ? undefined : userPromptText(sent);
        const key = asText(data.messageId) ?? asText(v.id);
        if (text && key) this.calls.done.push(mergeable(promptEvent(AGENT, this.at(time, `prompt:${key}`), text)));
        break;
      }
      case 'assistant.message':
        for (const r of Array.isArray(data.toolRequests) ? data.toolRequests : []) {
          const req = asObject(r);
          const callId = asText(req?.toolCallId);
          const name = asText(req?.name);
          if (callId && name) this.calls.pending.set(callId, { name, args: req!.arguments, time });
        }
        break;
      case 'tool.execution_start': {
        const use = this.calls.pending.get(asText(data.toolCallId) ?? '');
        if (use) use.started = time;
        break;
      }
      case 'tool.execution_complete':
        this.toolComplete(data, time);
        break;
    }
    return [];
  }

  private at(time: bigint, key: string) {
    return storeObservation({ time, sessionId: this.sessionId, version: this.version, key });
  }

  private usage(usage: Record<string, unknown> | undefined, time: bigint, eventId: string | undefined): void {
    if (!usage) return;
    const u = usage as Attributes;
    const responseId = asText(u.apiCallId) ?? asText(asObject(u.accounting)?.usageId);
    const model = asText(u.model);
    const provider = asText(u.providerType);
    const finish = asText(u.finishReason);
    this.calls.done.push(mergeable(modelCallEvent(AGENT, this.at(time, `usage:${responseId ?? eventId ?? String(time)}`), {
      ...(model ? { model } : {}), ...(provider ? { provider } : {}), ...(responseId ? { responseId } : {}),
      ...(finish ? { finishReasons: [finish] } : {}),
      usage: {
        input: tokenAttr(u, 'inputTokens'), output: tokenAttr(u, 'outputTokens'),
        cacheRead: tokenAttr(u, 'cacheReadTokens'), cacheWrite: tokenAttr(u, 'cacheWriteTokens'), reasoning: tokenAttr(u, 'reasoningTokens'),
      },
      ...(typeof u.duration === 'number' ? { durationMs: u.duration } : {}),
    })));
  }

  private toolComplete(d: Record<string, unknown>, time: bigint): void {
    const callId = asText(d.toolCallId);
    const use = callId ? this.calls.pending.get(callId) : undefined;
    if (!callId || !use) return; // a result of a call this file does not hold
    this.calls.pending.delete(callId);
    const result = asObject(d.result);
    const text = asText(result?.content) ?? asText(asObject(d.error)?.message);
    const exit = asObject(d.shellExecution)?.exitCode;
    const ev = toolCallEvent(AGENT, this.at(use.time, `tool:${callId}`), {
      name: use.name, callId, args: use.args,
      ...(typeof d.success === 'boolean' ? { success: d.success } : {}),
      ...(typeof exit === 'number' && Number.isInteger(exit) ? { exitCode: exit } : {}),
      ...(use.started !== undefined ? { durationMs: Number((time - use.started) / 1_000_000n) } : {}),
    });
    const withText = withResult(ev, text);
    if (withText) this.calls.done.push(withText);
  }

  // Each line is whole (a usage record is one call, a prompt one message); only a tool call waits
  // for its result: events are settled as read, and a follow resumes mid-file between tool calls.
  settled(): NormalizedEvent[] {
    return this.calls.settled();
  }

  idle(): boolean {
    return this.calls.idle();
  }

  context(): ReaderContext | undefined {
    const c: ReaderContext = {};
    if (this.sessionId !== undefined) c.sessionId = this.sessionId;
    if (this.version !== undefined) c.version = this.version;
    return c;
  }

  end(): NormalizedEvent[] {
    return this.calls.endPending(AGENT, (time, key) => this.at(time, key));
  }
}

export const copilotCliStore: SessionStore = {
  harness: AGENT.harness,
  names: ['copilot-cli', 'copilot'],
  // COPILOT_HOME stands for ~/.copilot itself (its resolveCopilotHome); 1.0 moved the XDG places there
  root: (home, env) => join(env?.COPILOT_HOME || join(home, '.copilot'), 'session-state'),
  depth: 2,
  isSessionFile: (relative) => /^[^/]+\/events\.jsonl$/.test(relative),
  reader: (_file, context) => new CopilotEvents(context),
};
