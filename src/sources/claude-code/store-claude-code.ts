import { join } from 'node:path';
import type { NormalizedEvent } from '../../model/record';
import type { Attributes } from '../../model/span';
import { modelCallEvent, promptEvent, toolCallEvent } from '../agent-events';
import { tokenAttr } from '../attributes';
import type { SessionStore, StoreFileReader } from '../store-registry';
import { asObject, asText, inTimeOrder, isoTimeNs, mergeable, resultText, storeObservation, withResult } from '../store-events';
import { AGENT } from './index';

/**
 * Claude Code's transcripts: `$CLAUDE_CONFIG_DIR` (else `~/.claude`) `/projects/<cwd, each
 * non-alphanumeric character a "-">/<session id>.jsonl`, one JSON object per line with a `type`
 * (shared/docs/agent-streams-stores-facts.md §1b, checked on 2.1.197's own files):
 *
 * - `assistant`: one API message, `message{id, model, usage, stop_reason, content[]}`, `requestId`
 *   when the API sent a `request-id` header. The usage is Anthropic's (input excludes both cache
 *   buckets), with the final output count — the stream's is a placeholder. A message of several
 *   content blocks is written as several lines repeating its usage: one call per message id, its
 *   last line's numbers.
 * - `user`: the prompt (`message.content` a string, or text blocks), or tool results
 *   (`tool_result{tool_use_id, content, is_error}`), which complete the `tool_use` of an earlier line.
 *   A failed command's exit code is only in the result's text (`Exit code 2`).
 * - `queue-operation`, `attachment`, `last-prompt`, `summary`…: nothing Beacon records.
 */
const PROVIDER = 'anthropic';

interface PendingTool {
  name: string;
  input: unknown;
  sessionId?: string;
  version?: string;
  time: bigint;
}

class ClaudeTranscript implements StoreFileReader {
  private readonly calls = new Map<string, NormalizedEvent>();
  private readonly tools = new Map<string, PendingTool>();
  private readonly done: NormalizedEvent[] = [];

  line(v: Record<string, unknown>): NormalizedEvent[] {
    const time = isoTimeNs(v.timestamp);
    if (v.type !== 'assistant' && v.type !== 'user') return [];
    if (time === undefined) throw new Error('a message without a valid timestamp');
    const sessionId = asText(v.sessionId);
    const version = asText(v.version);
    const message = asObject(v.message);
    if (!message) throw new Error('a message line without a message');
    if (v.type === 'assistant') this.assistant(message, v, { time, sessionId, version });
    else {
      this.closeMessages(); // the message before a user line is complete: its numbers are final
      this.user(message, v, { time, sessionId, version });
    }
    return [];
  }

  /** The model calls read so far, final: moved to what `settled()` hands out. */
  private closeMessages(except?: string): void {
    for (const [id, ev] of this.calls) {
      if (id === except) continue;
      this.done.push(ev);
      this.calls.delete(id);
    }
  }

  settled(): NormalizedEvent[] {
    return inTimeOrder(this.done.splice(0));
  }

  /** Nothing waits for a later line: no tool call without its result, no message whose last line may still come. */
  idle(): boolean {
    return this.tools.size === 0 && this.calls.size === 0;
  }

  private assistant(m: Record<string, unknown>, v: Record<string, unknown>, at: { time: bigint; sessionId?: string; version?: string }): void {
    for (const block of Array.isArray(m.content) ? m.content : []) {
      const b = asObject(block);
      if (b?.type === 'tool_use' && typeof b.id === 'string' && typeof b.name === 'string') this.tools.set(b.id, { name: b.name, input: b.input, ...at });
    }
    const id = asText(m.id);
    const usage = asObject(m.usage);
    const model = asText(m.model);
    // `<synthetic>`: a message Claude Code wrote itself (an API error shown as text), no model call
    if (!id || !usage || model === '<synthetic>') return;
    this.closeMessages(id); // a line of another message: the one before it has had its last line
    const u = usage as Attributes;
    const stop = asText(m.stop_reason);
    const ev = modelCallEvent(AGENT, storeObservation({ ...at, key: `message:${id}` }), {
      ...(model ? { model } : {}),
      provider: PROVIDER,
      responseId: id,
      ...(stop ? { finishReasons: [stop] } : {}),
      usage: {
        input: tokenAttr(u, 'input_tokens'), output: tokenAttr(u, 'output_tokens'),
        cacheRead: tokenAttr(u, 'cache_read_input_tokens'), cacheWrite: tokenAttr(u, 'cache_creation_input_tokens'),
      },
    });
    this.calls.set(id, mergeable(ev)); // a later line of the same message replaces it: its numbers are final
  }

  private user(m: Record<string, unknown>, v: Record<string, unknown>, at: { time: bigint; sessionId?: string; version?: string }): void {
    const content = m.content;
    const results = Array.isArray(content) ? content.map(asObject).filter((b) => b?.type === 'tool_result') : [];
    for (const r of results) this.toolResult(r!, at);
    if (results.length > 0 || v.isMeta === true || v.isCompactSummary === true) return;
    const text = resultText(content);
    const uuid = asText(v.uuid);
    if (text === undefined || !uuid) return;
    this.done.push(mergeable(promptEvent(AGENT, storeObservation({ ...at, key: `prompt:${uuid}` }), text)));
  }

  private toolResult(r: Record<string, unknown>, at: { time: bigint; sessionId?: string; version?: string }): void {
    const callId = asText(r.tool_use_id);
    const use = callId ? this.tools.get(callId) : undefined;
    if (!callId || !use) return; // a result of a call this file does not hold (a resumed session's): nothing to classify
    this.tools.delete(callId);
    const text = resultText(r.content);
    const failed = r.is_error === true;
    const exit = failed && text ? /^(?:Error: )?Exit code (-?\d+)/.exec(text) : null;
    const ev = toolCallEvent(AGENT, storeObservation({ ...at, key: `tool:${callId}` }), {
      name: use.name, callId, args: use.input, success: !failed, ...(exit ? { exitCode: Number(exit[1]) } : {}),
    });
    const withText = withResult(ev, text);
    if (withText) this.done.push(withText);
  }

  end(): NormalizedEvent[] {
    // A call without a result (interrupted, or the session still running): recorded as invoked, outcome unknown.
    for (const [callId, use] of this.tools) {
      const ev = toolCallEvent(AGENT, storeObservation({ time: use.time, sessionId: use.sessionId, version: use.version, key: `tool:${callId}` }), { name: use.name, callId, args: use.input });
      if (ev) this.done.push(ev);
    }
    this.tools.clear();
    this.closeMessages();
    return this.settled();
  }
}


export const claudeCodeStore: SessionStore = {
  harness: AGENT.harness,
  names: ['claude-code', 'claude'],
  root: (home, env) => join(env?.CLAUDE_CONFIG_DIR || join(home, '.claude'), 'projects'),
  depth: 2,
  isSessionFile: (relative) => /^[^/]+\/[^/]+\.jsonl$/.test(relative),
  reader: () => new ClaudeTranscript(),
};
