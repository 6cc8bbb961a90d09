import { existsSync, readdirSync, rmdirSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensureHookToken } from '../config/hook-token';
import { otlpHeadersValue } from '../config/otlp-token';
import { beaconBaseDir } from '../config/paths';
import { isGooseName } from '../model/harness';
import { checkPrivateDir, ensurePrivateDir, readChecked } from '../model/file-checks';
import { renderLauncher, writeLauncher } from './launcher';
import { removeInTree, writeInTree } from '../model/tree-files';
import { BeaconError } from '../model/errors';
import { didYouMean } from '../model/suggest';
import { escapeControls } from '../model/terminal';
import { ENDPOINT_KEY, checkEditable, configureOtlp, otlpSnippet, readGooseConfig, revertOtlp, type OtlpEdit } from './goose-config';
import { gooseLocations, hooksFile } from './goose-paths';
import { REGISTRATIONS, checkInstallable, installHooksFile, renderHooksJson, uninstallHooksFile } from './hooks-file';
import { shellQuote } from '../model/shell-quote';

const GOOSE_AI = new Set(['gooseai', 'goose-ai', 'goose.ai']);

/** Install targets are named in Beacon's spellings; GooseAI (an inference service) is refused by name. */
export function resolveHarness(name: string | undefined): 'goose' {
  if (name === undefined) throw new BeaconError('usage', 'which harness? supported: goose (beacon install goose)');
  if (isGooseName(name)) return 'goose';
  if (GOOSE_AI.has(name.trim().toLowerCase())) {
    throw new BeaconError('usage', `"${name}" is GooseAI, an LLM inference service from another company, not the goose agent; Beacon installs nothing for it. Did you mean "goose"?`);
  }
  throw new BeaconError('usage', `unsupported harness "${name}"${didYouMean(name, ['goose'])} (supported: goose)`);
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

/**
 * What install did, so uninstall can undo exactly that: the hooks files it wrote (the launcher goes
 * with the last of them) and the config.yaml keys it set, with the values they replaced.
 */
interface InstallState {
  hooksFiles: string[];
  /** directories above the plugin that install created (`.agents`, `.agents/plugins`): uninstall removes them when empty */
  createdDirs?: string[];
  otlp?: { path: string; edit: OtlpEdit };
  /** the other agents' settings files install edited (src/setup/agent-install.ts), kept as they are here */
  agents?: Record<string, unknown>;
}

export const statePath = (env: NodeJS.ProcessEnv) => join(beaconBaseDir(env), 'install-state.json');

/** No install records more than this; a larger file is refused, not read. */
const MAX_STATE_BYTES = 4 << 20;

/**
 * Read as Beacon's own file (model/file-checks.ts): it names the files uninstall removes and
 * restores, so one another user could write or link is refused, not obeyed.
 */
export function readState(env: NodeJS.ProcessEnv): InstallState {
  const file = statePath(env);
  let text: string;
  try {
    checkPrivateDir(dirname(file));
    text = readChecked(file, MAX_STATE_BYTES).toString('utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { hooksFiles: [] };
    throw e;
  }
  try {
    const s = JSON.parse(text) as InstallState;
    const strings = (a: unknown) => (Array.isArray(a) ? a.filter((f): f is string => typeof f === 'string') : []);
    return { hooksFiles: strings(s.hooksFiles), createdDirs: strings(s.createdDirs), otlp: s.otlp, ...(s.agents && typeof s.agents === 'object' ? { agents: s.agents } : {}) };
  } catch {
    return { hooksFiles: [] };
  }
}

export function writeState(env: NodeJS.ProcessEnv, state: InstallState): void {
  const file = statePath(env);
  if (state.hooksFiles.length === 0 && !state.otlp && !state.createdDirs?.length && Object.keys(state.agents ?? {}).length === 0) {
    removeInTree(file);
    return;
  }
  ensurePrivateDir(dirname(file));
  writeInTree(file, `${JSON.stringify(state, null, 2)}\n`, { secret: true });
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

/** An agent's install record runs the launcher when it holds hook entries or a plugin (agent-install-state.ts). */
function agentUsesLauncher(record: unknown): boolean {
  const r = record as { files?: Array<{ hooks?: unknown[] }>; plugin?: unknown; plugins?: unknown[] } | null;
  return Boolean(r?.plugin) || (Array.isArray(r?.plugins) && r.plugins.length > 0) || (Array.isArray(r?.files) && r.files.some((f) => Array.isArray(f?.hooks) && f.hooks.length > 0));
}

/**
 * The launcher serves goose's hooks files and every agent's hook entries, at every scope: it goes
 * (with the directories it leaves empty) when the last of them is uninstalled, and stays before.
 */
export function releaseLauncher(env: NodeJS.ProcessEnv, launcher: string): string[] {
  const state = readState(env);
  const users = [...state.hooksFiles, ...Object.entries(state.agents ?? {}).filter(([, r]) => agentUsesLauncher(r)).map(([k]) => `beacon install ${k.replace(/:user$/, '').replace(/:project$/, ' --scope project')}`)];
  if (users.length > 0) return existsSync(launcher) ? [`kept the hook launcher ${launcher}: still used by ${users.join(', ')}`] : [];
  if (!existsSync(launcher)) return [];
  unlinkSync(launcher);
  removeEmptyDirs(dirname(launcher), beaconBaseDir(env));
  return [`removed the hook launcher ${launcher}`];
}

/** Removes `dir` and its parents while empty, never above `stop`. */
function removeEmptyDirs(dir: string, stop: string): void {
  for (let d = dir; d.startsWith(stop) && d.length >= stop.length; d = dirname(d)) {
    if (!existsSync(d) || readdirSync(d).length > 0) break;
    rmdirSync(d);
    if (d === stop) break;
  }
}
