import { basename, dirname, join } from 'node:path';
import type { NormalizedEvent } from '../../model/record';
import type { Attributes } from '../../model/span';
import type { TokenUsage } from '../../model/usage';
import { modelCallEvent, promptEvent, toolCallEvent } from '../agent-events';
import { tokenAttr } from '../attributes';
import type { SessionStore, StoreFileReader } from '../store-registry';
import { asObject, asText, inTimeOrder, isoTimeNs, mergeable, storeObservation, withResult } from '../store-events';
import { AGENT } from './index';

/**
 * Gemini CLI's chat files: `$GEMINI_CLI_HOME` (else the home) `/.gemini/tmp/<project>/chats/
 * session-<YYYY-MM-DDTHH-MM>-<session id prefix>.jsonl` (a subagent's: `chats/<parent session id>/
 * <agent id>.jsonl`; an older CLI's: `session-….json`, one document `{sessionId, projectHash,
 * messages[]}`), JSON lines (shared/docs/agent-streams-stores-facts.md §3b, checked on 0.61.0's own
 * files and its chatRecordingService, which still reads the older documents):
 *
 * - the header `{sessionId, projectHash, startTime, kind}`; `{$set: {…}}` patches (`lastUpdated`, a
 *   `sessionId` on resume, or a whole `messages` array); `{$rewindTo: id}` (the user rewound the
 *   chat: the calls before it were still made and paid for, so nothing is taken back here).
 * - message records `{id, timestamp, type: user|gemini|info|error…, content}`, the same `id` written
 *   again each time it grows (its tokens, then its tool calls): the last write of an id is the message.
 * - `gemini`: one model call when it has `tokens{input (cached included), output (thoughts
 *   excluded), cached, thoughts, tool}` and `model`; `toolCalls[]{id, name, args, result[{functionResponse
 *   {response{output|error}}}], status, timestamp}`. A shell command's exit code is only in the
 *   result's text (`Exit Code: 2`), its status `success` all the same. No response id: OTLP's
 *   record of the call is found by session and tokens (store/log/merge.ts).
 * - `user`: the prompt when its content is text the CLI itself counts as one (not its
 *   `<session_context>`, a slash command or tool results).
 */
type Message = Record<string, unknown>;

/** A message as read: its last write, and its tokens already checked (a bad number skips its line, not the file). */
interface Read {
  m: Message;
  usage?: TokenUsage;
}

/** The user turns Gemini CLI does not count as the user's (its isIgnoredUserContent). */
const NOT_A_PROMPT = /^(?:$|\/|\?|<session_context>|<hook_context>)/;

class GeminiChat implements StoreFileReader {
  private sessionId?: string;
  private readonly messages = new Map<string, Read>();

  /**
   * A subagent's file (`chats/<parent session id>/<agent id>.jsonl`) heads itself with the agent's id,
   * but its calls are the parent session's: OTLP records them under the CLI's one session id.
   */
  constructor(private readonly parentSessionId?: string) {
    this.sessionId = parentSessionId;
  }

  line(v: Record<string, unknown>): NormalizedEvent[] {
    if (typeof v.$rewindTo === 'string') return [];
    const set = asObject(v.$set);
    if (set) {
      if (!this.parentSessionId) this.sessionId = asText(set.sessionId) ?? this.sessionId;
      for (const m of Array.isArray(set.messages) ? set.messages : []) this.message(asObject(m));
      return [];
    }
    if (typeof v.id === 'string') this.message(v);
    else if (typeof v.sessionId === 'string' && typeof v.projectHash === 'string') {
      if (!this.parentSessionId) this.sessionId = v.sessionId;
      // an older CLI's whole-document file is this header with every message in it
      for (const m of Array.isArray(v.messages) ? v.messages : []) this.message(asObject(m));
    }
    return [];
  }

  private message(m: Message | undefined): void {
    if (!m || typeof m.id !== 'string') return;
    if (isoTimeNs(m.timestamp) === undefined) throw new Error('a message without a valid timestamp');
    const t = m.type === 'gemini' ? asObject(m.tokens) : undefined;
    const a = t as Attributes | undefined;
    // `tool` (toolUsePromptTokenCount) is left out as the OTLP reader leaves it out: one fingerprint for one call
    const usage = a ? { input: tokenAttr(a, 'input'), output: tokenAttr(a, 'output'), cacheRead: tokenAttr(a, 'cached'), reasoning: tokenAttr(a, 'thoughts') } : undefined;
    this.messages.set(m.id, { m, ...(usage ? { usage } : {}) }); // the last write of an id is the message
  }

  private at(time: bigint, key: string) {
    return storeObservation({ time, sessionId: this.sessionId, key });
  }

  end(): NormalizedEvent[] {
    const out: NormalizedEvent[] = [];
    for (const [id, { m, usage }] of this.messages) {
      const time = isoTimeNs(m.timestamp)!;
      if (m.type === 'user' && !this.parentSessionId) { // a subagent's user turns are its task, not the user's prompt
        const text = promptText(m.content);
        if (text !== undefined) out.push(mergeable(promptEvent(AGENT, this.at(time, `prompt:${id}`), text)));
      } else if (m.type === 'gemini') {
        const model = asText(m.model);
        if (usage) out.push(mergeable(modelCallEvent(AGENT, this.at(time, `message:${id}`), { ...(model ? { model } : {}), usage })));
        for (const call of Array.isArray(m.toolCalls) ? m.toolCalls : []) {
          const ev = this.toolCall(asObject(call), time);
          if (ev) out.push(ev);
        }
      }
    }
    return inTimeOrder(out);
  }

  private toolCall(c: Record<string, unknown> | undefined, messageTime: bigint): NormalizedEvent | undefined {
    const callId = asText(c?.id);
    const name = asText(c?.name);
    if (!c || !callId || !name) return undefined;
    const time = isoTimeNs(c.timestamp) ?? messageTime;
    const result = resultOf(c.result);
    const status = asText(c.status);
    const done = status !== undefined && status !== 'scheduled' && status !== 'executing' && status !== 'validating' && status !== 'awaiting_approval';
    const exit = name === 'run_shell_command' && result.text ? /^Exit Code: (-?\d+)$/m.exec(result.text) : null;
    const ev = toolCallEvent(AGENT, this.at(time, `tool:${callId}`), {
      name, callId, args: c.args,
      ...(done ? { success: status === 'success' && !result.error } : {}),
      ...(exit ? { exitCode: Number(exit[1]) } : {}),
    });
    return withResult(ev, result.text);
  }
}

/** A user message's text, when it is a prompt: text parts only (a functionResponse part is a tool's result). */
function promptText(content: unknown): string | undefined {
  if (typeof content === 'string') return NOT_A_PROMPT.test(content.trim()) ? undefined : content;
  if (!Array.isArray(content)) return undefined;
  const parts = content.map(asObject);
  if (parts.some((p) => p?.functionResponse !== undefined)) return undefined;
  const text = parts.flatMap((p) => (typeof p?.text === 'string' ? [p.text] : [])).join('');
  return NOT_A_PROMPT.test(text.trim()) ? undefined : text;
}

/** A tool call's result as the model saw it: `functionResponse.response.output`, or its `error`. */
function resultOf(result: unknown): { text?: string; error: boolean } {
  for (const part of Array.isArray(result) ? result : []) {
    const response = asObject(asObject(asObject(part)?.functionResponse)?.response);
    if (!response) continue;
    if (typeof response.error === 'string') return { text: response.error, error: true };
    if (typeof response.output === 'string') return { text: response.output, error: false };
  }
  return { error: false };
}

export const geminiCliStore: SessionStore = {
  harness: AGENT.harness,
  names: ['gemini-cli', 'gemini'],
  // GEMINI_CLI_HOME stands for the home directory (its Storage: `<it>/.gemini`), not for `.gemini` itself
  root: (home, env) => join(env?.GEMINI_CLI_HOME || home, '.gemini', 'tmp'),
  depth: 4,
  isSessionFile: (relative) => /^[^/]+\/chats\/(?:session-[^/]+\.jsonl?|[^/]+\/[^/]+\.jsonl)$/.test(relative),
  // before its JSON lines, the CLI wrote each session as one JSON document, session-….json (it still reads them, and
  // appends a resumed one's messages to session-….jsonl: the same message ids, the same events, counted once)
  isJsonDocument: (file) => file.endsWith('.json'),
  reader: (file) => {
    const dir = dirname(file);
    return new GeminiChat(basename(dir) === 'chats' ? undefined : basename(dir));
  },
};
