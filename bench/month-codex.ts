/**
 * One Codex session as its rollout file (`~/.codex/sessions/YYYY/MM/DD/rollout-<start>-<id>.jsonl`),
 * in the record shapes Codex 0.171.0 writes (the lab's own run of it): the session's meta with its
 * base instructions, per turn the task start, turn context and the user's message, per model call
 * an encrypted reasoning item (most calls), the shell call, its `token_usage_record`, the command's
 * completion and output, and the cumulative `token_count` event; the turn's last call its message.
 */
import { addTruth, JsonlWriter, text, type Rng, type SessionPlan, type Truth } from './month-lines';

type Usage = { input_tokens: number; cached_input_tokens: number; cache_write_input_tokens: number; output_tokens: number; reasoning_output_tokens: number; total_tokens: number };
const zero = (): Usage => ({ input_tokens: 0, cached_input_tokens: 0, cache_write_input_tokens: 0, output_tokens: 0, reasoning_output_tokens: 0, total_tokens: 0 });
const plus = (a: Usage, b: Usage): Usage => ({
  input_tokens: a.input_tokens + b.input_tokens, cached_input_tokens: a.cached_input_tokens + b.cached_input_tokens, cache_write_input_tokens: 0,
  output_tokens: a.output_tokens + b.output_tokens, reasoning_output_tokens: a.reasoning_output_tokens + b.reasoning_output_tokens, total_tokens: a.total_tokens + b.total_tokens,
});

const COMMANDS = ['cargo test', 'npm test', 'rg -n "TODO" src', 'sed -n 1,200p src/main.rs', 'git diff', 'ls -la', 'python -m pytest -q', 'cat package.json'];

interface Rollout {
  w: JsonlWriter;
  rng: Rng;
  p: SessionPlan;
  ordinal: number;
  thread: Usage;
  turnId: string;
}

function rec(r: Rollout, timeMs: number, type: string, payload: Record<string, unknown>): void {
  r.w.line({ timestamp: new Date(timeMs).toISOString(), ordinal: r.ordinal++, type, payload });
}

function turnStart(r: Rollout, timeMs: number, first: boolean): void {
  const { rng, p } = r;
  r.turnId = rng.uuid();
  rec(r, timeMs, 'event_msg', { type: 'task_started', turn_id: r.turnId, root_turn_id: r.turnId, trace_id: rng.hex(32), started_at: Math.floor(timeMs / 1000), model_context_window: 258400, collaboration_mode_kind: 'default' });
  if (first) {
    rec(r, timeMs + 20, 'response_item', { type: 'message', id: `msg_${rng.uuid()}`, role: 'developer', content: [{ type: 'input_text', text: text(rng, 2100) }, { type: 'input_text', text: text(rng, 360) }] });
    rec(r, timeMs + 20, 'response_item', { type: 'message', id: `msg_${rng.uuid()}`, role: 'user', content: [{ type: 'input_text', text: `<environment_context>\n  <cwd>${p.cwd}</cwd>\n  <shell>bash</shell>\n</environment_context>` }] });
    rec(r, timeMs + 21, 'world_state', { full: true, state: { model: p.model, environments: { environments: { local: { cwd: p.cwd, status: 'available', shell: 'bash' } } }, host_skills: { body: text(rng, 2100), includeInstructions: true } } });
  }
  rec(r, timeMs + 22, 'turn_context', { turn_id: r.turnId, root_turn_id: r.turnId, cwd: p.cwd, approval_policy: 'on-request', model: p.model, collaboration_mode: { mode: 'default', settings: { model: p.model, reasoning_effort: 'medium' } }, summary: 'auto', sandbox_policy: { type: 'workspace-write' } });
  if (first) rec(r, timeMs + 22, 'event_msg', { type: 'thread_settings_applied', thread_id: p.id, thread_settings: { model: p.model, model_provider_id: 'openai', approval_policy: 'on-request', cwd: p.cwd } });
  const prompt = text(rng, rng.size(160, 4000));
  rec(r, timeMs + 30, 'response_item', { type: 'message', id: `msg_${rng.uuid()}`, role: 'user', content: [{ type: 'input_text', text: prompt }] });
  rec(r, timeMs + 30, 'event_msg', { type: 'item_completed', thread_id: p.id, turn_id: r.turnId, item: { type: 'UserMessage', id: rng.uuid(), content: [{ type: 'text', text: prompt, text_elements: [] }] } });
}

/** One model call (a shell call, or the turn's closing message); returns when it ended. */
function modelCall(r: Rollout, s: { timeMs: number; context: number; last: boolean; turn: Usage }, truth: Truth): { timeMs: number; turn: Usage } {
  const { rng, p } = r;
  const at = s.timeMs + rng.int(1500, 25_000);
  const responseId = `resp_${rng.hex(48)}`;
  const cached = s.context;
  const output = rng.size(260, 9000);
  const reasoning = Math.round(output * rng.next() * 0.7);
  const usage: Usage = { input_tokens: cached + rng.int(200, 3000), cached_input_tokens: cached, cache_write_input_tokens: 0, output_tokens: output, reasoning_output_tokens: reasoning, total_tokens: 0 };
  usage.total_tokens = usage.input_tokens + usage.output_tokens;
  const turn = plus(s.turn, usage);
  r.thread = plus(r.thread, usage);
  addTruth(truth, at, p.model, { input: usage.input_tokens - cached, output, cacheRead: cached, cacheWrite: 0, reasoning });
  if (rng.chance(0.6)) rec(r, at - 5, 'response_item', { type: 'reasoning', id: `rs_${rng.hex(48)}`, summary: [], content: null, encrypted_content: Buffer.from(rng.hex(rng.size(1200, 12_000))).toString('base64') });
  const callId = `call_${rng.hex(24)}`;
  const cmd = rng.pick(COMMANDS);
  if (s.last) {
    const message = text(rng, rng.size(500, 5000));
    rec(r, at, 'event_msg', { type: 'item_completed', thread_id: p.id, turn_id: r.turnId, item: { type: 'AgentMessage', id: `msg_${responseId}`, content: [{ type: 'Text', text: message }] } });
    rec(r, at, 'response_item', { type: 'message', status: 'completed', id: `msg_${responseId}`, role: 'assistant', content: [{ type: 'output_text', text: message, annotations: [] }] });
  } else rec(r, at, 'response_item', { type: 'function_call', status: 'completed', id: `fc_${responseId}`, name: 'exec_command', arguments: JSON.stringify({ cmd, workdir: p.cwd }), call_id: callId });
  rec(r, at + 2, 'token_usage_record', { thread_id: p.id, turn_id: r.turnId, session_id: p.id, root_turn_id: r.turnId, response_id: responseId, usage, turn_token_usage: turn, thread_token_usage: r.thread });
  let done = at + 3;
  if (!s.last) {
    done = at + rng.int(50, 20_000);
    const exit = rng.chance(0.12) ? 1 : 0;
    const out = text(rng, rng.size(500, 30_000));
    rec(r, done, 'event_msg', { type: 'item_completed', thread_id: p.id, turn_id: r.turnId, item: { type: 'CommandExecution', id: callId, command: ['/bin/bash', '-lc', cmd], cwd: `file://${p.cwd}`, status: exit ? 'failed' : 'completed', aggregated_output: out, exit_code: exit, duration: { secs: Math.floor((done - at) / 1000), nanos: ((done - at) % 1000) * 1e6 } } });
    rec(r, done + 2, 'response_item', { type: 'function_call_output', id: `fco_${rng.uuid()}`, call_id: callId, output: `Chunk ID: ${rng.hex(6)}\nWall time: ${((done - at) / 1000).toFixed(4)} seconds\nProcess exited with code ${exit}\nOutput:\n${out}` });
  }
  rec(r, done + 3, 'event_msg', { type: 'token_count', info: { total_token_usage: r.thread, last_token_usage: usage, last_usage_includes_reasoning: false, model_context_window: 258400 }, rate_limits: { limit_id: 'codex', primary: { used_percent: rng.int(1, 90), window_minutes: 300 }, secondary: null } });
  return { timeMs: done + 3, turn };
}

/** Writes the session's rollout; its calls go into `truth`. Returns the bytes written. */
export function writeCodexSession(path: string, rng: Rng, p: SessionPlan, truth: Truth): number {
  const r: Rollout = { w: new JsonlWriter(path), rng, p, ordinal: 0, thread: zero(), turnId: '' };
  rec(r, p.startMs, 'session_meta', { session_id: p.id, id: p.id, timestamp: new Date(p.startMs).toISOString(), cwd: p.cwd, originator: 'codex_cli_rs', cli_version: '0.171.0', source: 'cli', model_provider: 'openai', base_instructions: { text: text(rng, 20_700) } });
  let timeMs = p.startMs;
  let context = rng.int(8000, 14_000);
  for (let left = p.calls, first = true; left > 0; first = false) {
    const calls = Math.min(left, rng.int(2, 14));
    left -= calls;
    if (!first) timeMs += rng.int(20_000, 300_000);
    turnStart(r, timeMs, first);
    let turn = zero();
    for (let k = 0; k < calls; k++) {
      ({ timeMs, turn } = modelCall(r, { timeMs, context, last: k === calls - 1, turn }, truth));
      context = Math.min(context + rng.int(300, 4000), 240_000);
    }
    rec(r, timeMs + 5, 'event_msg', { type: 'task_complete', turn_id: r.turnId, root_turn_id: r.turnId, last_agent_message: '', duration_ms: 0 });
  }
  r.w.close();
  return r.w.bytes;
}
