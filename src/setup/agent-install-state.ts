import { createHash } from 'node:crypto';
import { readState, writeState } from './install-state';
import type { SettingsFormat } from './agents/settings-edit';
import type { Scope } from './agents/spec';
import type { HookRecord, PluginState } from './agent-hooks-install';

/**
 * What `beacon install <agent>` did, so uninstall undoes exactly that: per agent and scope, every
 * file it edited (the keys it set with the values they replaced, the hook entries it added) and the
 * plugin file it wrote — in install-state.json under `agents`, beside goose's record.
 */

/** The two halves of an install: the agent's OTLP export keys, and Beacon's hooks (entries, switches, plugin). */
export type Half = 'otlp' | 'hooks';
export type Halves = Record<Half, boolean>;

export interface KeyRecord {
  path: string[];
  wrote: unknown;
  /** the half the key belongs to (absent in records older than the hook half: the OTLP one) */
  half?: Half;
  /** the value the key held before Beacon, and its exact text; absent: the key was absent */
  previous?: { value: unknown; raw?: string };
  /** the outermost object on the path that did not exist before (removed with the key when left empty) */
  createdParent?: string[];
}

export interface AgentFileState {
  file: string;
  format: SettingsFormat;
  /** install created the file (uninstall removes it), and these directories */
  created: boolean;
  createdDirs: string[];
  /** project scope: the project directory, below which no symlink is followed (model/tree-files.ts) */
  root?: string;
  /** the file as it was before Beacon's first edit (a whole-file restore is exact while the file is still Beacon's last write) */
  backup?: string;
  originalSha?: string;
  writtenSha: string;
  keys: KeyRecord[];
  hooks: HookRecord[];
}

export interface AgentInstallRecord {
  agent: string;
  scope: Scope;
  files: AgentFileState[];
  plugin?: PluginState;
  /** the hook files Beacon wrote whole (Cline's, one per event) */
  plugins?: PluginState[];
}

/** Every file the install wrote whole and owns: the plugin, or the hook files. */
export function pluginStates(record: AgentInstallRecord | undefined): PluginState[] {
  return [...(record?.plugin ? [record.plugin] : []), ...(record?.plugins ?? [])];
}

export const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');
export const halfOf = (k: KeyRecord): Half => k.half ?? 'otlp';
const stateKey = (agent: string, scope: Scope) => `${agent}:${scope}`;

/** The record of an agent's install at a scope; one written before the hook half (a single file) is read as one file of OTLP keys. */
export function agentRecord(env: NodeJS.ProcessEnv, agent: string, scope: Scope): AgentInstallRecord | undefined {
  const raw = (readState(env).agents ?? {})[stateKey(agent, scope)] as (Partial<AgentInstallRecord> & Partial<AgentFileState>) | undefined;
  if (!raw || typeof raw !== 'object') return undefined;
  if (Array.isArray(raw.files)) return { agent, scope, files: raw.files.map((f) => ({ ...f, hooks: f.hooks ?? [] })), ...(raw.plugin ? { plugin: raw.plugin } : {}), ...(Array.isArray(raw.plugins) ? { plugins: raw.plugins } : {}) };
  if (typeof raw.file === 'string') return { agent, scope, files: [{ ...(raw as AgentFileState), hooks: [] }] };
  return undefined;
}

export function saveAgentRecord(env: NodeJS.ProcessEnv, agent: string, scope: Scope, record: AgentInstallRecord | undefined): void {
  const state = readState(env);
  const agents = { ...(state.agents ?? {}) };
  const empty = !record || (record.files.length === 0 && pluginStates(record).length === 0);
  if (empty) delete agents[stateKey(agent, scope)];
  else agents[stateKey(agent, scope)] = record;
  state.agents = agents;
  if (Object.keys(agents).length === 0) delete state.agents;
  writeState(env, state);
}
