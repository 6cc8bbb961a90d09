/**
 * One Claude Code session as its transcript (`~/.claude/projects/<cwd>/<session id>.jsonl`), in the
 * line shapes Claude Code 2.1.332 writes (the lab's own run of it): per session the start-up
 * attachments and one request shape; per prompt the queue operations and the user line; per model
 * call the request blob and request lines, the assistant message (one line per content block, each
 * repeating the usage: a thinking block then the tool use or text), and the tool's result with the
 * reminder Claude Code attaches to it.
 */
import { addTruth, JsonlWriter, text, type Rng, type SessionPlan, type Truth } from './month-lines';

const VERSION = '2.1.332';
const TOOLS = ['Bash', 'Bash', 'Read', 'Read', 'Edit', 'Grep', 'Write'] as const;
type Tool = (typeof TOOLS)[number];

interface Line {
  w: JsonlWriter;
  rng: Rng;
  base: Record<string, unknown>;
  parent: string | null;
}

function row(l: Line, timeMs: number, fields: Record<string, unknown>): string {
  const uuid = l.rng.uuid();
  l.w.line({ parentUuid: l.parent, isSidechain: false, ...fields, uuid, timestamp: new Date(timeMs).toISOString(), ...l.base });
  l.parent = uuid;
  return uuid;
}

function attachment(l: Line, timeMs: number, type: string, size: number): void {
  row(l, timeMs, { attachment: { type, content: text(l.rng, size) }, type: 'attachment', rendered: [{ content: `<system-reminder>\n${text(l.rng, Math.min(size, 2000))}\n</system-reminder>` }], renderedRole: 'system' });
}

/** The start of a session: what Claude Code writes before the first request (about 100 KB, as the lab's run). */
function sessionStart(l: Line, p: SessionPlan, sizes: number[]): void {
  for (const [i, type] of ['environment', 'model', 'deferred_tools_delta', 'agent_listing_delta', 'skill_listing', 'prompt_snapshot'].entries()) attachment(l, p.startMs + 5, type, sizes[i]!);
  l.w.line({ type: 'atis-latch', atis: '', sessionId: p.id });
  l.w.line({ type: 'api-request-shape', sessionId: p.id, shapeHash: l.rng.hex(64), timestamp: new Date(p.startMs + 20).toISOString(), version: VERSION, shape: { system: [{ type: 'text', text: text(l.rng, 28_000) }], tools: [{ name: 'Agent', description: text(l.rng, 30_000) }] } });
}

function prompt(l: Line, p: SessionPlan, timeMs: number): void {
  const content = text(l.rng, l.rng.size(160, 4000));
  l.w.line({ type: 'queue-operation', operation: 'enqueue', timestamp: new Date(timeMs).toISOString(), sessionId: p.id, content });
  l.w.line({ type: 'queue-operation', operation: 'dequeue', timestamp: new Date(timeMs + 2).toISOString(), sessionId: p.id });
  row(l, timeMs + 150, { promptId: l.rng.uuid(), type: 'user', message: { role: 'user', content }, permissionMode: 'default', promptSource: 'user' });
}

function toolInput(rng: Rng, tool: Tool, cwd: string): Record<string, unknown> {
  const file = `${cwd}/src/${text(rng, 12).replace(/[^a-z]/g, '') || 'index'}.ts`;
  switch (tool) {
    case 'Bash': return { command: rng.pick(['npm test', 'npx tsc -p .', 'git status', 'git diff --stat', 'ls -la src', 'npm run lint']), description: text(rng, 40) };
    case 'Read': return { file_path: file };
    case 'Edit': return { file_path: file, old_string: text(rng, rng.size(200, 3000)), new_string: text(rng, rng.size(220, 3000)) };
    case 'Grep': return { pattern: text(rng, 12), path: cwd, output_mode: 'content' };
    case 'Write': return { file_path: file, content: text(rng, rng.size(1500, 20_000)) };
  }
}

/** The tool's result: what the model sees, and the `toolUseResult` Claude Code keeps beside it. */
function toolResult(rng: Rng, tool: Tool, input: Record<string, unknown>): { content: string; isError: boolean; kept: unknown } {
  if (tool === 'Bash') {
    const failed = rng.chance(0.12);
    const out = text(rng, rng.size(500, 30_000));
    return { content: failed ? `Exit code 1\n${out}` : out, isError: failed, kept: failed ? `Error: Exit code 1\n${out}` : { stdout: out, stderr: '', interrupted: false, isImage: false } };
  }
  if (tool === 'Read') {
    const content = text(rng, rng.size(3000, 60_000));
    return { content, isError: false, kept: { type: 'text', file: { filePath: input.file_path, content, numLines: content.split('\n').length, startLine: 1, totalLines: content.split('\n').length } } };
  }
  if (tool === 'Edit') return { content: `The file ${input.file_path} has been updated.`, isError: false, kept: { filePath: input.file_path, oldString: input.old_string, newString: input.new_string, structuredPatch: [{ oldStart: 10, oldLines: 4, newStart: 10, newLines: 5, lines: String(input.new_string).split('\n').slice(0, 20) }], userModified: false, replaceAll: false } };
  if (tool === 'Grep') return { content: text(rng, rng.size(800, 20_000)), isError: false, kept: { mode: 'content', numFiles: 3 } };
  return { content: `File created successfully at: ${input.file_path}`, isError: false, kept: { type: 'create', filePath: input.file_path, content: input.content, structuredPatch: [] } };
}

/** One model call: its request lines, its message (a line per block), and the tool's result if it called one. */
function modelCall(l: Line, p: SessionPlan, s: { timeMs: number; context: number; last: boolean; echo: string }, truth: Truth): { timeMs: number; echo: string } {
  const { rng } = l;
  const requestRef = rng.uuid();
  l.w.line({ type: 'api-request-blob', sessionId: p.id, hash: rng.hex(64), message: { role: 'user', content: [{ type: 'text', text: s.echo }] } });
  l.w.line({ type: 'api-request', sessionId: p.id, id: requestRef, timestamp: new Date(s.timeMs).toISOString(), version: VERSION, querySource: 'repl_main_thread', shapeHash: rng.hex(64), params: { model: p.model, betas: ['claude-code-20250219', 'interleaved-thinking-2025-05-14', 'context-management-2025-06-27'], max_tokens: 32000, thinking: { budget_tokens: 31999, type: 'enabled' } }, tail: [rng.hex(64), rng.hex(64)], requestDigest: rng.hex(64) });
  const tool = s.last ? undefined : rng.pick(TOOLS);
  if (tool) l.w.line({ type: 'tools-used', tools: [tool], sessionId: p.id });
  const cacheWrite = rng.int(150, 4000);
  const usage = { input_tokens: rng.int(3, 40), cache_creation_input_tokens: cacheWrite, cache_read_input_tokens: s.context, output_tokens: rng.size(220, 8000) };
  const at = s.timeMs + rng.int(1500, 25_000);
  const message = { id: `msg_01${rng.hex(22)}`, type: 'message', role: 'assistant', model: p.model, stop_reason: tool ? 'tool_use' : 'end_turn', stop_sequence: null, usage: { ...usage, service_tier: 'standard', cache_creation: { ephemeral_5m_input_tokens: cacheWrite, ephemeral_1h_input_tokens: 0 } } };
  const requestId = `req_011C${rng.hex(20)}`;
  const blocks: unknown[] = [];
  if (rng.chance(0.35)) blocks.push({ type: 'thinking', thinking: text(rng, rng.size(600, 6000)), signature: rng.hex(400) });
  const input = tool ? toolInput(rng, tool, p.cwd) : {};
  const callId = `toolu_01${rng.hex(22)}`;
  blocks.push(tool ? { type: 'tool_use', id: callId, name: tool, input } : { type: 'text', text: text(rng, rng.size(400, 4000)) });
  let assistant = '';
  for (const [i, block] of blocks.entries()) assistant = row(l, at + i * 3, { message: { ...message, content: [block] }, requestId, type: 'assistant' });
  addTruth(truth, at, p.model, { input: usage.input_tokens, output: usage.output_tokens, cacheRead: usage.cache_read_input_tokens, cacheWrite, reasoning: 0 });
  l.w.line({ type: 'last-prompt', lastPrompt: s.echo.slice(0, 200), leafUuid: assistant, sessionId: p.id });
  if (!tool) return { timeMs: at, echo: '' };
  const r = toolResult(rng, tool, input);
  const done = at + rng.int(80, 6000);
  row(l, done, { type: 'user', message: { role: 'user', content: [{ tool_use_id: callId, type: 'tool_result', content: r.content, ...(r.isError ? { is_error: true } : {}) }] }, toolUseResult: r.kept, sourceToolAssistantUUID: assistant });
  row(l, done + 10, { attachment: { type: 'total_tokens_reminder', text: `<total_tokens>${15_000_000 - s.context} tokens left</total_tokens>` }, type: 'attachment' });
  return { timeMs: done, echo: r.content.slice(0, 4000) };
}

/** Writes the session's transcript; its calls go into `truth`. Returns the bytes written. */
export function writeClaudeSession(path: string, rng: Rng, p: SessionPlan, truth: Truth): number {
  const l: Line = { w: new JsonlWriter(path), rng, base: { userType: 'external', entrypoint: 'cli', cwd: p.cwd, sessionId: p.id, version: VERSION, gitBranch: 'main' }, parent: null };
  prompt(l, p, p.startMs);
  sessionStart(l, p, [1400, 600, 1400, 4300, 13_600, 28_000]);
  let timeMs = p.startMs + 200;
  let context = rng.int(12_000, 20_000);
  let echo = '';
  for (let left = p.calls; left > 0; ) {
    const calls = Math.min(left, rng.int(2, 14));
    left -= calls;
    if (left + calls < p.calls) {
      timeMs += rng.int(20_000, 300_000); // the user reads, then types the next prompt
      prompt(l, p, timeMs);
    }
    for (let k = 0; k < calls; k++) {
      ({ timeMs, echo } = modelCall(l, p, { timeMs, context, last: k === calls - 1, echo }, truth));
      context = Math.min(context + rng.int(300, 4000), 180_000);
    }
  }
  l.w.line({ type: 'cost-state', sessionId: p.id, totalCostUSD: 0, startTime: p.startMs, hasUnknownModelCost: false });
  l.w.close();
  return l.w.bytes;
}
