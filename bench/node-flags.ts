/**
 * What each of the daemon's Node options costs and buys at saturation (src/config/node-flags.ts):
 * the service's options against the same without `--heap-growing-percent`, alternated round by
 * round on the same machine, 8 connections of 100-span goose exports each; peak RSS is VmHWM.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { startCollector } from '../test/helpers/daemon';
import { serviceNodeArgs } from './footprint';
import { median, memoryMb } from './measure';


async function saturate(nodeArgs: string[], start: number): Promise<{ spansPerSec: number; peakMb: number }> {
  const c = await startCollector({ nodeArgs });
  const r = spawnSync(process.execPath, [join(__dirname, 'loadgen.js'), '--url', c.url, '--seconds', '6', '--connections', '8', '--start', String(start)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  const peakMb = memoryMb(c.proc.pid!).hwm;
  await c.stop();
  return { spansPerSec: (JSON.parse(r.stdout.trim()) as { spansPerSec: number }).spansPerSec, peakMb };
}

export async function benchNodeFlags(): Promise<Record<string, number>> {
  const service = serviceNodeArgs();
  const without = service.filter((a) => !a.startsWith('--heap-growing-percent'));
  const runs = { service: [] as { spansPerSec: number; peakMb: number }[], without: [] as { spansPerSec: number; peakMb: number }[] };
  for (let round = 0; round < 3; round++) {
    runs.service.push(await saturate(service, 80_000_000 + round * 10_000));
    runs.without.push(await saturate(without, 90_000_000 + round * 10_000));
  }
  const m = (k: 'service' | 'without', f: 'spansPerSec' | 'peakMb') => median(runs[k].map((r) => r[f]));
  const out = { flagsSpansPerSec: m('service', 'spansPerSec'), flagsPeakMb: m('service', 'peakMb'), noGrowthFlagSpansPerSec: m('without', 'spansPerSec'), noGrowthFlagPeakMb: m('without', 'peakMb') };
  console.log(
    `node options at saturation (3 alternated rounds of 6 s, medians): ${service.join(' ')} ${out.flagsSpansPerSec.toFixed(0)} spans/s, peak ${out.flagsPeakMb.toFixed(1)} MB; ` +
      `${without.join(' ')} ${out.noGrowthFlagSpansPerSec.toFixed(0)} spans/s, peak ${out.noGrowthFlagPeakMb.toFixed(1)} MB ` +
      `(= ${(out.flagsSpansPerSec / out.noGrowthFlagSpansPerSec).toFixed(2)}× the throughput, ${(out.flagsPeakMb / out.noGrowthFlagPeakMb).toFixed(2)}× the peak)`,
  );
  return out;
}
