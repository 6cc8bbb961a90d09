import type Database from 'better-sqlite3';
import { HOOK_FAILED } from '../sources/hook-adapter';
import type { Check } from './doctor';

const DAY_NS = 86_400_000_000_000n;

/**
 * Beacon's hooks failing in the last 24 h, any agent's, from the log (both the collector and the
 * hook fallback write them): a pre-tool check that failed open (goose's `policy_evaluated: false`)
 * or a hook the agent reports as exited non-zero or unrunnable (goose's `execute_hook` span). A
 * failed-open check let a tool call run unchecked, so any is a warning. Log-wide, read on the time
 * index (issue 25); each other agent's doctor counts its own (agent-hook-events.ts).
 */
export function hookFailureCheck(db: Database.Database, nowNs: bigint): Check {
  const since = nowNs - DAY_NS;
  const row = db
    .prepare(`SELECT count(*) AS n, max(ts_ns) AS last FROM events INDEXED BY events_ts WHERE ts_ns >= ? AND action = ?`)
    .safeIntegers(true)
    .get(since, HOOK_FAILED) as { n: bigint; last: bigint | null };
  if (row.n === 0n) return { id: 'hook-failures', status: 'ok', message: "Beacon's hooks ran without a failure in the last 24 h" };
  const last = row.last === null ? '' : `, last ${new Date(Number(row.last / 1_000_000n)).toISOString()}`;
  const times = row.n === 1n ? 'once' : `${row.n} times`;
  return {
    id: 'hook-failures',
    status: 'warn',
    message: `your hooks failed ${times} in the last 24 h${last}: an event went unrecorded, or an agent ran a tool call without Beacon's pre-tool check`,
    fix: "beacon events --action hook.failed --since 1d (the causes); beacon doctor <agent> probes the launcher",
  };
}
