import { existsSync, readFileSync } from 'node:fs';
import { hostPort } from '../config/hosts';
import { hooksLauncherPath } from '../config/paths';
import { SEND_TEST_WITHHELD, collectorCheck, logChecks, serviceCheck, type Check, type DoctorContext } from './doctor';
import { commandVersionCheck } from './agent-version';
import { goose as gooseSpec } from './agents/goose';
import { exportChecks } from './export-check';
import { forwardChecks } from './forward-checks';
import { foreignHookChecks, gooseBinaryCheck, goosePluginFiles, launcherChecks } from './goose-checks';
import { readGooseConfig, type GooseConfigView } from './goose-config';
import { environmentChecks, judgeEndpoint } from './goose-env-checks';
import { PLUGIN_NAME, gooseLocations } from './goose-paths';

/**
 * `beacon doctor goose` (agents/goose.ts, its ownSetup): the collector's checks, then goose's own —
 * its binary, config.yaml and environment, Beacon's plugin (by running its launcher) — and the log.
 */

/**
 * Every check, in the order a user fixes them: collector, goose's config and environment, plugin, log.
 * The slow probes start first and run side by side (issue 25: doctor <= 2x a bare Node start): the
 * hook launcher (a Node.js start, as goose does), the collector's /health and the service manager
 * (started by the caller); the checks that only read files run meanwhile. The report's order stays.
 */
export async function gooseDoctor(ctx: DoctorContext): Promise<Check[]> {
  const base = `http://${hostPort(ctx.host, ctx.port)}`;
  const config = gooseConfigOnce(ctx);
  const plugin = pluginChecks(ctx, config);
  const service = ctx.service?.();
  // One /health read serves the collector check and the forwarding checks.
  const probe = collectorCheck(base, { ...ctx, service }, ctx.fetchTimeoutMs ?? 1500);
  const goose = gooseBinaryCheck(ctx.env);
  // `goose --version` (goose is no npm package: no package.json to read) runs beside the probes
  const version = commandVersionCheck(gooseSpec, ctx);
  const otlp = otlpConfigChecks(config(), base);
  const environment = environmentChecks(ctx.env, base);
  const { check: collector, health, untrusted } = await probe;
  const gooseVersion = await version;
  // read after the probe answered: on a large log this takes a while, and the probe's timeout runs
  const log = logChecks(ctx.log);
  const checks: Check[] = [collector];
  if (service) checks.push(serviceCheck(await service, collector.status !== 'fail'));
  checks.push(...forwardChecks(health?.forward), ...exportChecks(health?.export), goose, ...(gooseVersion ? [gooseVersion] : []), ...otlp, ...environment, ...(await plugin), ...log);
  if (ctx.sendTest) checks.push(...(untrusted ? [SEND_TEST_WITHHELD] : await (require('./goose-send-test') as typeof import('./goose-send-test')).sendTestChecks(ctx, base)));
  return checks;
}

/** goose's config.yaml, parsed once for the checks that read it (the YAML library loads on the first). */
function gooseConfigOnce(ctx: DoctorContext): () => GooseConfigView {
  let view: GooseConfigView | undefined;
  return () => (view ??= readGooseConfig(gooseLocations(ctx.env, ctx.cwd).configYaml));
}

function otlpConfigChecks(view: GooseConfigView, base: string): Check[] {
  if (!view.exists) return [{ id: 'goose-config', status: 'fail', message: `${view.path} does not exist`, fix: 'beacon install goose --configure-otlp, or add otel_exporter_otlp_endpoint yourself' }];
  if (view.parseError) return [{ id: 'goose-config', status: 'fail', message: `${view.path} is not valid YAML: ${view.parseError}`, fix: 'fix the file' }];
  if (!view.endpoint) return [{ id: 'goose-config', status: 'fail', message: `${view.path} has no otel_exporter_otlp_endpoint: goose exports nothing`, fix: `add "otel_exporter_otlp_endpoint: ${base}" (or run beacon install goose --configure-otlp)` }];
  const { localhost: _, ...judged } = judgeEndpoint(view.endpoint, base);
  return [{ id: 'goose-config', ...judged }];
}

async function pluginChecks(ctx: DoctorContext, config: () => GooseConfigView): Promise<Check[]> {
  const { scopes, present, active, commands, ours } = goosePluginFiles(ctx.env, ctx.cwd);
  if (!active) {
    return [{ id: 'plugin', status: 'fail', message: `no ${PLUGIN_NAME} plugin at ${scopes.map((s) => s.file).join(' or ')}: prompts and tool calls are not recorded`, fix: 'beacon install goose' }];
  }
  // The launcher starts before anything else is read (if main.ts did not start it already): its Node.js start is the longest of doctor's waits.
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

