import { accessSync, constants, existsSync, realpathSync } from 'node:fs';
import { get } from 'node:http';
import { dirname, resolve } from 'node:path';
import type { EventLog } from '../store/log/event-log';
import { openLogReadonly } from './read-log';
import { inspectLog, logProblem } from '../store/log/log-file';
import { forwardChecks } from './forward-checks';
import { exportChecks } from './export-check';
import type { HealthReport } from '../model/health';
import { describeServiceState, type ServiceState } from './service';
import { hookFailureCheck, hookFailureWindowStart } from './hook-failure-check';
import { HOOK_FAILED } from '../sources/hook-adapter';
import { portHolderProblem } from './port-holder';

/**
 * What every `beacon doctor` run checks whatever the agent: the collector (and that it writes the
 * log you read), the service, forwarding and exports from its /health, and the event log. An
 * agent's own checks come after (doctor-run.ts).
 */

export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface Check {
  id: string;
  status: CheckStatus;
  message: string;
  fix?: string;
}

export interface DoctorContext {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** the collector's address (from the same config the collector reads) */
  host: string;
  port: number;
  /** where the port came from: --port, the installed service, the config, the default */
  portSource?: string;
  log: string;
  /** asks the service manager (systemctl, launchctl): asked once the hook launcher runs, and answered beside the other probes */
  service?: () => Promise<ServiceState>;
  /** also send a test span and a test hook event, and find both in the log */
  sendTest?: boolean;
  fetchTimeoutMs?: number;
  /** config `otlpToken`: the test span carries it, as an agent's export must */
  otlpToken?: string;
}

/** Two spellings of one file are one log; a path that does not exist yet compares as written. */
function sameFile(a: string, b: string): boolean {
  const canon = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return resolve(p);
    }
  };
  return canon(a) === canon(b);
}

/** /health as read over HTTP: another program or another Beacon version may answer, so every field is checked before use. */
export type Health = Partial<HealthReport>;

/** --send-test after the collector check found the port held by something else: nothing (no otlpToken) is sent to it. */
export const SEND_TEST_WITHHELD: Check = { id: 'send-test', status: 'fail', message: 'nothing sent: the port is not your collector\'s (see the collector check)', fix: 'fix the collector check first' };

/**
 * The collector check, and the /health body it read (when it was Beacon's). `untrusted`: the port
 * is held by another user or another process than the collector the address file names — nothing
 * it answers is believed, and --send-test sends it nothing.
 */
export async function collectorCheck(base: string, ctx: Omit<DoctorContext, 'service'> & { service?: Promise<ServiceState> }, timeoutMs: number): Promise<{ check: Check; health?: Health; untrusted?: true }> {
  const where = ctx.portSource ? ` (port from ${ctx.portSource})` : '';
  const holder = await portHolderProblem(ctx, where);
  if (holder) return { check: holder, untrusted: true };
  let r: HttpAnswer;
  let body: Health = {};
  try {
    r = await httpGet(`${base}/health`, timeoutMs);
  } catch (e) {
    const cause = (e as { code?: string }).code ?? (e as Error).message;
    const service = await ctx.service;
    const startFix = service?.unreachable && service.kind === 'systemd'
      ? 'start it: beacon collector --detach (there is no systemd user session here for beacon service)'
      : 'start it: beacon service install, or beacon collector in a terminal';
    return { check: { id: 'collector', status: 'fail', message: `not reachable at ${base}${where}: ${cause}`, fix: startFix } };
  }
  try {
    body = JSON.parse(r.body) as typeof body;
  } catch {
    return { check: { id: 'collector', status: 'fail', message: `${base}${where} answered ${r.status} with something that is not Beacon's /health: another program holds the port?`, fix: `stop it, or run Beacon on another port (beacon service install --port N)` } };
  }
  const status = typeof body.status === 'string' ? body.status : '';
  const version = typeof body.version === 'string' ? ` (beacon ${body.version})` : '';
  if (r.status < 200 || r.status > 299 || (status !== 'ok' && status !== 'degraded')) {
    return { check: { id: 'collector', status: 'fail', message: `${base} answered ${r.status} ${status}${version}: it cannot store events now`.trim(), fix: 'see its log (journalctl --user -u beacon-collector), then restart it' }, health: body };
  }
  // A collector writing another log than the one read here (and the hooks write) splits the data.
  const served = typeof body.log?.path === 'string' ? body.log.path : undefined;
  if (served !== undefined && !sameFile(served, ctx.log)) {
    return {
      check: {
        id: 'collector', status: 'fail',
        message: `the collector at ${base}${version} writes ${served}, but this check (and the hooks installed with it) use ${ctx.log}: OTLP and hook events land in two logs`,
        fix: `run both on one log: pass the same --log (or BEACON_ENDPOINT_LOG) to beacon service install and beacon install <agent>`,
      },
      health: body,
    };
  }
  return {
    check: {
      id: 'collector', status: status === 'ok' ? 'ok' : 'warn',
      // one parenthesis, not `(port from the installed service (…)) (beacon 0.1.0)`
      message: `reachable at ${base}${version ? `, beacon ${body.version}` : ''}${where}${status === 'degraded' ? ', degraded (it stores, with trouble: see /health)' : ''}${served ? `, writing ${served}` : ''}`,
    },
    health: body,
  };
}

interface HttpAnswer {
  status: number;
  body: string;
}

/**
 * One GET with node:http: `fetch` loads undici first, ~15 ms of every doctor run, most of which find
 * the port refused. The whole exchange is bounded by `timeoutMs`, as `AbortSignal.timeout` bounded it.
 */
function httpGet(url: string, timeoutMs: number): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = get(url, { agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    const timer = setTimeout(() => req.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })), timeoutMs);
    req.on('error', reject);
    req.on('close', () => clearTimeout(timer));
  });
}

export function serviceCheck(s: ServiceState, collectorUp: boolean): Check {
  const message = describeServiceState(s);
  // A collector run by hand (or by another supervisor) is a choice; with none running, the service is the fix.
  if (!s.installed && collectorUp) return { id: 'service', status: 'ok', message: `${message}; the collector answering runs outside it (by hand, or another supervisor)` };
  if (!s.installed) return { id: 'service', status: 'warn', message: `${message}: the collector runs only while you run it`, fix: s.unreachable && s.kind === 'systemd' ? 'no systemd user session here: beacon collector --detach (or beacon collector in a terminal, or your own supervisor)' : 'beacon service install' };
  if (s.unreachable) return { id: 'service', status: 'warn', message };
  if (!s.running) return { id: 'service', status: 'fail', message, fix: s.kind === 'systemd' ? 'systemctl --user restart beacon-collector; journalctl --user -u beacon-collector says why it stopped' : 'launchctl kickstart gui/$(id -u)/com.beacon.collector; see ~/Library/Logs/Beacon/collector.log' };
  if (!s.enabled) return { id: 'service', status: 'warn', message: `${message}: it will not start at the next login`, fix: 'beacon service install' };
  return { id: 'service', status: 'ok', message };
}


/** The checks of the collector and what it reports: collector, service, forwarding, exports; with the /health read (the agent checks need it). */
export async function collectorChecks(ctx: DoctorContext, base: string): Promise<{ checks: Check[]; health?: Health; untrusted?: true }> {
  const service = ctx.service?.();
  const { check: collector, health, untrusted } = await collectorCheck(base, { ...ctx, service }, ctx.fetchTimeoutMs ?? 1500);
  const checks: Check[] = [collector];
  if (service) checks.push(serviceCheck(await service, collector.status !== 'fail'));
  checks.push(...forwardChecks(health?.forward), ...exportChecks(health?.export));
  return { checks, ...(health ? { health } : {}), ...(untrusted ? { untrusted } : {}) };
}

/**
 * One walk of the time index over the last 24 h reads both what the collection check says (the
 * newest event of each path) and what the hook-failures check counts. Issue 25 read the newest of a
 * path newest-first, row by row (a GROUP BY method read the whole log), and issue 33 found that walk
 * crossing a burst of OTLP rows to reach the newest hook event, then the hook-failures count reading
 * the same rows again (~2 × 40 ms at 40k events with a 10k-event burst). A path with no event in
 * the window is looked for before it (NEWEST_OF_METHOD_SQL), from where the walk stopped.
 */
export const RECENT_ACTIVITY_SQL = `SELECT max(CASE WHEN method = 'otlp' THEN ts_ns END) AS otlp, max(CASE WHEN method = 'hook' THEN ts_ns END) AS hook,
  count(CASE WHEN action = ? THEN 1 END) AS failures, max(CASE WHEN action = ? THEN ts_ns END) AS lastFailure
  FROM events INDEXED BY events_ts WHERE ts_ns >= ?`;
export const NEWEST_OF_METHOD_SQL = 'SELECT ts_ns AS last FROM events INDEXED BY events_ts WHERE ts_ns < ? AND method = ? ORDER BY ts_ns DESC LIMIT 1';
export const LOG_COUNT_SQL = 'SELECT count(*) AS n FROM events';

/**
 * Doctor's reads map the log instead of copying each page it visits (SQLite's mmap_size; the walk
 * above visits a table row per event): the same walk took half the CPU (52 → 25 ms at 40k events,
 * 20 ms with the one walk). Only this read-only connection, for the few ms it is open.
 */
const DOCTOR_MMAP_BYTES = 1 << 30;

interface RecentActivity {
  newest: Map<string, bigint>;
  failures: { n: bigint; last: bigint | null };
}

function recentActivity(db: EventLog['db'], nowNs: bigint): RecentActivity {
  const since = hookFailureWindowStart(nowNs);
  const r = db.prepare(RECENT_ACTIVITY_SQL).safeIntegers(true).get(HOOK_FAILED, HOOK_FAILED, since) as { otlp: bigint | null; hook: bigint | null; failures: bigint; lastFailure: bigint | null };
  const newest = new Map<string, bigint>();
  const before = db.prepare(NEWEST_OF_METHOD_SQL).safeIntegers(true);
  for (const m of ['otlp', 'hook'] as const) {
    const last = r[m] ?? (before.get(since, m) as { last: bigint } | undefined)?.last;
    if (last !== undefined) newest.set(m, last);
  }
  return { newest, failures: { n: r.failures, last: r.lastFailure } };
}

/** The event log, looked at without creating it (doctor writes nothing). */
export function logChecks(path: string): Check[] {
  const state = inspectLog(path);
  const problem = logProblem(path, state);
  if (problem) return [{ id: 'event-log', status: 'fail', message: problem, fix: 'pass --log FILE (or set BEACON_ENDPOINT_LOG) to the event log file' }];
  if (state.kind === 'missing' || (state.kind === 'file' && state.size === 0)) {
    let dir = dirname(path);
    while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
    const writable = canWrite(dir);
    return [{
      id: 'event-log', status: writable ? 'warn' : 'fail',
      message: writable ? `${path} does not exist yet: nothing has been recorded (the first writer creates it)` : `${path} does not exist and ${dir} is not writable: nothing can record`,
      fix: writable ? 'start the collector and use your agent once' : `fix the permissions of ${dir}, or pass --log`,
    }];
  }
  let log: EventLog;
  try {
    log = openLogReadonly(path, 1000);
  } catch (e) {
    return [{ id: 'event-log', status: 'fail', message: (e as Error).message, fix: 'fix the permissions, or pass --log' }];
  }
  try {
    log.db.pragma(`mmap_size = ${DOCTOR_MMAP_BYTES}`);
    const recent = recentActivity(log.db, BigInt(Date.now()) * 1_000_000n);
    const by = recent.newest;
    const total = (log.db.prepare(LOG_COUNT_SQL).safeIntegers(true).get() as { n: bigint }).n;
    const writable = canWrite(path) && canWrite(dirname(path));
    const out: Check[] = [writable
      ? { id: 'event-log', status: 'ok', message: `${path} is writable` }
      : { id: 'event-log', status: 'fail', message: `${path} (or its directory) is not writable: the collector and hooks cannot record`, fix: 'fix the permissions (the file 0600, its directory 0700, both yours)' }];
    const describe = (m: string) => {
      const r = by.get(m);
      return r !== undefined ? `last ${m} event ${new Date(Number(r / 1_000_000n)).toISOString()}` : `no ${m} event yet`;
    };
    const missing = ['otlp', 'hook'].filter((m) => !by.has(m));
    out.push({
      id: 'collection',
      status: missing.length === 0 ? 'ok' : 'warn',
      message: `${describe('otlp')}; ${describe('hook')} (${total} events in the log)${missing.length === 1 ? ' — partial: ' + (missing[0] === 'otlp' ? 'no token usage, model or reasoning without OTLP' : 'no prompts or command lines without the hooks') : ''}`,
      ...(missing.length > 0 ? { fix: 'use the agent once after installing, then run beacon doctor again' } : {}),
    });
    out.push(hookFailureCheck(recent.failures));
    return out;
  } finally {
    log.close();
  }
}

function canWrite(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
