/**
 * beacon-hooks wall time per invocation, as goose pays it (a process per hook), against a bare
 * `node -e 0` measured in the same run, interleaved so machine noise hits both alike.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { hookCommandLine } from '../src/setup/hooks-file';
import { renderLauncher } from '../src/setup/launcher';
import { startCollector } from '../test/helpers/daemon';
import { HOOKS_BIN, tempDir } from '../test/helpers/paths';
import { memoryMb } from './measure';

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

/**
 * The launcher goose runs, as goose runs it (`sh -c`, payload on stdin): the fast path through a
 * running collector against a bare `sh -c 'curl …'` POST of the same payload, and the fallback
 * (collector stopped) against a bare `node -e 0`, each pair interleaved in the same run.
 */
export async function benchHookLauncher(runs = 40): Promise<Record<string, number>> {
  const dir = tempDir('bench-launcher-');
  const log = join(dir, 'events.db');
  const c = await startCollector({ log });
  // where install puts it: the hook command sources it only under directories of the user's alone
  const launcher = join(dir, 'endpoint', 'bin', 'beacon-hooks');
  mkdirSync(dirname(launcher), { recursive: true, mode: 0o700 });
  writeFileSync(launcher, renderLauncher(process.execPath, HOOKS_BIN), { mode: 0o755 });
  // the command line `beacon install goose` writes into hooks.json, run as goose runs it
  const hookCmd = hookCommandLine(launcher, log, '/nonexistent', 'pre-tool');
  const curlCmd = `curl -s -o /dev/null --noproxy '*' -H 'Content-Type: application/json' --data-binary @- ${c.url}/health`;
  const payload = (i: number) => JSON.stringify({ event: 'PreToolUse', session_id: 'bench', tool_call_id: `f${i}`, tool_name: 'developer__shell', tool_input: { command: 'cargo test' }, working_dir: dir });
  const bareCurl: number[] = [];
  const fast: number[] = [];
  // The first hook after a start finds the writer and checkpointer threads not yet running (as after
  // 15 idle minutes): timed apart, with what the two threads cost in RSS; the runs below are warm.
  const rssMb = () => memoryMb(c.proc.pid!).rss;
  const idleRssMb = rssMb();
  const coldHookMs = time('sh', ['-c', hookCmd], payload(-1));
  // a refused launcher answers fast too (exit 0, nothing said): only a recorded hook is timed
  const answer = spawnSync('sh', ['-c', hookCmd], { input: payload(-2), encoding: 'utf8' });
  if (answer.stdout !== '{"decision":"allow"}') throw new Error(`the hook did not answer: ${answer.stderr}`);
  const warmRssMb = rssMb();
  for (let i = 0; i < runs; i++) {
    bareCurl.push(time('sh', ['-c', curlCmd], payload(i)));
    fast.push(time('sh', ['-c', hookCmd], payload(i)));
  }
  await c.stop();
  const bareNode: number[] = [];
  const fallback: number[] = [];
  for (let i = 0; i < runs; i++) {
    bareNode.push(time(process.execPath, ['-e', '0'], ''));
    fallback.push(time('sh', ['-c', hookCmd], payload(runs + i)));
  }
  const r = {
    bareCurlP50Ms: pct(bareCurl, 0.5), bareCurlP90Ms: pct(bareCurl, 0.9),
    fastHookP50Ms: pct(fast, 0.5), fastHookP90Ms: pct(fast, 0.9),
    bareNodeP50MsFallbackRun: pct(bareNode, 0.5), bareNodeP90MsFallbackRun: pct(bareNode, 0.9),
    fallbackHookP50Ms: pct(fallback, 0.5), fallbackHookP90Ms: pct(fallback, 0.9),
    coldHookMs, idleRssMb, warmRssMb,
  };
  console.log(
    `hook launcher, sh -c as goose runs it (${runs} runs each, interleaved): fast path p50 ${r.fastHookP50Ms.toFixed(1)} ms, p90 ${r.fastHookP90Ms.toFixed(1)} ms ` +
      `vs bare sh+curl p50 ${r.bareCurlP50Ms.toFixed(1)} ms, p90 ${r.bareCurlP90Ms.toFixed(1)} ms = ${(r.fastHookP50Ms / r.bareCurlP50Ms).toFixed(2)}× (p90 ${(r.fastHookP90Ms / r.bareCurlP90Ms).toFixed(2)}×); ` +
      `fallback (collector stopped) p50 ${r.fallbackHookP50Ms.toFixed(1)} ms, p90 ${r.fallbackHookP90Ms.toFixed(1)} ms vs bare node -e 0 p50 ${r.bareNodeP50MsFallbackRun.toFixed(1)} ms = ${(r.fallbackHookP50Ms / r.bareNodeP50MsFallbackRun).toFixed(2)}× (p90 ${(r.fallbackHookP90Ms / r.bareNodeP90MsFallbackRun).toFixed(2)}×); ` +
      `the first hook after the collector starts (its threads not yet running) ${coldHookMs.toFixed(1)} ms, collector RSS ${idleRssMb.toFixed(1)} → ${warmRssMb.toFixed(1)} MB with them`,
  );
  return r;
}
