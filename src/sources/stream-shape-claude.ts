import type { StreamEvent } from '../model/harness-event';
import { disjointUsage, type UsageSemantics } from '../model/usage';
import type { ToolUse } from '../taxonomy/tool-use';
import { asString } from './attributes';
import { isObj, num, StreamState, type Obj, type StreamStateOptions, type ToolOutcome } from './stream-state';

/** What differs between the streams that share the Claude Agent SDK's message shape (Claude Code, Qwen Code). */
export interface ClaudeShapeDialect {
  semantics: UsageSemantics;
  toolUse(name: string, args: unknown): ToolUse;
  /** a failed tool result's exit code, where the agent writes it into the result text (Claude: `Exit code 2\n…`) */
  exitCodeOf?(text: string): number | undefined;
}

/**
 * `system`/`init` (session id, cwd, model), `assistant` messages (text, thinking and tool_use
 * blocks), `user` messages (tool_result blocks) and the closing `result` (the run's usage). The
 * assistant lines' usage is not counted: Claude's is the message_start usage (output_tokens 1 on
 * every line), and Qwen's per-call ids are its own, so only the run's totals in `result` are
 * recorded, once (see stream-records.ts for when token-usage counts them).
 */
export class ClaudeShapeStreamParser extends StreamState {
  private runs = 0;

  constructor(private readonly dialect: ClaudeShapeDialect, options: StreamStateOptions = {}) {
    super(options);
  }

  protected toolUse(name: string, args: unknown): ToolUse {
    return this.dialect.toolUse(name, args);
  }

  protected record(rec: Obj): StreamEvent[] {
    const sid = asString(rec.session_id);
    if (sid && !this.streamSessionId) this.streamSessionId = sid;
    const own = this.ownTime(rec.timestamp);
    const at = own ?? this.timeNow();
    switch (rec.type) {
      case 'system':
        if (rec.subtype !== 'init') return this.unknown(rec, at);
        this.workingDirectory = asString(rec.cwd) ?? this.workingDirectory;
        this.model = asString(rec.model) ?? this.model;
        return [];
      case 'assistant':
        return isObj(rec.message) ? this.assistant(rec.message, at, own) : this.unknown(rec, at);
      case 'user':
        return isObj(rec.message) ? this.user(rec.message, at) : this.unknown(rec, at);
      case 'result':
        return this.result(rec, at);
      default:
        return this.unknown(rec, at);
    }
  }

  private assistant(m: Obj, at: string, own: string | undefined): StreamEvent[] {
    const id = asString(m.id) ?? '';
    this.model = asString(m.model) ?? this.model;
    const out: StreamEvent[] = [];
    for (const block of Array.isArray(m.content) ? m.content : [m.content]) {
      if (!isObj(block)) out.push(...this.unknown(block, at));
      else if (block.type === 'text' && typeof block.text === 'string') out.push(...this.accumulate('agent', id, block.text, at));
      else if (block.type === 'thinking' && typeof block.thinking === 'string') out.push(...this.accumulate('reasoning', id, block.thinking, at));
      else if (block.type === 'redacted_thinking') continue; // no readable text
      else if (block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') out.push(...this.request(block.id, block.name, block.input, own, id));
      else out.push(...this.unknown(block, at));
    }
    return out;
  }

  private user(m: Obj, at: string): StreamEvent[] {
    if (typeof m.content === 'string') return []; // a prompt the agent echoes
    const out: StreamEvent[] = [];
    for (const block of Array.isArray(m.content) ? m.content : []) {
      if (isObj(block) && block.type === 'text') continue; // the echoed prompt
      if (!isObj(block) || block.type !== 'tool_result') {
        out.push(...this.unknown(block, at));
        continue;
      }
      out.push(...this.resolve(asString(block.tool_use_id), this.outcome(block), block, at));
    }
    return out;
  }

  private outcome(block: Obj): ToolOutcome {
    if (block.is_error !== true) return { ok: true };
    const text = typeof block.content === 'string' ? block.content : Array.isArray(block.content) ? block.content.map((c) => (isObj(c) && typeof c.text === 'string' ? c.text : '')).join('\n') : '';
    const exitCode = this.dialect.exitCodeOf?.(text);
    return { ok: false, ...(exitCode !== undefined ? { exitCode } : {}) };
  }

  /** The run boundary: flushes, reports the unanswered requests, the run's usage and (a failed run) its error. */
  private result(rec: Obj, at: string): StreamEvent[] {
    const out = this.runBoundary();
    if (rec.is_error === true || (typeof rec.subtype === 'string' && rec.subtype !== 'success')) {
      out.push(...this.error(asString(rec.result) ?? asString(rec.subtype) ?? 'run failed', at, asString(rec.subtype)));
    }
    const u = isObj(rec.usage) ? rec.usage : undefined;
    const models = isObj(rec.modelUsage) ? Object.keys(rec.modelUsage) : [];
    if (models.length === 1) this.model = models[0];
    const cost = num(rec.total_cost_usd);
    const usage = u && disjointUsage({ input: num(u.input_tokens), output: num(u.output_tokens), cacheRead: num(u.cache_read_input_tokens), cacheWrite: num(u.cache_creation_input_tokens), costUsd: cost }, this.dialect.semantics);
    if (usage) {
      const reported = { run: ++this.runs, usage: u, ...(cost !== undefined ? { total_cost_usd: cost } : {}), ...(num(rec.num_turns) !== undefined ? { num_turns: rec.num_turns } : {}) };
      out.push(this.usage({ scope: 'run', usage, reported }, at));
    }
    return out;
  }
}
