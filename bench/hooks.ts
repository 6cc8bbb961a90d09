/**
 * beacon-hooks wall time per invocation, as goose pays it (a process per hook), against a bare
 * `node -e 0` measured in the same run, interleaved so machine noise hits both alike.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { AGENT_HOOKS, hookInstallTree, installedHookCommand, type AgentHooks } from '../test/helpers/agent-hook-payloads';
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
 * The hook command each agent runs, as `beacon install <agent>` writes it and the agent runs it
 * (`sh -c`, the payload on stdin): the fast path through a running collector, one row per agent
 * (its pre-tool event: the one the agent waits for), against a bare `sh -c 'curl …'` POST of the
 * same payload to the same route (the collector's own work in both), interleaved A/B in the same
 * run so the machine's load hits both alike. Beside them Claude Code's `type: "http"` hook: no
 * process at all, the request alone (Claude keeps its connection alive), against the same curl.
 * Then the fallback (collector stopped) against a bare `node -e 0`.
 */
export async function benchHookLauncher(runs = 60): Promise<Record<string, number>> {
  const tree = hookInstallTree(process.execPath);
  const c = await startCollector({ log: tree.log });
  const token = readFileSync(join(tree.base, 'hook-token'), 'utf8').trim().split(': ')[1]!;
  const bareCurl = (path: string) => `curl -s --noproxy '*' -H @'${join(tree.base, 'hook-token')}' -H 'Content-Type: application/json' -H 'X-Beacon-Log: ${tree.log}' --data-binary @- ${c.url}/v1/hooks/${path}`;
  const rows = AGENT_HOOKS.map((a) => ({ agent: a, hook: installedHookCommand(tree, a.platform, a.pre[0]), bare: bareCurl(`${a.platform}/${a.pre[0]}`), hookMs: [] as number[], bareMs: [] as number[] }));
  const payload = (a: AgentHooks, i: number) => JSON.stringify(a.pre[1]('cargo test', `bench_${i}`));
  // The first hook after a start finds the writer and checkpointer threads not yet running (as after
  // 15 idle minutes): timed apart, with what the two threads cost in RSS; the runs below are warm.
  const rssMb = () => memoryMb(c.proc.pid!).rss;
  const idleRssMb = rssMb();
  const goose = rows[0]!;
  const coldHookMs = time('sh', ['-c', goose.hook], payload(goose.agent, -1));
  const warmRssMb = rssMb();
  // a refused or fallen-back hook answers fast too: check every one is recorded by the collector
  const before = await hooksReceived(c.url);
  for (const r of rows) {
    const answer = spawnSync('sh', ['-c', r.hook], { input: payload(r.agent, -2), encoding: 'utf8' });
    if (answer.status !== 0 || answer.stderr !== '') throw new Error(`${r.agent.platform}'s hook did not answer: ${answer.stderr}`);
  }
  if ((await hooksReceived(c.url)) !== before + rows.length) throw new Error('a hook was not recorded on the fast path');
  const claude = rows.find((r) => r.agent.platform === 'claude-code')!;
  const http = new Agent({ keepAlive: true });
  const httpMs: number[] = [];
  const httpBareMs: number[] = [];
  for (let i = 0; i < runs; i++) {
    for (const r of rows) {
      r.bareMs.push(time('sh', ['-c', r.bare], payload(r.agent, i)));
      r.hookMs.push(time('sh', ['-c', r.hook], payload(r.agent, i)));
    }
    httpBareMs.push(time('sh', ['-c', claude.bare], payload(claude.agent, runs + i)));
    httpMs.push(await postHook(http, `${c.url}/v1/hooks/claude-code/PreToolUse`, token, tree.log, payload(claude.agent, 2 * runs + i)));
  }
  http.destroy();
  await c.stop();
  const bareNode: number[] = [];
  const fallback: number[] = [];
  for (let i = 0; i < Math.min(runs, 40); i++) {
    bareNode.push(time(process.execPath, ['-e', '0'], ''));
    fallback.push(time('sh', ['-c', goose.hook], payload(goose.agent, 3 * runs + i)));
  }
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const r: Record<string, number> = { coldHookMs, idleRssMb, warmRssMb, hookBenchLoadAvg: Number(load.split(' ')[0]) };
  console.log(`hook fast path per agent, the command \`beacon install\` writes run as the agent runs it (sh -c), its pre-tool event, against a bare sh -c 'curl …' POST of the same payload to the same route, ${runs} runs each, interleaved (load average ${load} on ${cpus().length} cores):`);
  for (const row of rows) {
    const key = row.agent.platform.replace(/-(.)/g, (_m, ch: string) => ch.toUpperCase());
    const [h50, h99, b50, b99] = [pct(row.hookMs, 0.5), pct(row.hookMs, 0.99), pct(row.bareMs, 0.5), pct(row.bareMs, 0.99)];
    Object.assign(r, { [`${key}HookP50Ms`]: h50, [`${key}HookP99Ms`]: h99, [`${key}BareCurlP50Ms`]: b50, [`${key}BareCurlP99Ms`]: b99, [`${key}HookRatio`]: h50 / b50 });
    console.log(`  ${row.agent.platform.padEnd(12)} ${row.agent.pre[0].padEnd(20)} p50 ${h50.toFixed(1)} ms, p99 ${h99.toFixed(1)} ms vs bare curl p50 ${b50.toFixed(1)} ms, p99 ${b99.toFixed(1)} ms = ${(h50 / b50).toFixed(2)}× (p99 ${(h99 / b99).toFixed(2)}×)`);
  }
  const [x50, x99, y50, y99] = [pct(httpMs, 0.5), pct(httpMs, 0.99), pct(httpBareMs, 0.5), pct(httpBareMs, 0.99)];
  Object.assign(r, { claudeHttpHookP50Ms: x50, claudeHttpHookP99Ms: x99, claudeHttpBareCurlP50Ms: y50, claudeHttpHookRatio: x50 / y50 });
  console.log(`  claude-code  type: "http" (no process: the POST alone, keep-alive) p50 ${x50.toFixed(1)} ms, p99 ${x99.toFixed(1)} ms vs bare curl p50 ${y50.toFixed(1)} ms, p99 ${y99.toFixed(1)} ms = ${(x50 / y50).toFixed(2)}× (p99 ${(x99 / y99).toFixed(2)}×)`);
  Object.assign(r, {
    bareNodeP50MsFallbackRun: pct(bareNode, 0.5), bareNodeP90MsFallbackRun: pct(bareNode, 0.9),
    fallbackHookP50Ms: pct(fallback, 0.5), fallbackHookP90Ms: pct(fallback, 0.9),
  });
  console.log(
    `  fallback (collector stopped, goose) p50 ${r.fallbackHookP50Ms!.toFixed(1)} ms, p90 ${r.fallbackHookP90Ms!.toFixed(1)} ms vs bare node -e 0 p50 ${r.bareNodeP50MsFallbackRun!.toFixed(1)} ms = ${(r.fallbackHookP50Ms! / r.bareNodeP50MsFallbackRun!).toFixed(2)}× (p90 ${(r.fallbackHookP90Ms! / r.bareNodeP90MsFallbackRun!).toFixed(2)}×); ` +
      `the first hook after the collector starts (its threads not yet running) ${coldHookMs.toFixed(1)} ms, collector RSS ${idleRssMb.toFixed(1)} → ${warmRssMb.toFixed(1)} MB with them`,
  );
  return r;
}

async function hooksReceived(url: string): Promise<number> {
  return ((await (await fetch(`${url}/health`)).json()) as { hooks: { received: number } }).hooks.received;
}

/** One POST as Claude Code's http hook sends it (its headers, a kept-alive connection), timed to the end of the reply. */
function postHook(agent: Agent, url: string, token: string, log: string, body: string): Promise<number> {
  const t = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-beacon-hook-token': token, 'x-beacon-log': log } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(Number(process.hrtime.bigint() - t) / 1e6) : reject(new Error(`http hook: ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}
