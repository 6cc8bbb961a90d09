import { existsSync, readdirSync, rmdirSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beaconBaseDir } from '../config/paths';
import { checkPrivateDir, ensurePrivateDir, readChecked } from '../model/file-checks';
import { removeInTree, writeInTree } from '../model/tree-files';
import type { OtlpEdit } from './goose-config';

/**
 * What install did, so uninstall can undo exactly that: the hooks files it wrote (the launcher goes
 * with the last of them) and the config.yaml keys it set, with the values they replaced.
 */
export interface InstallState {
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
