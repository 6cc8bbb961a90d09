import type { EventLog } from '../store/log/event-log';
import { inspectLog } from '../store/log/log-file';
import { HOOK_FAILED } from '../sources/hook-adapter';
import { formatDuration } from '../model/time';
import { openLogReadonly } from './read-log';
import type { AgentSpec } from './agents/spec';
import type { Check } from './doctor';
import { TEST_SESSION_PREFIX } from './agents/spec';

const DAY_NS = 86_400_000_000_000n;

/** What the log holds from one agent: all its events, and its hook path's apart (test sessions and failures told apart). */
export interface AgentEventStats {
  last: bigint | null; n: bigint; testLast: bigint | null; testN: bigint;
  hookLast: bigint | null; hookN: bigint; hookTestN: bigint;
  failN: bigint; failLast: bigint | null;
  /** the newest OTLP event (not a test): with hookLast, which collection paths record */
  otlpLast: bigint | null;
}

// One pass over the agent's events for every line doctor prints about them: no index holds the
// harness, and one would cost every insert for a check doctor makes (issue 25).
const statsSql = (agents: number) => `SELECT harness, max(CASE WHEN NOT t THEN ts_ns END) AS last, coalesce(sum(NOT t), 0) AS n,
    max(CASE WHEN t THEN ts_ns END) AS testLast, coalesce(sum(t), 0) AS testN,
    max(CASE WHEN h AND NOT t AND NOT f THEN ts_ns END) AS hookLast, coalesce(sum(h AND NOT t AND NOT f), 0) AS hookN,
    coalesce(sum(h AND t), 0) AS hookTestN,
    coalesce(sum(f AND ts_ns >= ?), 0) AS failN, max(CASE WHEN f AND ts_ns >= ? THEN ts_ns END) AS failLast,
    max(CASE WHEN o AND NOT t THEN ts_ns END) AS otlpLast
  FROM (SELECT harness, ts_ns, coalesce(session_id, '') LIKE ? AS t, method = 'hook' AS h, action = ? AS f, method = 'otlp' AS o FROM events
    WHERE harness IN (${Array(agents).fill('?').join(', ')}))
  GROUP BY harness`;

/** The log's numbers for this agent; a Check when there is no log to read (or it cannot be read). */
export function agentEventStats(spec: AgentSpec, path: string, nowNs: bigint): AgentEventStats | Check {
  return agentsEventStats([spec], path, nowNs).get(spec.id)!;
}

/**
 * `agentEventStats` of several agents from one pass over the log (plain `beacon doctor`'s lines:
 * a pass per agent read the whole table once each, ~35 ms per agent on a 40k-event log).
 */
export function agentsEventStats(specs: readonly AgentSpec[], path: string, nowNs: bigint): Map<string, AgentEventStats | Check> {
  const out = new Map<string, AgentEventStats | Check>();
  if (specs.length === 0) return out;
  if (inspectLog(path).kind !== 'file') {
    for (const spec of specs) out.set(spec.id, { id: `${spec.id}-events`, status: 'warn', message: `no event log at ${path} yet: nothing from ${spec.title} has arrived`, fix: `use ${spec.title} once after beacon install ${spec.id}` });
    return out;
  }
  let log: EventLog;
  try {
    log = openLogReadonly(path, 1000);
  } catch (e) {
    for (const spec of specs) out.set(spec.id, { id: `${spec.id}-events`, status: 'fail', message: (e as Error).message });
    return out;
  }
  try {
    const since = nowNs - DAY_NS;
    const rows = log.db.prepare(statsSql(specs.length)).safeIntegers(true).all(since, since, `${TEST_SESSION_PREFIX}%`, HOOK_FAILED, ...specs.map((s) => s.id)) as (AgentEventStats & { harness: string })[];
    for (const spec of specs) {
      const { harness: _harness, ...stats } = rows.find((r) => r.harness === spec.id) ?? { harness: spec.id, ...NONE };
      out.set(spec.id, stats);
    }
    return out;
  } finally {
    log.close();
  }
}

/** What the one-agent query returned for an agent with no event: counts 0, times null. */
const NONE: AgentEventStats = { last: null, n: 0n, testLast: null, testN: 0n, hookLast: null, hookN: 0n, hookTestN: 0n, failN: 0n, failLast: null, otlpLast: null };

const when = (ns: bigint) => new Date(Number(ns / 1_000_000n)).toISOString();
const ago = (ns: bigint, nowNs: bigint) => (nowNs > ns ? `, ${formatDuration(nowNs - ns)} ago` : '');

/** Since when doctor asks for events: the setup (the newest change of the files holding Beacon's settings), or a recent window. */
export interface EventsSince {
  ns: bigint;
  /** said in the message: "since the setup (… last changed …)" or "in the last 7 days" */
  what: string;
}

export const RECENT_WINDOW_NS = 7n * DAY_NS;

/**
 * Do events from this agent arrive: the newest one after the setup (issue 33: a log holding last
 * month's events and none since the install said "ok"). Test events told apart.
 */
export function lastEventCheck(spec: AgentSpec, stats: AgentEventStats, since: EventsSince): Check {
  const id = `${spec.id}-events`;
  const besides = stats.testN > 0n ? `, besides ${stats.testN} doctor test events` : '';
  if (stats.n > 0n && stats.last !== null && stats.last >= since.ns) return { id, status: 'ok', message: `last ${spec.id} event ${when(stats.last)}, ${since.what} (${stats.n} in all${besides})` };
  const fix = `start a new ${spec.title} session (one already running keeps the settings it started with), then beacon doctor ${spec.id} again`;
  if (stats.n > 0n && stats.last !== null) return { id, status: 'warn', message: `no ${spec.id} event ${since.what}: the last one arrived ${when(stats.last)}`, fix };
  return {
    id, status: 'warn',
    message: `no ${spec.id} event has arrived yet${stats.testN > 0n && stats.testLast !== null ? ` (only beacon doctor --send-test events, the last ${when(stats.testLast)})` : ''}`,
    fix: `use ${spec.title} once (a new session) after beacon install ${spec.id}`,
  };
}

/**
 * Which of the agent's collection paths record: its OTLP export and Beacon's hooks, each with its
 * newest event. Only for an agent with both paths, and once anything arrived (the events check says
 * when nothing has). `id`: goose's check keeps its old name, "collection".
 */
export function collectionCheck(spec: AgentSpec, stats: AgentEventStats, id = `${spec.id}-collection`): Check | undefined {
  if (!spec.hooks && !spec.ownSetup) return undefined;
  if (stats.otlpLast === null && stats.hookLast === null) return undefined;
  const describe = (path: string, last: bigint | null) => (last !== null ? `last ${path} event ${when(last)}` : `no ${path} event`);
  const message = `${describe('OTLP', stats.otlpLast)}; ${describe('hook', stats.hookLast)}`;
  if (stats.otlpLast !== null && stats.hookLast !== null) return { id, status: 'ok', message: `${message}: both of ${spec.title}'s paths record` };
  return {
    id, status: 'warn',
    message: `${message}: partial, ${stats.otlpLast === null ? `${spec.title}'s token usage, model and reasoning arrive only over OTLP` : `${spec.title}'s prompts and command lines arrive only through the hooks`}`,
    fix: `beacon doctor ${spec.id} (the half without events), then a new ${spec.title} session`,
  };
}

/** Beacon's hooks for this agent failing in the last 24 h: a pre-tool check failed open, or an event was not recorded. */
export function hookFailuresCheck(spec: AgentSpec, stats: AgentEventStats, id = `${spec.id}-hook-failures`): Check | undefined {
  if (stats.failN > 0n) {
    return {
      id, status: 'warn',
      message: `Beacon's ${spec.title} hooks failed ${stats.failN === 1n ? 'once' : `${stats.failN} times`} in the last 24 h${stats.failLast !== null ? `, last ${when(stats.failLast)}` : ''}: an event went unrecorded, or ${spec.title} ran a tool call without Beacon's pre-tool check`,
      fix: `beacon events --action hook.failed --since 1d (the causes); beacon doctor ${spec.id} probes the launcher`,
    };
  }
  return stats.hookN > 0n ? { id, status: 'ok', message: `Beacon's ${spec.title} hooks ran without a failure in the last 24 h` } : undefined;
}

/**
 * Since when hook events must have arrived: the hooks' install (the newest change of the files
 * holding Beacon's entries, which the reasons name), or the last 7 days when doctor sees no
 * entry here (hooks installed in another project could still record).
 */
export function hooksSince(installedAtMs: number | undefined, nowNs: bigint): EventsSince {
  if (installedAtMs === undefined || installedAtMs <= 0) return { ns: nowNs - RECENT_WINDOW_NS, what: 'in the last 7 days' };
  return { ns: BigInt(Math.floor(installedAtMs)) * 1_000_000n, what: 'since the setup' };
}

/**
 * The hook half's last word: the newest hook record of this agent (not a test, not a failure) after
 * the hooks' setup, and its age (issue 33: last month's hook events and none since the install said
 * "ok"), or, with none, the reasons doctor can see (`reasons`: from the hook checks above — not
 * installed, the switch off, not trusted, project scope only, installed after the last session).
 */
export function hookEventChecks(spec: AgentSpec, stats: AgentEventStats, nowNs: bigint, reasons: string[], since: EventsSince): Check[] {
  const id = `${spec.id}-hook-events`;
  const fix = `use ${spec.title} once (a new session), then beacon doctor ${spec.id} again`;
  const why = reasons.length ? reasons : ['no session has run the hooks since they were installed'];
  if (stats.hookN > 0n && stats.hookLast !== null && stats.hookLast >= since.ns) {
    return [{ id, status: 'ok', message: `last ${spec.id} hook event ${when(stats.hookLast)}${ago(stats.hookLast, nowNs)} (${stats.hookN} hook events in all)` }];
  }
  if (stats.hookN > 0n && stats.hookLast !== null) {
    return [{ id, status: 'warn', message: `no ${spec.id} hook event ${since.what}: the last one arrived ${when(stats.hookLast)}${ago(stats.hookLast, nowNs)}; ${why.join('; ')}`, fix }];
  }
  return [{
    id, status: 'warn',
    message: `no ${spec.id} hook event in the log${stats.hookTestN > 0n ? ` (only beacon doctor --send-test's)` : ''}: ${why.join('; ')}`,
    fix,
  }];
}
