import type { StreamEvent } from '../../model/harness-event';
import type { NormalizedEvent } from '../../model/record';
import { disjointUsage, SEMCONV_USAGE } from '../../model/usage';
import type { ToolUse } from '../../taxonomy/tool-use';
import { asString } from '../attributes';
import type { StreamAdapter } from '../stream-adapter';
import { agentStreamRecord } from '../stream-records';
import { isObj, num, StreamState, type Obj } from '../stream-state';
import { codexToolUse } from './tools';
import { classifyToolUse } from '../../taxonomy/classify';

/**
 * `/bin/bash -lc 'ls /x'`: how Codex's stream shows the command the model asked for (the hooks and
 * the OTLP path see the model's own command line, `ls /x`). Only a whole quoted script is unwrapped:
 * single-quoted (`'\''` a quote inside), or double-quoted when it holds a single quote (`\"`, `\\`,
 * `\$`, `` \` `` escaped); anything else stays as Codex printed it.
 */
const WRAPPED = /^(?:\/\S*\/)?(?:ba|z)?sh -lc (?:'((?:[^']|'\\'')*)'|"((?:[^"\\$`]|\\.)*)")$/;
function unwrap(command: string): string {
  const m = WRAPPED.exec(command);
  if (m?.[1] !== undefined) return m[1].replace(/'\\''/g, "'");
  if (m?.[2] !== undefined) return m[2].replace(/\\([\\"$`])/g, '$1');
  return command;
}

/** Codex's tools as its stream names them: its shell and MCP calls, and the stream's own file_change and web_search items. */
function codexStreamToolUse(name: string, args: unknown): ToolUse {
  if (name === 'file_change' && isObj(args)) return { kind: 'write', ...(asString(args.path) ? { path: asString(args.path) } : {}), operation: args.kind === 'add' ? 'create' : 'modify' };
  if (name === 'web_search') return { kind: 'other', fidelity: 'observed' };
  return codexToolUse(name, args, isObj(args) ? asString(args.server) : undefined);
}

/**
 * `codex exec --json`: thread.started (the session id), turn.started, item.started/item.completed
 * (agent_message, reasoning, command_execution, file_change, mcp_tool_call, web_search, todo_list,
 * error), turn.completed (the turn's usage: input includes cached, output includes reasoning),
 * turn.failed and error. Items have no call id: the item id (`item_N`, scoped by the session)
 * correlates a command's start and completion.
 */
export class CodexStreamParser extends StreamState {
  private turns = 0;

  protected toolUse(name: string, args: unknown): ToolUse {
    return codexStreamToolUse(name, args);
  }

  protected record(rec: Obj): StreamEvent[] {
    const at = this.timeNow();
    switch (rec.type) {
      case 'thread.started':
        this.streamSessionId ??= asString(rec.thread_id);
        return [];
      case 'turn.started':
        return [];
      case 'item.started':
      case 'item.updated':
      case 'item.completed':
        return isObj(rec.item) ? this.item(rec.type, rec.item, at, rec) : this.unknown(rec, at);
      case 'turn.completed':
        return this.turnCompleted(rec, at);
      case 'turn.failed':
        return [...this.error(isObj(rec.error) ? asString(rec.error.message) ?? 'turn failed' : 'turn failed', at, 'turn_failed'), ...this.unanswered()];
      case 'error':
        return this.error(asString(rec.message) ?? 'error', at);
      default:
        return this.unknown(rec, at);
    }
  }

  private item(phase: string, item: Obj, at: string, rec: Obj): StreamEvent[] {
    const id = asString(item.id) ?? '';
    switch (item.type) {
      case 'agent_message':
      case 'reasoning':
        if (phase !== 'item.completed' || typeof item.text !== 'string') return [];
        return this.accumulate(item.type === 'agent_message' ? 'agent' : 'reasoning', id, item.text, at);
      case 'command_execution': {
        const command = unwrap(asString(item.command) ?? '');
        if (phase === 'item.started') return this.request(id, 'exec_command', { cmd: command }, at);
        if (phase !== 'item.completed') return [];
        const exitCode = num(item.exit_code);
        const ok = item.status === 'completed' && (exitCode === undefined || exitCode === 0);
        return this.resolve(id, { ok, ...(exitCode !== undefined ? { exitCode } : {}) }, rec, at);
      }
      case 'file_change': {
        if (phase !== 'item.completed') return [];
        const changes = Array.isArray(item.changes) ? item.changes.filter(isObj) : [];
        const ok = item.status !== 'failed';
        return changes.flatMap((c, i) => this.finished(changes.length > 1 ? `${id}#${i}` : id, 'file_change', c, { ok }, at));
      }
      case 'mcp_tool_call':
        if (phase === 'item.started') return this.request(id, asString(item.tool) ?? 'mcp', { server: item.server, ...(isObj(item.arguments) ? item.arguments : {}) }, at);
        if (phase !== 'item.completed') return [];
        return this.resolve(id, { ok: item.status !== 'failed' && item.error == null }, rec, at);
      case 'web_search':
        return phase === 'item.completed' ? this.finished(id, 'web_search', { query: item.query }, { ok: true }, at) : [];
      case 'todo_list':
        return []; // the agent's plan: internal session state
      case 'error':
        // a non-fatal warning (an unknown model's metadata…), reported by Codex as an item
        return phase === 'item.completed' ? this.error(asString(item.message) ?? 'error', at, 'codex_warning') : [];
      default:
        return phase === 'item.completed' ? this.unknown(rec, at) : [];
    }
  }

  /** The turn's boundary: flushes, reports the unanswered requests and the turn's usage (Codex gives no per-call usage). */
  private turnCompleted(rec: Obj, at: string): StreamEvent[] {
    const out = this.runBoundary();
    const u = isObj(rec.usage) ? rec.usage : undefined;
    const cacheWrite = u ? num(u.cache_write_input_tokens) : undefined;
    const usage = u && disjointUsage({ input: num(u.input_tokens), output: num(u.output_tokens), cacheRead: num(u.cached_input_tokens), cacheWrite: cacheWrite || undefined, reasoning: num(u.reasoning_output_tokens) }, SEMCONV_USAGE);
    if (usage) out.push(this.usage({ scope: 'run', usage, reported: { turn: ++this.turns, usage: u } }, at));
    return out;
  }
}

export const codexStream: StreamAdapter = {
  platform: 'codex',
  mode: { program: 'codex', subcommand: { name: 'exec', aliases: ['e'] }, flags: [{ name: '--json', aliases: ['--experimental-json'] }] },
  example: 'codex exec --json "fix the tests" | beacon stream codex --tee',
  createParser: (o) => new CodexStreamParser(o),
  record: (ev, ctx) => joinable(ev, agentStreamRecord(ev, ctx, { harness: 'codex', classify: (name, args, options) => classifyToolUse(name, codexStreamToolUse(name, args), options) })),
};

/**
 * A tool call under the stream's own item id (Codex's `exec --json` has no model call id): the store
 * gives it the call id of its OTLP record, if there is one (store/log/stream-call-join.ts, issue 32).
 */
function joinable(ev: StreamEvent, out: NormalizedEvent | undefined): NormalizedEvent | undefined {
  const call = out?.record.gen_ai?.tool?.call;
  if (!out || !ev.detail.tool || call?.id !== ev.detail.tool.callId) return out;
  out.record.raw = { ...out.record.raw, stream_item: ev.detail.tool.callId };
  out.joinCall = true;
  return out;
}
