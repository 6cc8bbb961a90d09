import { existsSync, readdirSync, rmdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensureHookToken } from '../config/hook-token';
import { otlpHeadersValue } from '../config/otlp-token';
import { beaconBaseDir } from '../config/paths';
import { checkPrivateDir } from '../model/file-checks';
import { renderLauncher, writeLauncher } from './launcher';
import { BeaconError } from '../model/errors';
import { escapeControls } from '../model/terminal';
import { ENDPOINT_KEY, checkEditable, configureOtlp, otlpSnippet, readGooseConfig, revertOtlp, type OtlpEdit } from './goose-config';
import { gooseLocations, hooksFile } from './goose-paths';
import { REGISTRATIONS, checkInstallable, installHooksFile, renderHooksJson, uninstallHooksFile } from './goose-hooks-file';
import { readState, releaseLauncher, writeState } from './install-state';
import { shellQuote } from '../model/shell-quote';
import type { AgentInstallOptions, AgentUninstallOptions } from './agent-install';

/**
 * goose's own setup steps (agents/goose.ts, its ownSetup): its hooks plugin, a directory Beacon
 * writes whole, and — only when asked (--configure-otlp) — the two OTLP keys in its YAML
 * config.yaml, which is otherwise the user's. Reached through `beacon install goose` like every
 * other agent; only these steps are goose's.
 */

/** `beacon install goose`, from the options every agent's install gets. */
const ONE_HALF = "goose's setup is its hooks plugin and (with --configure-otlp) its config.yaml's OTLP keys, in one step: --hooks-only and --otlp-only do not apply";

export function installGooseAgent(o: AgentInstallOptions): string[] {
  if (!o.halves.hooks || !o.halves.otlp) throw new BeaconError('usage', ONE_HALF);
  const ctx: InstallContext = {
    scope: o.scope, env: o.env, cwd: o.cwd, log: o.hooks.log, config: o.hooks.config, launcher: o.hooks.launcher,
    node: o.hooks.node, hooksBundle: o.hooks.bundle, endpoint: o.target.base, ...(o.target.token ? { otlpToken: o.target.token } : {}),
  };
  return o.dryRun ? gooseDryRun(ctx, o.configureOtlp === true) : installGoose(ctx, o.configureOtlp === true);
}

/** What `beacon install goose` would do, changing nothing (the no-agent `beacon install` list). */
function gooseDryRun(ctx: InstallContext, configure: boolean): string[] {
  const loc = gooseLocations(ctx.env, ctx.cwd);
  const file = hooksFile(ctx.scope === 'user' ? loc.userAgentsDir : loc.projectAgentsDir);
  checkInstallable(file, ctx.scope === 'project' ? { root: ctx.cwd } : {});
  const view = readGooseConfig(loc.configYaml);
  return [
    `would write ${file} (${REGISTRATIONS.length} hook registrations, ${ctx.scope} scope) and the hook launcher ${ctx.launcher}`,
    view.endpoint === ctx.endpoint ? `${loc.configYaml} already exports to ${ctx.endpoint}` : configure ? `would set the OTLP endpoint in ${loc.configYaml}` : `would leave ${loc.configYaml} yours (--configure-otlp sets its OTLP endpoint)`,
  ];
}

export function uninstallGooseAgent(o: AgentUninstallOptions): string[] {
  // refused rather than ignored: `--otlp-only` must never take the plugin away
  if (!o.halves.hooks || !o.halves.otlp) throw new BeaconError('usage', ONE_HALF);
  return uninstallGoose({ scope: o.scope, env: o.env, cwd: o.cwd, launcher: o.launcher });
}

export interface InstallContext {
  scope: 'user' | 'project';
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** event log and config paths the hook commands carry */
  log: string;
  config: string;
  /** launcher goose runs, and what it runs */
  launcher: string;
  node: string;
  hooksBundle: string;
  /** the collector's base URL, for goose's otel_exporter_otlp_endpoint */
  endpoint: string;
  /** the collector's otlpToken, when set: goose reads its OTLP headers from its environment only */
  otlpToken?: string;
}

/** `beacon install goose`: both collection paths in one step; returns what it did, line by line. */
export function installGoose(ctx: InstallContext, configure: boolean): string[] {
  const loc = gooseLocations(ctx.env, ctx.cwd);
  const agents = ctx.scope === 'user' ? loc.userAgentsDir : loc.projectAgentsDir;
  const report: string[] = [];
  const file = hooksFile(agents);
  const hooks = renderHooksJson(ctx.launcher, ctx.log, ctx.config);
  // No symlink is followed below the project directory, nor written through at all (issue 29 item 3).
  const tree = ctx.scope === 'project' ? { root: ctx.cwd } : {};
  // Everything that can refuse is checked before anything is written: a refusal changes nothing.
  checkInstallable(file, tree);
  if (configure) checkEditable(loc.configYaml);
  for (const dir of [beaconBaseDir(ctx.env), dirname(ctx.launcher), dirname(ctx.log)]) checkPrivateDir(dir);
  const state = readState(ctx.env);
  const launcherChanged = writeLauncher(ctx.launcher, renderLauncher(ctx.node, ctx.hooksBundle));
  ensureHookToken(ctx.log);
  report.push(`${launcherChanged ? 'wrote' : 'kept'} the hook launcher ${ctx.launcher}`);
  const created = [agents, join(agents, 'plugins')].filter((d) => !existsSync(d));
  state.createdDirs = [...new Set([...(state.createdDirs ?? []), ...created])];
  const r = installHooksFile(file, hooks, tree);
  if (!state.hooksFiles.includes(file)) state.hooksFiles.push(file);
  report.push(`${r.changed ? 'wrote' : 'already installed:'} ${file} (${REGISTRATIONS.length} hook registrations, ${ctx.scope} scope)`);
  if (ctx.scope === 'project') report.push('project scope replaces a user-scope beacon-endpoint plugin for goose sessions started in this directory');

  if (configure) {
    const c = configureOtlp(loc.configYaml, ctx.endpoint);
    if (c.changed) {
      // A second install keeps the first one's record of what the keys held before Beacon.
      const before = state.otlp?.path === loc.configYaml ? state.otlp.edit : {};
      const edit: OtlpEdit = { ...c.edit };
      for (const [k, v] of Object.entries(before)) if (edit[k]) edit[k] = { wrote: edit[k]!.wrote, previous: v.previous };
      state.otlp = { path: loc.configYaml, edit: { ...before, ...edit } };
    }
    report.push(c.changed ? `set the OTLP endpoint in ${loc.configYaml}${c.backup ? ` (backup: ${c.backup})` : ''}` : `${loc.configYaml} already exports to ${ctx.endpoint}`);
  } else {
    const view = readGooseConfig(loc.configYaml);
    if (view.endpoint === ctx.endpoint) report.push(`${loc.configYaml} already exports to ${ctx.endpoint}`);
    // a key already there is changed, not added again: two otel_exporter_otlp_endpoint lines are a duplicate key
    else if (view.endpoint !== undefined) report.push(`goose's config stays yours: in ${loc.configYaml} change ${ENDPOINT_KEY} from ${escapeControls(view.endpoint)} to ${ctx.endpoint} (or rerun with --configure-otlp, which edits it where it stands)`);
    else report.push(`goose's config stays yours: add these lines to ${loc.configYaml} (or rerun with --configure-otlp):\n\n${otlpSnippet(ctx.endpoint)}`);
  }
  writeState(ctx.env, state);
  if (ctx.otlpToken) {
    report.push(`this collector requires its otlpToken, and goose reads OTLP headers from its environment only: add this line to your shell's startup file (then open a new shell):\n\n    export OTEL_EXPORTER_OTLP_HEADERS=${shellQuote(otlpHeadersValue(ctx.otlpToken))}\n`);
  }
  report.push('restart goose (or start a new session): plugins are discovered when a session begins. Then run `beacon doctor`.');
  return report;
}

export function uninstallGoose(ctx: Pick<InstallContext, 'scope' | 'env' | 'cwd' | 'launcher'>): string[] {
  const loc = gooseLocations(ctx.env, ctx.cwd);
  const agents = ctx.scope === 'user' ? loc.userAgentsDir : loc.projectAgentsDir;
  const file = hooksFile(agents);
  const r = uninstallHooksFile(file, agents, ctx.scope === 'project' ? { root: ctx.cwd } : {});
  const report = [r.removed ? `removed ${r.file}` : `nothing to remove: ${r.file} does not exist`];
  const state0 = readState(ctx.env);
  // deepest first: .agents/plugins before .agents
  for (const dir of [join(agents, 'plugins'), agents]) {
    if (!state0.createdDirs?.includes(dir)) continue;
    if (existsSync(dir) && readdirSync(dir).length === 0) rmdirSync(dir);
    if (!existsSync(dir)) state0.createdDirs = state0.createdDirs.filter((d) => d !== dir);
  }
  writeState(ctx.env, state0);
  const state = readState(ctx.env);
  state.hooksFiles = state.hooksFiles.filter((f) => f !== file && existsSync(f));
  if (state.hooksFiles.length === 0) {
    writeState(ctx.env, state);
    report.push(...releaseLauncher(ctx.env, ctx.launcher));
    if (state.otlp) {
      const lines = revertOtlp(state.otlp.path, state.otlp.edit);
      report.push(...(lines.length > 0 ? lines : [`${state.otlp.path}: the OTLP keys beacon install set are gone already`]));
      state.otlp = undefined;
    } else {
      const view = readGooseConfig(loc.configYaml);
      if (view.endpoint) report.push(`goose's ${loc.configYaml} was not edited by beacon install: its ${view.endpoint} export is left as it is`);
    }
  } else {
    report.push(`kept the hook launcher and goose's OTLP settings: still used by ${state.hooksFiles.join(', ')}`);
  }
  writeState(ctx.env, state);
  return report;
}

