import { createHash } from 'node:crypto';
import { existsSync, readdirSync, rmdirSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { BeaconError } from '../model/errors';
import { backupInTree, readInTree, removeInTree, writeInTree, type TreeOptions } from '../model/tree-files';
import { readState, writeState } from './install';
import { applySettings, getPath, parseSettings, rawValue, type KeyValue, type SettingsFormat } from './agents/settings-edit';
import type { AgentContext, AgentSpec, Scope, Target } from './agents/spec';
import { shellRc } from './agent-detect';

/**
 * `beacon install <agent>` / `beacon uninstall <agent>` for the agents configured through their own
 * settings file (and, where the agent reads some switches from its environment only, the lines to
 * add). Ownership as goose's install: a timestamped backup, only Beacon's keys changed, a reinstall
 * byte-identical, a value the user set differently refused (unless --force), and uninstall putting
 * back exactly what install replaced — recorded in install-state.json under `agents`.
 */

interface KeyRecord {
  path: string[];
  wrote: unknown;
  /** the value the key held before Beacon, and its exact text; absent: the key was absent */
  previous?: { value: unknown; raw?: string };
  /** the outermost object on the path that did not exist before (removed with the key when left empty) */
  createdParent?: string[];
}

export interface AgentFileState {
  agent: string;
  scope: Scope;
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
}

const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');
/** No agent's settings file comes near this; a larger one is refused, not read. */
const MAX_SETTINGS_BYTES = 8 << 20;
const treeOf = (entry: Pick<AgentFileState, 'root'>): TreeOptions => (entry.root ? { root: entry.root } : {});
const stateKey = (agent: string, scope: Scope) => `${agent}:${scope}`;
const show = (v: unknown) => JSON.stringify(v);
const keyName = (format: SettingsFormat, path: string[]) => (format === 'toml' ? `[${path[0]}] ${path.slice(1).join('.')}` : path.join('.'));

function agentStates(env: NodeJS.ProcessEnv): Record<string, AgentFileState> {
  return (readState(env).agents ?? {}) as Record<string, AgentFileState>;
}

function saveAgentState(env: NodeJS.ProcessEnv, key: string, entry: AgentFileState | undefined): void {
  const state = readState(env);
  const agents = { ...((state.agents ?? {}) as Record<string, AgentFileState>) };
  if (entry) agents[key] = entry;
  else delete agents[key];
  state.agents = agents;
  if (Object.keys(agents).length === 0) delete state.agents;
  writeState(env, state);
}

export interface AgentInstallOptions extends AgentContext {
  scope: Scope;
  target: Target;
  capture: boolean;
  force: boolean;
  dryRun?: boolean;
  now?: Date;
}

function resolveFile(spec: AgentSpec, scope: Scope, ctx: AgentContext) {
  const file = spec.settingsFile(scope, ctx);
  if (!file && spec.keys({ protocol: 'http', base: 'http://127.0.0.1:0', port: 0 }, false).length > 0) {
    throw new BeaconError('usage', `${spec.title} has no ${scope}-scope settings file Beacon edits; use --scope user`);
  }
  return file;
}

/** `beacon install <agent>`: what it did (or, dry run, would do), line by line. */
export function installAgent(spec: AgentSpec, o: AgentInstallOptions): string[] {
  const report: string[] = [];
  const would = o.dryRun ? 'would ' : '';
  const sf = resolveFile(spec, o.scope, o);
  const wanted = spec.keys(o.target, o.capture);
  if (sf && wanted.length > 0) {
    const root = o.scope === 'project' ? o.cwd : undefined;
    const tree = treeOf({ root });
    // Read through the checked tree: a symlink planted on the way, or a directory others may write, is refused here, before any write.
    const bytes = readInTree(sf.path, MAX_SETTINGS_BYTES, tree);
    const existed = bytes !== undefined;
    const text = bytes?.toString('utf8') ?? '';
    const parsed = parseSettings(sf.format, text);
    if (parsed.error !== undefined) throw new BeaconError('bad_data', `${sf.path} does not parse (${parsed.error}): fix it, then run beacon install ${spec.id} again. Nothing was changed.`);
    const key = stateKey(spec.id, o.scope);
    const prior = agentStates(o.env)[key];
    const priorFor = (path: string[]) => (prior?.file === sf.path ? prior.keys.find((k) => isDeepStrictEqual(k.path, path)) : undefined);
    const edits: KeyValue[] = [];
    const records: KeyRecord[] = [];
    const conflicts: string[] = [];
    for (const k of wanted) {
      const cur = getPath(parsed.doc, k.path);
      if (isDeepStrictEqual(cur, k.value)) continue;
      const mine = priorFor(k.path);
      if (cur !== undefined && !(mine && isDeepStrictEqual(mine.wrote, cur)) && !o.force) {
        conflicts.push(`  ${keyName(sf.format, k.path)} is ${show(cur)}; Beacon would set ${k.secret ? '(a value with the collector\'s otlpToken)' : show(k.value)}${k.content ? ' (a content switch: --capture-content sets it on)' : ''}`);
        continue;
      }
      edits.push({ path: k.path, value: k.value });
      let createdParent: string[] | undefined;
      for (let i = 1; i < k.path.length; i++) if (getPath(parsed.doc, k.path.slice(0, i)) === undefined) { createdParent = k.path.slice(0, i); break; }
      records.push(mine && cur !== undefined && isDeepStrictEqual(mine.wrote, cur)
        ? { ...mine, wrote: k.value }
        : { path: k.path, wrote: k.value, ...(cur !== undefined ? { previous: { value: cur, raw: rawValue(sf.format, text, k.path) } } : {}), ...(createdParent ? { createdParent } : {}) });
    }
    if (conflicts.length > 0) {
      throw new BeaconError('bad_data', `refusing to change ${sf.path}: you set these differently:\n${conflicts.join('\n')}\nbeacon install ${spec.id}${o.scope === 'project' ? ' --scope project' : ''}${o.capture ? ' --capture-content' : ''} --force replaces them (after a backup; beacon uninstall ${spec.id} puts your values back). Nothing was changed.`);
    }
    if (edits.length === 0) {
      report.push(`${sf.path} already exports to Beacon (${wanted.length} keys as Beacon sets them)`);
    } else {
      const out = applySettings(sf.format, sf.path, text, edits);
      const secret = (path: string[]) => wanted.some((k) => k.secret && isDeepStrictEqual(k.path, path));
      for (const e of edits) report.push(`${would}set ${keyName(sf.format, e.path)} = ${secret(e.path) ? '(with the collector\'s otlpToken)' : show(e.value)} in ${sf.path}`);
      if (!o.dryRun) {
        let backup: string | undefined;
        if (existed) {
          backup = backupInTree(sf.path, bytes, o.now ?? new Date(), tree);
          report.push(`backup: ${backup}`);
        }
        // The otlpToken is worth nothing if other users can read it here: such a file is written 0600.
        const createdDirs = writeInTree(sf.path, out, { ...tree, secret: wanted.some((k) => k.secret) }).created.reverse();
        // The chain of Beacon's writes is unbroken when the file is still what Beacon last wrote:
        // the first backup then still restores it exactly. Otherwise undo key by key.
        const unbroken = prior !== undefined && prior.file === sf.path && prior.writtenSha === sha(text);
        const merged = new Map((prior?.file === sf.path ? prior.keys : []).map((k) => [JSON.stringify(k.path), k]));
        for (const r of records) merged.set(JSON.stringify(r.path), r);
        const entry: AgentFileState = prior && prior.file === sf.path
          ? { ...prior, writtenSha: sha(out), keys: [...merged.values()], ...(unbroken ? {} : { backup: undefined, originalSha: undefined }) }
          : { agent: spec.id, scope: o.scope, file: sf.path, format: sf.format, created: !existed, createdDirs, ...(root ? { root } : {}), ...(backup ? { backup, originalSha: sha(bytes!) } : {}), writtenSha: sha(out), keys: records };
        saveAgentState(o.env, key, entry);
      }
    }
  }
  const lines = spec.envLines(o.target, o.capture);
  if (lines.length > 0) {
    const rc = shellRc(o.env);
    const missing = lines.filter((l) => o.env[l.name] !== l.value);
    if (missing.length === 0) report.push(`this shell already sets ${lines.map((l) => l.name).join(', ')} as Beacon needs`);
    else report.push(`${spec.title} reads ${lines.map((l) => l.name).join(', ')} from its environment only: add ${lines.length === 1 ? 'this line' : 'these lines'} to ${rc.file} (then open a new shell):\n\n${lines.map((l) => `    ${rc.line(l)}`).join('\n')}\n`);
  }
  if (o.capture) report.push(`content capture on: ${spec.title} will export ${spec.contentExport}. Beacon stores it in the event log (secrets redacted).`);
  else report.push(`content capture off (pass --capture-content to export ${spec.contentExport})`);
  if (!o.dryRun) report.push(`start a new ${spec.title} session, then run beacon doctor ${spec.id}`);
  return report;
}

export function uninstallAgent(spec: AgentSpec, o: AgentContext & { scope: Scope; target: Target }): string[] {
  const report: string[] = [];
  const sf = resolveFile(spec, o.scope, o);
  const key = stateKey(spec.id, o.scope);
  const entry = agentStates(o.env)[key];
  if (sf && !entry) report.push(`nothing to undo in ${sf.path}: beacon install ${spec.id} did not edit it`);
  if (entry) {
    const file = entry.file;
    const tree = treeOf(entry);
    const bytes = readInTree(file, MAX_SETTINGS_BYTES, tree);
    if (bytes === undefined) {
      report.push(`${file} is gone: nothing to undo`);
    } else {
      const ours = sha(bytes) === entry.writtenSha;
      // The backup this entry names (each install's has a name of its own), only while it still holds what install saw.
      const original = ours && entry.backup ? readInTree(entry.backup, MAX_SETTINGS_BYTES, tree) : undefined;
      if (ours && entry.created) {
        removeInTree(file, tree);
        for (const d of entry.createdDirs) if (existsSync(d) && readdirSync(d).length === 0) rmdirSync(d);
        report.push(`removed ${file} (beacon install created it)`);
      } else if (original && sha(original) === entry.originalSha) {
        writeInTree(file, original, tree);
        report.push(`restored ${file} as it was before beacon install (from ${entry.backup})`);
      } else {
        report.push(...revertKeys(entry, bytes.toString('utf8')));
      }
    }
    saveAgentState(o.env, key, undefined);
  }
  const lines = spec.envLines(o.target, true);
  if (lines.length > 0) {
    const rc = shellRc(o.env);
    report.push(`remove the lines beacon install printed from ${rc.file}, if you added them:\n\n${lines.map((l) => `    ${rc.line(l)}`).join('\n')}\n`);
  }
  return report;
}

/** Undo key by key where the file still holds what Beacon wrote; anything changed since is kept and named. */
function revertKeys(entry: AgentFileState, text: string): string[] {
  const report: string[] = [];
  const parsed = parseSettings(entry.format, text);
  if (parsed.error !== undefined) return [`${entry.file} no longer parses: left as it is (undo ${entry.keys.map((k) => keyName(entry.format, k.path)).join(', ')} yourself)`];
  const edits: Array<KeyValue & { raw?: string }> = [];
  for (const k of entry.keys) {
    const cur = getPath(parsed.doc, k.path);
    if (cur === undefined) continue;
    if (!isDeepStrictEqual(cur, k.wrote)) {
      report.push(`kept ${keyName(entry.format, k.path)} in ${entry.file}: changed since beacon install set it`);
      continue;
    }
    edits.push(k.previous ? { path: k.path, value: k.previous.value, raw: k.previous.raw } : { path: k.path, value: undefined });
    report.push(k.previous ? `restored ${keyName(entry.format, k.path)} = ${show(k.previous.value)} in ${entry.file}` : `removed ${keyName(entry.format, k.path)} from ${entry.file}`);
  }
  if (edits.length === 0) return report;
  let out = applySettings(entry.format, entry.file, text, edits);
  // Objects Beacon created for its keys go with them when nothing else was put in them.
  const after = parseSettings(entry.format, out).doc ?? {};
  const empty = [...new Map(entry.keys.filter((k) => k.createdParent).map((k) => [JSON.stringify(k.createdParent), k.createdParent!])).values()]
    .filter((p) => { const v = getPath(after, p); return typeof v === 'object' && v !== null && Object.keys(v).length === 0; });
  if (empty.length > 0 && entry.format === 'json') out = applySettings(entry.format, entry.file, out, empty.map((p) => ({ path: p, value: undefined })));
  if (entry.created && (parseSettings(entry.format, out).doc && Object.keys(parseSettings(entry.format, out).doc!).length === 0)) {
    removeInTree(entry.file, treeOf(entry));
    report.push(`removed ${entry.file} (beacon install created it; nothing else is in it)`);
    return report;
  }
  writeInTree(entry.file, out, treeOf(entry));
  return report;
}


