/**
 * Issue 25's table, printed at the end of `npm run bench` from this run's figures: each row as
 * measured, beside its same-run baseline and its goal. A row whose section did not run says so.
 */
type Results = Record<string, number | undefined>;

const f = (n: number | undefined, d = 1) => (n === undefined || !Number.isFinite(n) ? '—' : n.toFixed(d));
const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : a / b);

export function printIssue25Table(r: Results): void {
  const rows: [string, string, string, string][] = [
    [
      'collector RSS (threads warm)',
      `as the service runs it: idle ${f(r.footprintIdleRssMb)} MB, threads up ${f(r.threadsUpRssMb)} MB, after 20 exports ${f(r.afterWorkRssMb)} MB (3 s) / ${f(r.afterWorkSettledRssMb)} MB (12 s); peak under load ${f(r.peakRssMb)} MB (by hand: ${f(r.byHandIdleRssMb)} / ${f(r.byHandThreadsUpRssMb)} / ${f(r.byHandAfterWorkRssMb)} MB)`,
      `bare node ${f(r.bareNodeRssMb)} MB, + 2 empty worker threads ${f(r.bareNodeTwoWorkersRssMb)} MB; the design card's libraries loaded and listening, no Beacon code ${f(r.designCardFloorRssMb)} MB, + one SQLite worker thread ${f(r.designCardWriterFloorRssMb)} MB`,
      '≤ 60 MB with the threads up, after work too; ≤ 120 MB at saturation',
    ],
    [
      'peak RSS and throughput by Node option',
      `service options: ${f(r.flagsPeakMb)} MB peak, ${f(r.flagsSpansPerSec, 0)} spans/s = ${f(ratio(r.flagsPeakMb, r.noGrowthFlagPeakMb), 2)}× the peak, ${f(ratio(r.flagsSpansPerSec, r.noGrowthFlagSpansPerSec), 2)}× the throughput`,
      `without --heap-growing-percent: ${f(r.noGrowthFlagPeakMb)} MB, ${f(r.noGrowthFlagSpansPerSec, 0)} spans/s (alternated rounds)`,
      'the trade, shown',
    ],
    [
      'an export while the dashboard is in use',
      `p50 ${f(r.exportDuringPagesP50Ms)} ms during page loads (page p50 ${f(r.pageP50Ms, 0)} ms) = ${f(ratio(r.exportDuringPagesP50Ms, r.exportAloneP50Ms), 2)}×`,
      `p50 ${f(r.exportAloneP50Ms)} ms alone`,
      '≤ 1.5×',
    ],
    [
      'read commands, 40k-event log',
      `doctor ${f(r.read_doctor_ratio, 2)}×, token-usage --by day ${f(r.read_token_usage_ratio, 2)}×, sessions ${f(r.read_sessions_ratio, 2)}×, events --limit 50 ${f(r.read_events_ratio, 2)}×`,
      `bare node -e 0 ${f(r.readBareNodeP50Ms, 0)} ms; doctor's floor, bare node then the hook launcher it runs (${f(r.launcherVersionP50Ms, 0)} ms): ${f(ratio((r.readBareNodeP50Ms ?? 0) + (r.launcherVersionP50Ms ?? NaN), r.readBareNodeP50Ms), 2)}×`,
      '≤ 2× each',
    ],
    ['token-usage, 1M events (whole command)', `${f(r.tokenUsageCliMs, 0)} ms`, `query alone ${f(r.tokenUsageQueryMs, 0)} ms`, '≤ 300 ms'],
    [
      'fallback hook (collector stopped)',
      `p50 ${f(r.fallbackHookP50Ms)} ms = ${f(ratio(r.fallbackHookP50Ms, r.bareNodeP50MsFallbackRun), 2)}×`,
      `bare node -e 0 p50 ${f(r.bareNodeP50MsFallbackRun)} ms`,
      '≤ 1.3×',
    ],
    [
      'ingest at saturation (8 connections)',
      `${f(r.spansPerSec, 0)} spans/s = ${f(ratio(r.spansPerSec, r.insertCeilingSpansPerSec), 2)}× the insert ceiling; p99 ${f(r.p99Ms)} ms, at half load ${f(r.halfP99Ms)} ms; the collector got ${f(r.saturationCollectorCores, 2)} cores (load average ${f(r.saturationLoadAvg)})`,
      `insert ceiling ${f(r.insertCeilingSpansPerSec, 0)} spans/s = ${f(ratio(r.insertRowsPerSec, r.insertNoIndexRowsPerSec), 2)}× SQLite inserting the same values with no key or index`,
      '≥ 0.8×; p99 ≤ 50 ms at half load',
    ],
    ['forwarding live to both destinations', `${f(r.ingest_ratio_with_forwarding, 2)}× the ingest without`, 'same run, forwarding off', '≥ 0.85×'],
  ];
  console.log('\nissue 25 (same-run ratios; on a shared machine, read each row against its baseline, not across runs):');
  for (const [what, now, base, goal] of rows) console.log(`  ${what.padEnd(40)} ${now}\n  ${''.padEnd(40)} baseline: ${base}; goal: ${goal}`);
}
