/**
 * The read commands a user runs every day (issue 33: token-usage --by day, sessions, plain doctor),
 * each as a ratio to a bare `node -e 0` started in the same rounds, on a log like a real one
 * (real-log.ts: four weeks of three agents' sessions, then a burst of real goose exports in the
 * current quarter hour) with the collector that wrote the burst still running, as a user has it.
 * goose is installed in the home (plugin and OTLP settings), so doctor checks it in full and runs
 * its hook launcher, as it does for a goose user.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchCacheDir } from './fixture';
import { serviceNodeArgs } from './footprint';
import { median } from './measure';
import { sendBurst, writeHistory } from './real-log';
import { startCollector } from '../test/helpers/daemon';
import { BEACON_BIN, tempDir } from '../test/helpers/paths';

const DAY_MS = 86_400_000;

/** `against`: another build's `dist/src/bin/beacon.js` (a checkout of main), timed in the same rounds on the same log: before and after, under the same load. */
export async function benchReadCommands(historyEvents = 40_000, burstExports = 200, rounds = 9, against?: string): Promise<Record<string, number>> {
  // The history is relative to now: a log built more than a day ago is rebuilt. Runs use a copy.
  const cached = join(benchCacheDir(), `real-${historyEvents}-v1.db`);
  if (existsSync(cached) && Date.now() - statSync(cached).mtimeMs > DAY_MS) for (const f of [cached, `${cached}-wal`, `${cached}-shm`]) if (existsSync(f)) unlinkSync(f);
  if (!existsSync(cached)) {
    const t = performance.now();
    const { sessions } = writeHistory(cached, Date.now(), historyEvents);
    console.log(`built a ${historyEvents.toLocaleString()}-event history of ${sessions} sessions in ${((performance.now() - t) / 1000).toFixed(1)} s (${cached}, reused for a day)`);
  }
  const home = tempDir('bench-read-home-');
  const log = join(tempDir('bench-read-log-'), 'events.db');
  copyFileSync(cached, log);
  const env = { ...process.env, HOME: home };
  const c = await startCollector({ log, env: { HOME: home }, nodeArgs: serviceNodeArgs() });
  try {
    mkdirSync(join(home, '.beacon', 'endpoint'), { recursive: true, mode: 0o700 });
    writeFileSync(join(home, '.beacon', 'endpoint', 'config.json'), JSON.stringify({ collector: { port: c.port } }), { mode: 0o600 });
    const installed = spawnSync(process.execPath, [BEACON_BIN, 'install', 'goose', '--configure-otlp', '--log', log], { env, encoding: 'utf8' });
    if (installed.status !== 0) throw new Error(`beacon install goose: ${installed.stderr}`);
    const burstEvents = await sendBurst(c.url, burstExports);
    const commands: [string, string[]][] = [
      ['token-usage --by day', ['token-usage', '--by', 'day', '--log', log]],
      ['sessions', ['sessions', '--log', log]],
      ['doctor', ['doctor', '--log', log]],
    ];
    // CPU seconds too (GNU time's user + system, the children it waited for included): wall time on a
    // shared 2-core machine moves with the others' load, a process's own CPU much less.
    const gnuTime = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
    const cpuFile = join(home, 'cpu.txt');
    const cpu = new Map<string, number[]>();
    const time = (args: string[], label = args[0] === '-e' ? 'bare' : args.join(' ')) => {
      const t = performance.now();
      const r = gnuTime
        ? spawnSync(gnuTime, ['-f', '%U %S', '-o', cpuFile, process.execPath, ...args], { env, encoding: 'utf8' })
        : spawnSync(process.execPath, args, { env, encoding: 'utf8' });
      const ms = performance.now() - t;
      if (args[0] !== '-e' && (r.status !== 0 || r.stdout.length === 0)) throw new Error(`beacon ${args.slice(1).join(' ')} exited ${r.status}: ${r.stdout}${r.stderr}`);
      if (gnuTime) cpu.set(label, [...(cpu.get(label) ?? []), readFileSync(cpuFile, 'utf8').trim().split(/\s+/).slice(-2).reduce((a, x) => a + Number(x) * 1000, 0)]);
      return ms;
    };
    const cpuOf = (args: string[]) => median(cpu.get(args.join(' ')) ?? [NaN]);
    time([BEACON_BIN, ...commands[0]![1]]); // the first reader after the burst: nothing left to migrate or warm in the file cache
    // doctor runs goose's hook launcher (`--version`, a second Node.js start): bare node plus it is doctor's floor
    const launcher = join(home, '.beacon', 'endpoint', 'bin', 'beacon-hooks');
    const timeLauncher = () => {
      const t = performance.now();
      const r = spawnSync('sh', ['-c', `'${launcher}' --version`], { env, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`${launcher} --version: ${r.stderr}`);
      return performance.now() - t;
    };
    const launcherRuns: number[] = [];
    const bare: number[] = [];
    const runs = commands.map(() => [] as number[]);
    const before = commands.map(() => [] as number[]);
    for (let round = 0; round < rounds; round++) {
      bare.push(time(['-e', '0']));
      launcherRuns.push(timeLauncher());
      commands.forEach(([, args], i) => runs[i]!.push(time([BEACON_BIN, ...args])));
      if (against) commands.forEach(([, args], i) => before[i]!.push(time([against, ...args])));
    }
    const out: Record<string, number> = { realReadBareNodeP50Ms: median(bare), realLauncherVersionP50Ms: median(launcherRuns) };
    const parts = commands.map(([name], i) => {
      const ms = median(runs[i]!);
      const key = name.split(' ')[0]!.replace('-', '_');
      out[`real_${key}_ms`] = ms;
      out[`real_${key}_ratio`] = ms / out.realReadBareNodeP50Ms!;
      out[`real_${key}_cpu_ratio`] = cpuOf([BEACON_BIN, ...commands[i]![1]]) / cpuOf(['bare']);
      return `${name} ${ms.toFixed(0)} ms = ${(ms / out.realReadBareNodeP50Ms!).toFixed(2)}× (CPU ${out[`real_${key}_cpu_ratio`]!.toFixed(2)}×)`;
    });
    const beforeParts = !against ? [] : commands.map(([name], i) => {
      const ms = median(before[i]!);
      out[`against_${name.split(' ')[0]!.replace('-', '_')}_ratio`] = ms / out.realReadBareNodeP50Ms!;
      return `${name} ${ms.toFixed(0)} ms = ${(ms / out.realReadBareNodeP50Ms!).toFixed(2)}× (CPU ${(cpuOf([against!, ...commands[i]![1]]) / cpuOf(['bare'])).toFixed(2)}×)`;
    });
    console.log(
      `read commands on a real-shaped log (${historyEvents.toLocaleString()} events over 28 days + a burst of ${burstExports} goose exports = ${burstEvents.toLocaleString()} events in the last minutes; collector running; goose installed; ${rounds} interleaved rounds, medians) vs bare node -e 0 ${out.realReadBareNodeP50Ms!.toFixed(0)} ms (CPU ${cpuOf(['bare']).toFixed(0)} ms): ${parts.join('; ')}` +
        `\n  doctor's floor, bare node then the hook launcher it runs (${out.realLauncherVersionP50Ms!.toFixed(0)} ms): ${((out.realReadBareNodeP50Ms! + out.realLauncherVersionP50Ms!) / out.realReadBareNodeP50Ms!).toFixed(2)}×` +
        (against ? `\n  the same rounds, ${against}: ${beforeParts.join('; ')}` : ''),
    );
    return out;
  } finally {
    await c.stop();
  }
}
