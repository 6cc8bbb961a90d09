import { environmentChecks, judgeEndpoint } from './goose-env-checks';
import { hookFailureCheck } from './hook-failure-check';
export { judgeEndpoint } from './goose-env-checks';
import { accessSync, constants, existsSync, readFileSync, realpathSync } from 'node:fs';
import { get } from 'node:http';
import { dirname, resolve } from 'node:path';
import type { EventLog } from '../store/log/event-log';
import { openLogReadonly } from './read-log';
import { inspectLog, logProblem } from '../store/log/log-file';
import { forwardChecks } from './forward-checks';
import { exportChecks } from './export-check';
import type { HealthReport } from '../model/health';
import { describeServiceState, type ServiceState } from './service';
import { readGooseConfig, type GooseConfigView } from './goose-config';
import { PLUGIN_NAME, gooseLocations, hooksFile, pluginRoot } from './goose-paths';
import { commandsIn, parseHookCommand } from './hooks-file';
import { foreignHookChecks, gooseBinaryCheck, launcherChecks } from './goose-checks';
import { hostPort } from '../config/hosts';
import { portHolderProblem } from './port-holder';
import { hooksLauncherPath } from '../config/paths';

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

/**
 * Every check, in the order a user fixes them: collector, goose's config and environment, plugin, log.
 * The slow probes start first and run side by side (issue 25: doctor <= 2x a bare Node start): the
 * hook launcher (a Node.js start, as goose does), the collector's /health and the service manager
 * (started by the caller); the checks that only read files run meanwhile. The report's order stays.
 */
export async function runDoctor(ctx: DoctorContext): Promise<Check[]> {
  const base = `http://${hostPort(ctx.host, ctx.port)}`;
  const config = gooseConfigOnce(ctx);
  const plugin = pluginChecks(ctx, config);
  const service = ctx.service?.();
  // One /health read serves the collector check and the forwarding checks.
  const probe = collectorCheck(base, { ...ctx, service }, ctx.fetchTimeoutMs ?? 1500);
  const goose = gooseBinaryCheck(ctx.env);
  const otlp = otlpConfigChecks(config(), base);
  const environment = environmentChecks(ctx.env, base);
  const { check: collector, health, untrusted } = await probe;
  // read after the probe answered: on a large log this takes a while, and the probe's timeout runs
  const log = logChecks(ctx.log);
  const checks: Check[] = [collector];
  if (service) checks.push(serviceCheck(await service, collector.status !== 'fail'));
  checks.push(...forwardChecks(health?.forward), ...exportChecks(health?.export), goose, ...otlp, ...environment, ...(await plugin), ...log);
  if (ctx.sendTest) checks.push(...(untrusted ? [SEND_TEST_WITHHELD] : await (require('./send-test') as typeof import('./send-test')).sendTestChecks(ctx, base)));
  return checks;
}

/** goose's config.yaml, parsed once for the checks that read it (the YAML library loads on the first). */
function gooseConfigOnce(ctx: DoctorContext): () => GooseConfigView {
  let view: GooseConfigView | undefined;
  return () => (view ??= readGooseConfig(gooseLocations(ctx.env, ctx.cwd).configYaml));
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
type Health = Partial<HealthReport>;

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
        fix: `run both on one log: pass the same --log (or BEACON_ENDPOINT_LOG) to beacon service install and beacon install goose`,
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

function serviceCheck(s: ServiceState, collectorUp: boolean): Check {
  const message = describeServiceState(s);
  // A collector run by hand (or by another supervisor) is a choice; with none running, the service is the fix.
  if (!s.installed && collectorUp) return { id: 'service', status: 'ok', message: `${message}; the collector answering runs outside it (by hand, or another supervisor)` };
  if (!s.installed) return { id: 'service', status: 'warn', message: `${message}: the collector runs only while you run it`, fix: s.unreachable && s.kind === 'systemd' ? 'no systemd user session here: beacon collector --detach (or beacon collector in a terminal, or your own supervisor)' : 'beacon service install' };
  if (s.unreachable) return { id: 'service', status: 'warn', message };
  if (!s.running) return { id: 'service', status: 'fail', message, fix: s.kind === 'systemd' ? 'systemctl --user restart beacon-collector; journalctl --user -u beacon-collector says why it stopped' : 'launchctl kickstart gui/$(id -u)/com.beacon.collector; see ~/Library/Logs/Beacon/collector.log' };
  if (!s.enabled) return { id: 'service', status: 'warn', message: `${message}: it will not start at the next login`, fix: 'beacon service install' };
  return { id: 'service', status: 'ok', message };
}

function otlpConfigChecks(view: GooseConfigView, base: string): Check[] {
  if (!view.exists) return [{ id: 'goose-config', status: 'fail', message: `${view.path} does not exist`, fix: 'beacon install goose --configure-otlp, or add otel_exporter_otlp_endpoint yourself' }];
  if (view.parseError) return [{ id: 'goose-config', status: 'fail', message: `${view.path} is not valid YAML: ${view.parseError}`, fix: 'fix the file' }];
  if (!view.endpoint) return [{ id: 'goose-config', status: 'fail', message: `${view.path} has no otel_exporter_otlp_endpoint: goose exports nothing`, fix: `add "otel_exporter_otlp_endpoint: ${base}" (or run beacon install goose --configure-otlp)` }];
  const { localhost: _, ...judged } = judgeEndpoint(view.endpoint, base);
  return [{ id: 'goose-config', ...judged }];
}

async function pluginChecks(ctx: DoctorContext, config: () => GooseConfigView): Promise<Check[]> {
  const loc = gooseLocations(ctx.env, ctx.cwd);
  const scopes = [
    { name: 'project', agents: loc.projectAgentsDir },
    { name: 'user', agents: loc.userAgentsDir },
  ].map((s) => ({ ...s, file: hooksFile(s.agents), root: pluginRoot(s.agents) }));
  const present = scopes.filter((s) => existsSync(s.file));
  if (present.length === 0) {
    return [{ id: 'plugin', status: 'fail', message: `no ${PLUGIN_NAME} plugin at ${scopes.map((s) => s.file).join(' or ')}: prompts and tool calls are not recorded`, fix: 'beacon install goose' }];
  }
  const active = present[0]!; // goose takes project scope first and deduplicates by name
  const commands = commandsIn(readFileSync(active.file, 'utf8'));
  const ours = commands.map(parseHookCommand).filter((c) => c !== undefined);
  // The launcher starts before anything else is read: its Node.js start is the longest of doctor's waits.
  const reinstall = `beacon install goose${active.name === 'project' ? ' --scope project' : ''}`;
  const command = launcherChecks({ ...active, reinstall }, ours, hooksLauncherPath(ctx.env), ctx.cwd);

  const disabledBy = disabledReasons(ctx, active.root, config());
  return [
    {
      id: 'plugin', status: 'ok',
      message: `${active.name} scope: ${active.file}${present.length > 1 ? ` (shadows the user-scope plugin for sessions started in ${ctx.cwd})` : ''}`,
    },
    disabledBy.length > 0
      ? { id: 'plugin-enabled', status: 'fail', message: `the plugin is disabled: ${disabledBy.join('; ')} (a disabled plugin keeps its hooks file)`, fix: 'enable it there, then start a new goose session' }
      : { id: 'plugin-enabled', status: 'ok', message: 'enabled (config.yaml plugins map and settings.json disabledPlugins)' },
    ...(await command),
    ...foreignHookChecks(active.file, commands),
  ];
}

function disabledReasons(ctx: DoctorContext, root: string, view: GooseConfigView): string[] {
  const loc = gooseLocations(ctx.env, ctx.cwd);
  const reasons: string[] = [];
  const entry = view.plugins[root];
  if (entry && entry.enabled === false) reasons.push(`${loc.configYaml} plugins["${root}"].enabled is false`);
  const verdict = settingsVerdict(loc.settingsFiles, PLUGIN_NAME);
  if (verdict.disabledBy) reasons.push(`${verdict.disabledBy} lists it in disabledPlugins`);
  return reasons;
}

/**
 * goose's `is_enabled` (plugins/discovery.rs): local, then project, then user settings; the first
 * file that lists the plugin's *name* decides, `disabledPlugins` before `enabledPlugins` within a
 * file. Both must be arrays of strings: any other shape fails goose's parse and the whole file is
 * ignored, so it decides nothing here either.
 */
export function settingsVerdict(files: readonly string[], name: string): { disabledBy?: string; enabledBy?: string } {
  for (const file of files) {
    if (!existsSync(file)) continue;
    let settings: unknown;
    try {
      settings = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      continue;
    }
    if (typeof settings !== 'object' || settings === null || Array.isArray(settings)) continue;
    const { disabledPlugins = [], enabledPlugins = [] } = settings as { disabledPlugins?: unknown; enabledPlugins?: unknown };
    if (!isStringArray(disabledPlugins) || !isStringArray(enabledPlugins)) continue;
    if (disabledPlugins.includes(name)) return { disabledBy: file };
    if (enabledPlugins.includes(name)) return { enabledBy: file };
  }
  return {};
}

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

/**
 * The newest event of a collection path, walking the time index from the newest (a few rows when
 * both paths record), and the log's size from its smallest index. Issue 25: a GROUP BY method over
 * every row read the whole log (50–70 ms at 40k events, seconds at 1M) for the same answer.
 */
export const NEWEST_OF_METHOD_SQL = 'SELECT ts_ns AS last FROM events INDEXED BY events_ts WHERE method = ? ORDER BY ts_ns DESC LIMIT 1';
export const LOG_COUNT_SQL = 'SELECT count(*) AS n FROM events';

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
      fix: writable ? 'start the collector and use goose once' : `fix the permissions of ${dir}, or pass --log`,
    }];
  }
  let log: EventLog;
  try {
    log = openLogReadonly(path, 1000);
  } catch (e) {
    return [{ id: 'event-log', status: 'fail', message: (e as Error).message, fix: 'fix the permissions, or pass --log' }];
  }
  try {
    const newest = log.db.prepare(NEWEST_OF_METHOD_SQL).safeIntegers(true);
    const by = new Map<string, { last: bigint }>();
    for (const m of ['otlp', 'hook']) {
      const r = newest.get(m) as { last: bigint } | undefined;
      if (r) by.set(m, r);
    }
    const total = (log.db.prepare(LOG_COUNT_SQL).safeIntegers(true).get() as { n: bigint }).n;
    const writable = canWrite(path) && canWrite(dirname(path));
    const out: Check[] = [writable
      ? { id: 'event-log', status: 'ok', message: `${path} is writable` }
      : { id: 'event-log', status: 'fail', message: `${path} (or its directory) is not writable: the collector and hooks cannot record`, fix: 'fix the permissions (the file 0600, its directory 0700, both yours)' }];
    const describe = (m: string) => {
      const r = by.get(m);
      return r ? `last ${m} event ${new Date(Number(r.last / 1_000_000n)).toISOString()}` : `no ${m} event yet`;
    };
    const missing = ['otlp', 'hook'].filter((m) => !by.has(m));
    out.push({
      id: 'collection',
      status: missing.length === 0 ? 'ok' : 'warn',
      message: `${describe('otlp')}; ${describe('hook')} (${total} events in the log)${missing.length === 1 ? ' — partial: ' + (missing[0] === 'otlp' ? 'no token usage, model or reasoning without OTLP' : 'no prompts or command lines without the hooks') : ''}`,
      ...(missing.length > 0 ? { fix: 'use goose once after installing, then run beacon doctor again' } : {}),
    });
    out.push(hookFailureCheck(log.db, BigInt(Date.now()) * 1_000_000n));
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
