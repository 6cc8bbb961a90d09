import type { Check } from './doctor';

const DAY_NS = 86_400_000_000_000n;

/** Where the window hookFailureCheck judges starts: 24 h before now. */
export const hookFailureWindowStart = (nowNs: bigint): bigint => nowNs - DAY_NS;

/**
 * Beacon's hooks failing in the last 24 h, any agent's, from the log (both the collector and the
 * hook fallback write them): a pre-tool check that failed open (goose's `policy_evaluated: false`)
 * or a hook the agent reports as exited non-zero or unrunnable (goose's `execute_hook` span). A
 * failed-open check let a tool call run unchecked, so any is a warning. Log-wide (any `hook.failed`
 * record), counted by
 * doctor's one walk of the time index over those 24 h (doctor.ts, RECENT_ACTIVITY_SQL); each other
 * agent's doctor counts its own (agent-hook-events.ts).
 */
export function hookFailureCheck(failures: { n: bigint; last: bigint | null }): Check {
  if (failures.n === 0n) return { id: 'hook-failures', status: 'ok', message: "Beacon's hooks ran without a failure in the last 24 h" };
  const last = failures.last === null ? '' : `, last ${new Date(Number(failures.last / 1_000_000n)).toISOString()}`;
  const times = failures.n === 1n ? 'once' : `${failures.n} times`;
  return {
    id: 'hook-failures',
    status: 'warn',
    message: `your hooks failed ${times} in the last 24 h${last}: an event went unrecorded, or an agent ran a tool call without Beacon's pre-tool check`,
    fix: "beacon events --action hook.failed --since 1d (the causes); beacon doctor <agent> probes the launcher",
  };
}
