/**
 * beacon-hooks wall time per invocation, as goose pays it (a process per hook), against a bare
 * `node -e 0` measured in the same run, interleaved so machine noise hits both alike.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { HOOKS_BIN, tempDir } from '../test/helpers/paths';

function time(cmd: string, args: string[], input: string): number {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { input });
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr}`);
  return Number(process.hrtime.bigint() - t) / 1e6;
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

export async function benchHooks(runs = 40): Promise<Record<string, number>> {
  const log = join(tempDir('bench-hooks-'), 'events.db');
  const bare: number[] = [];
  const preTool: number[] = [];
  const postEdit: number[] = [];
  const hook = (sub: string, payload: object) => time(process.execPath, [HOOKS_BIN, '--platform', 'goose', '--log', log, '--config', '/nonexistent', sub], JSON.stringify(payload));
  hook('session-start', { event: 'SessionStart', session_id: 'bench' }); // creates the log: not measured
  for (let i = 0; i < runs; i++) {
    bare.push(time(process.execPath, ['-e', '0'], ''));
    preTool.push(hook('pre-tool', { event: 'PreToolUse', session_id: 'bench', tool_call_id: `c${i}`, tool_name: 'shell', tool_input: { command: 'cargo test' }, working_dir: process.cwd() }));
    postEdit.push(hook('post-tool', { event: 'PostToolUse', session_id: 'bench', tool_call_id: `e${i}`, tool_name: 'edit', tool_input: { path: 'src/lib.rs', before: 'fn old()', after: 'fn new()' }, working_dir: process.cwd() }));
  }
  const r = {
    bareNodeP50Ms: pct(bare, 0.5),
    hookPreToolP50Ms: pct(preTool, 0.5),
    hookPreToolP90Ms: pct(preTool, 0.9),
    hookPostEditP50Ms: pct(postEdit, 0.5),
  };
  console.log(
    `beacon-hooks (${runs} runs each, interleaved): bare node -e 0 p50 ${r.bareNodeP50Ms.toFixed(1)} ms; ` +
      `pre-tool p50 ${r.hookPreToolP50Ms.toFixed(1)} ms (p90 ${r.hookPreToolP90Ms.toFixed(1)}), ${(r.hookPreToolP50Ms / r.bareNodeP50Ms).toFixed(2)}× bare; ` +
      `post-tool edit p50 ${r.hookPostEditP50Ms.toFixed(1)} ms, ${(r.hookPostEditP50Ms / r.bareNodeP50Ms).toFixed(2)}× bare`,
  );
  return r;
}
