import { existsSync, readdirSync, rmdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { ensureHookToken } from '../config/hook-token';
import { beaconBaseDir } from '../config/paths';
import { checkPrivateDir } from '../model/file-checks';
import { BeaconError } from '../model/errors';
import { backupInTree, readInTree, removeInTree, writeInTree, type TreeOptions } from '../model/tree-files';
import { BOM, MAX_SETTINGS_BYTES, readSettingsText } from './settings-text';
import { releaseLauncher } from './install-state';
import { renderLauncher, writeLauncher } from './launcher';
import { applyArrayEdits, applySettings, getPath, parseSettings, rawValue, type KeyValue, type SettingsFormat } from './agents/settings-edit';
import type { AgentContext, AgentSpec, OwnedKey, Scope, SettingsFile, Target } from './agents/spec';
import { pluginFilesOf, type HookSpec, type PluginFile } from './agents/hook-spec';
import { shellRc } from './agent-detect';
import { checkPlugin, planHookEntries, planHookRemoval, removePlugin, writePlugin, type HookRecord, type HookTarget } from './agent-hooks-install';
import { agentRecord, halfOf, pluginStates, saveAgentRecord, sha, type AgentFileState, type AgentInstallRecord, type Half, type Halves, type KeyRecord } from './agent-install-state';

/**
 * `beacon install <agent>` / `beacon uninstall <agent>`: both halves by default — the agent's OTLP
 * keys in its own settings file, and Beacon's hook entries beside the user's (hook-spec.ts), with
 * any switch the agent needs and (opencode) the plugin file. Ownership as goose's install: a
 * timestamped backup, only Beacon's keys and entries changed, a reinstall byte-identical, anything
 * the user set differently refused (unless --force), every refusal checked before the first write,
 * and uninstall putting back exactly what install replaced (agent-install-state.ts).
 */

/** No agent's settings file comes near this; a larger one is refused, not read. */
const treeOf = (entry: { root?: string }): TreeOptions => (entry.root ? { root: entry.root } : {});
const show = (v: unknown) => JSON.stringify(v);
const keyName = (format: SettingsFormat, path: string[]) => (format === 'toml' ? `[${path[0]}] ${path.slice(1).join('.')}` : path.join('.'));

export interface AgentHookInstall extends HookTarget {
  /** the Node.js and hook bundle the launcher pins */
  node: string;
  bundle: string;
}

export interface AgentInstallOptions extends AgentContext {
  scope: Scope;
  target: Target;
  capture: boolean;
  force: boolean;
  halves: Halves;
  hooks: AgentHookInstall;
  dryRun?: boolean;
  now?: Date;
  /** also edit the OTLP keys in the agent's own config file, which install otherwise leaves to you (goose's config.yaml: --configure-otlp) */
  configureOtlp?: boolean;
}

export type AgentUninstallOptions = AgentContext & { scope: Scope; target: Target; halves: Halves; launcher: string };

/** One file install edits: the keys it wants there and, for the hook file, the entries. */
interface FileWork {
  sf: SettingsFile;
  root?: string;
  keys: Array<OwnedKey & { half: Half }>;
  hookSpec?: HookSpec;
}

function usageNoScope(spec: AgentSpec, scope: Scope, what: string, other: string): never {
  throw new BeaconError('usage', `${spec.title} has no ${scope}-scope ${what} Beacon edits; use --scope user${other ? ` (or ${other})` : ''}`);
}

/** Every file the chosen halves touch at this scope, keys and entries grouped by file. */
function filesFor(spec: AgentSpec, o: Pick<AgentInstallOptions, 'scope' | 'env' | 'cwd' | 'halves' | 'target' | 'capture'>): { work: FileWork[]; plugins: PluginFile[] } {
  const byPath = new Map<string, FileWork>();
  const root = o.scope === 'project' ? o.cwd : undefined;
  const at = (sf: SettingsFile, fileRoot: string | undefined) => {
    const w = byPath.get(sf.path) ?? { sf, ...(fileRoot ? { root: fileRoot } : {}), keys: [] };
    byPath.set(sf.path, w);
    return w;
  };
  if (o.halves.otlp) {
    const keys = spec.keys(o.target, o.capture);
    const sf = spec.settingsFile(o.scope, o);
    if (!sf && keys.length > 0) usageNoScope(spec, o.scope, 'settings file', spec.hooks?.file(o.scope, o) || (spec.hooks && pluginFilesOf(spec.hooks, o.scope, o).length > 0) ? '--hooks-only for its hooks alone' : '');
    if (sf && keys.length > 0) at(sf, root).keys.push(...keys.map((k) => ({ ...k, half: 'otlp' as const })));
  }
  let plugins: PluginFile[] = [];
  const hooks = spec.hooks;
  if (o.halves.hooks && hooks) {
    const hf = hooks.file(o.scope, o);
    plugins = pluginFilesOf(hooks, o.scope, o);
    if (!hf && plugins.length === 0) usageNoScope(spec, o.scope, 'hook configuration', '--otlp-only for its OTLP export alone');
    if (hf) at(hf, root).hookSpec = hooks;
    // A switch lives where the agent reads it (Codex: its user config.toml), whatever the scope.
    for (const s of hooks.switches?.(o.scope, o) ?? []) at(s.file, s.file.path.startsWith(o.cwd) ? root : undefined).keys.push(...s.keys.map((k) => ({ ...k, half: 'hooks' as const })));
  }
  return { work: [...byPath.values()], plugins };
}

/** A file's planned change: read and judged, nothing written yet. */
interface FilePlan {
  w: FileWork;
  bytes?: Buffer;
  bom: boolean;
  text: string;
  out: string;
  keyRecords: KeyRecord[];
  hookRecords: HookRecord[];
  report: string[];
  conflicts: string[];
  prior?: AgentFileState;
}


function planFile(spec: AgentSpec, w: FileWork, o: AgentInstallOptions, prior: AgentFileState | undefined): FilePlan {
  const { bytes, bom, text } = readSettingsText(w.sf.path, treeOf(w));
  const parsed = parseSettings(w.sf.format, text);
  if (parsed.error !== undefined) throw new BeaconError('bad_data', `${w.sf.path} does not parse (${parsed.error}): fix it, then run beacon install ${spec.id} again. Nothing was changed.`);
  const plan: FilePlan = { w, bytes, bom, text, out: text, keyRecords: [], hookRecords: [], report: [], conflicts: [], ...(prior ? { prior } : {}) };
  const would = o.dryRun ? 'would ' : '';
  const edits: KeyValue[] = [];
  for (const k of w.keys) {
    const cur = getPath(parsed.doc, k.path);
    if (isDeepStrictEqual(cur, k.value)) continue;
    const mine = prior?.keys.find((r) => isDeepStrictEqual(r.path, k.path));
    const ownWrite = mine !== undefined && isDeepStrictEqual(mine.wrote, cur);
    if (cur !== undefined && !ownWrite && !o.force) {
      plan.conflicts.push(`  ${keyName(w.sf.format, k.path)} is ${show(cur)}; Beacon would set ${k.secret ? '(a value with the collector\'s otlpToken)' : show(k.value)}${k.content ? ' (a content switch: --capture-content sets it on)' : ''}`);
      continue;
    }
    edits.push({ path: k.path, value: k.value });
    let createdParent: string[] | undefined;
    for (let i = 1; i < k.path.length; i++) if (getPath(parsed.doc, k.path.slice(0, i)) === undefined) { createdParent = k.path.slice(0, i); break; }
    plan.keyRecords.push(mine && ownWrite
      ? { ...mine, wrote: k.value, half: k.half }
      : { path: k.path, wrote: k.value, half: k.half, ...(cur !== undefined ? { previous: { value: cur, raw: rawValue(w.sf.format, text, k.path) } } : {}), ...(createdParent ? { createdParent } : {}) });
    plan.report.push(`${would}set ${keyName(w.sf.format, k.path)} = ${k.secret ? '(with the collector\'s otlpToken)' : show(k.value)} in ${w.sf.path}`);
  }
  if (edits.length > 0 && plan.conflicts.length === 0) plan.out = applySettings(w.sf.format, w.sf.path, plan.out, edits);
  if (w.hookSpec) {
    const h = planHookEntries(w.hookSpec, spec.id, o.hooks, parsed.doc, prior?.hooks ?? [], o.force);
    plan.conflicts.push(...h.conflicts);
    plan.hookRecords = h.records;
    if (h.edits.length > 0 && plan.conflicts.length === 0) plan.out = applyArrayEdits(w.sf.path, plan.out, h.edits);
    if (h.records.length > 0) plan.report.push(`${would}add Beacon's hook entries for ${h.records.map((r) => r.event).join(', ')} in ${w.sf.path} (beside your own)`);
    if (h.kept > 0 && h.records.length === 0) plan.report.push(`${w.sf.path} already runs Beacon's hooks (${h.kept} events)`);
  }
  if (w.keys.length > 0 && edits.length === 0 && plan.conflicts.length === 0) plan.report.push(`${w.sf.path} already has Beacon's ${w.keys.length} keys as Beacon sets them${w.keys.some((k) => k.half === 'otlp') ? ' (already exports to Beacon)' : ''}`);
  return plan;
}

/** Writes one planned file (after a backup) and returns its new record. */
function commitFile(p: FilePlan, o: AgentInstallOptions, report: string[]): AgentFileState {
  const tree = treeOf(p.w);
  const file = p.w.sf.path;
  let backup: string | undefined;
  if (p.bytes !== undefined) {
    backup = backupInTree(file, p.bytes, o.now ?? new Date(), tree);
    report.push(`backup: ${backup}`);
  }
  const secret = p.w.keys.some((k) => k.secret);
  // The otlpToken is worth nothing if other users can read it here: such a file is written 0600.
  const written = (p.bom ? BOM : '') + p.out;
  const createdDirs = writeInTree(file, written, { ...tree, secret }).created.reverse();
  const prior = p.prior;
  // The chain of Beacon's writes is unbroken when the file is still what Beacon last wrote:
  // the first backup then still restores it exactly. Otherwise undo item by item.
  const unbroken = prior !== undefined && p.bytes !== undefined && prior.writtenSha === sha(p.bytes);
  const keys = new Map((prior?.keys ?? []).map((k) => [JSON.stringify(k.path), k]));
  for (const r of p.keyRecords) keys.set(JSON.stringify(r.path), r);
  const hooks = new Map((prior?.hooks ?? []).map((h) => [h.event, h]));
  for (const r of p.hookRecords) hooks.set(r.event, r);
  if (prior) return { ...prior, writtenSha: sha(written), keys: [...keys.values()], hooks: [...hooks.values()], ...(unbroken ? {} : { backup: undefined, originalSha: undefined }) };
  return { file, format: p.w.sf.format, created: p.bytes === undefined, createdDirs, ...(p.w.root ? { root: p.w.root } : {}), ...(backup ? { backup, originalSha: sha(p.bytes!) } : {}), writtenSha: sha(written), keys: [...keys.values()], hooks: [...hooks.values()] };
}

/** `beacon install <agent>`: what it did (or, dry run, would do), line by line. */
export function installAgent(spec: AgentSpec, o: AgentInstallOptions): string[] {
  const report: string[] = [];
  const record = agentRecord(o.env, spec.id, o.scope);
  const { work, plugins } = filesFor(spec, o);
  // Everything that can refuse is checked before anything is written: a refusal changes nothing.
  const plans = work.map((w) => planFile(spec, w, o, record?.files.find((f) => f.file === w.sf.path)));
  const conflicts = plans.filter((p) => p.conflicts.length > 0);
  if (conflicts.length > 0) {
    const flags = `${o.scope === 'project' ? ' --scope project' : ''}${o.capture ? ' --capture-content' : ''}${o.halves.otlp ? '' : ' --hooks-only'}${o.halves.hooks ? '' : ' --otlp-only'}`;
    throw new BeaconError('bad_data', `${conflicts.map((p) => `refusing to change ${p.w.sf.path}: you set these differently:\n${p.conflicts.join('\n')}`).join('\n')}\nbeacon install ${spec.id}${flags} --force replaces them (after a backup; beacon uninstall ${spec.id} puts your values back). Nothing was changed.`);
  }
  const pluginTree = o.scope === 'project' ? { root: o.cwd } : {};
  const prior = pluginStates(record);
  const owned = plugins.map((f) => {
    const text = f.render({ launcher: o.hooks.launcher, platform: spec.id, log: o.hooks.log, config: o.hooks.config });
    const before = prior.find((s) => s.path === f.path);
    return { path: f.path, text, before, kept: checkPlugin(f.path, text, before, pluginTree, o.force) };
  });
  const usesLauncher = plans.some((p) => p.w.hookSpec) || owned.length > 0;
  if (usesLauncher && !o.dryRun) for (const dir of [beaconBaseDir(o.env), dirname(o.hooks.launcher), dirname(o.hooks.log)]) checkPrivateDir(dir);
  for (const p of plans) report.push(...p.report);
  for (const f of owned) report.push(f.kept ? `${f.path} is already Beacon's ${spec.hooks?.pluginFiles ? 'hook file' : 'plugin'}` : `${o.dryRun ? 'would write' : 'wrote'} Beacon's ${spec.hooks?.pluginFiles ? 'hook file' : 'plugin'} ${f.path}`);
  if (!o.dryRun) {
    if (usesLauncher) {
      const changed = writeLauncher(o.hooks.launcher, renderLauncher(o.hooks.node, o.hooks.bundle));
      ensureHookToken(o.hooks.log);
      report.push(`${changed ? 'wrote' : 'kept'} the hook launcher ${o.hooks.launcher}`);
    }
    const files = [...(record?.files ?? [])];
    for (const p of plans) {
      if (p.out === p.text) continue;
      const entry = commitFile(p, o, report);
      const i = files.findIndex((f) => f.file === entry.file);
      if (i >= 0) files[i] = entry;
      else files.push(entry);
    }
    const states = owned.map((f) => (f.kept && f.before ? f.before : writePlugin(f.path, f.text, pluginTree, f.before)));
    const others = prior.filter((s) => !owned.some((f) => f.path === s.path));
    const all = [...states, ...others];
    // opencode's one plugin keeps the record's `plugin` (as earlier installs wrote it); hook files are a list
    const next: AgentInstallRecord = { agent: spec.id, scope: o.scope, files, ...(spec.hooks?.pluginFiles ? (all.length ? { plugins: all } : {}) : all[0] ? { plugin: all[0] } : {}) };
    saveAgentRecord(o.env, spec.id, o.scope, next);
  }
  report.push(...afterWords(spec, o, usesLauncher));
  return report;
}

function afterWords(spec: AgentSpec, o: AgentInstallOptions, hooks: boolean): string[] {
  const report: string[] = [];
  const lines = o.halves.otlp ? spec.envLines(o.target, o.capture) : [];
  if (lines.length > 0) {
    const rc = shellRc(o.env);
    const missing = lines.filter((l) => o.env[l.name] !== l.value);
    if (missing.length === 0) report.push(`this shell already sets ${lines.map((l) => l.name).join(', ')} as Beacon needs`);
    else report.push(`${spec.title} reads ${lines.map((l) => l.name).join(', ')} from its environment only: add ${lines.length === 1 ? 'this line' : 'these lines'} to ${rc.file} (then open a new shell):\n\n${lines.map((l) => `    ${rc.line(l)}`).join('\n')}\n`);
  }
  if (o.halves.otlp) {
    if (spec.noOtlp) report.push(spec.noOtlp);
    else if (o.capture) report.push(`content capture on: ${spec.title} will export ${spec.contentExport}. Beacon stores it in the event log (secrets redacted).`);
    else report.push(`content capture off (pass --capture-content to export ${spec.contentExport})`);
  }
  if (hooks) report.push(`hooks: every prompt and tool call is recorded through Beacon's hooks, whatever the telemetry switches say`);
  if (hooks && spec.hooks?.afterInstall) report.push(spec.hooks.afterInstall);
  if (!o.dryRun) report.push(`start a new ${spec.title} session, then run beacon doctor ${spec.id}`);
  return report;
}

export function uninstallAgent(spec: AgentSpec, o: AgentUninstallOptions): string[] {
  const report: string[] = [];
  const record = agentRecord(o.env, spec.id, o.scope);
  if (!record) report.push(`nothing to undo: beacon install ${spec.id}${o.scope === 'project' ? ' --scope project' : ''} did not edit any file`);
  if (record) {
    // The plugin files first: the one refusal here, before any file is changed.
    let owned = pluginStates(record);
    if (owned.length > 0 && o.halves.hooks) {
      for (const p of owned) removePlugin(p, true); // every one checked before the first is removed
      for (const p of owned) report.push(removePlugin(p));
      for (const d of [...new Set(owned.flatMap((p) => p.createdDirs))]) if (existsSync(d) && readdirSync(d).length === 0) rmdirSync(d);
      owned = [];
    }
    const files: AgentFileState[] = [];
    for (const entry of record.files) {
      const left = uninstallFile(entry, o.halves, report);
      if (left) files.push(left);
    }
    saveAgentRecord(o.env, spec.id, o.scope, { ...record, files, plugin: record.plugin && owned.length ? record.plugin : undefined, plugins: record.plugins && owned.length ? record.plugins : undefined });
  }
  if (o.halves.hooks) report.push(...releaseLauncher(o.env, o.launcher));
  const lines = o.halves.otlp ? spec.envLines(o.target, true) : [];
  if (lines.length > 0) {
    const rc = shellRc(o.env);
    report.push(`remove the lines beacon install printed from ${rc.file}, if you added them:\n\n${lines.map((l) => `    ${rc.line(l)}`).join('\n')}\n`);
  }
  return report;
}

/** Undoes the chosen halves in one file; returns what is still Beacon's there (the other half), if anything. */
function uninstallFile(entry: AgentFileState, halves: Halves, report: string[]): AgentFileState | undefined {
  const tree = treeOf(entry);
  const file = entry.file;
  const bytes = readInTree(file, MAX_SETTINGS_BYTES, tree);
  if (bytes === undefined) {
    report.push(`${file} is gone: nothing to undo`);
    return undefined;
  }
  const keys = entry.keys.filter((k) => !halves[halfOf(k)]);
  const hooks = halves.hooks ? [] : entry.hooks;
  const everything = keys.length === 0 && hooks.length === 0;
  const ours = sha(bytes) === entry.writtenSha;
  // The backup this entry names (each install's has a name of its own), only while it still holds what install saw.
  const original = ours && everything && entry.backup ? readInTree(entry.backup, MAX_SETTINGS_BYTES, tree) : undefined;
  if (ours && everything && entry.created) {
    removeInTree(file, tree);
    for (const d of entry.createdDirs) if (existsSync(d) && readdirSync(d).length === 0) rmdirSync(d);
    report.push(`removed ${file} (beacon install created it)`);
    return undefined;
  }
  if (original && sha(original) === entry.originalSha) {
    writeInTree(file, original, tree);
    report.push(`restored ${file} as it was before beacon install (from ${entry.backup})`);
    return undefined;
  }
  const removed = { keys: entry.keys.filter((k) => halves[halfOf(k)]), hooks: halves.hooks ? entry.hooks : [] };
  const written = revertItems(entry, bytes.toString('utf8'), removed, report);
  if (everything) return undefined;
  // Still Beacon's last write when it was before: the backup still restores the original exactly later.
  return { ...entry, keys, hooks, ...(written !== undefined ? { writtenSha: sha(written) } : {}), ...(ours ? {} : { backup: undefined, originalSha: undefined }) };
}

/** Undo item by item where the file still holds what Beacon wrote; anything changed since is kept and named. Returns the text written. */
function revertItems(entry: AgentFileState, all: string, removed: { keys: KeyRecord[]; hooks: HookRecord[] }, report: string[]): string | undefined {
  const bom = all.startsWith(BOM);
  const text = bom ? all.slice(1) : all;
  const parsed = parseSettings(entry.format, text);
  if (parsed.error !== undefined) {
    report.push(`${entry.file} no longer parses: left as it is (undo ${[...removed.keys.map((k) => keyName(entry.format, k.path)), ...removed.hooks.map((h) => `Beacon's ${h.event} hook entry`)].join(', ')} yourself)`);
    return undefined;
  }
  const edits: Array<KeyValue & { raw?: string }> = [];
  for (const k of removed.keys) {
    const cur = getPath(parsed.doc, k.path);
    if (cur === undefined) continue;
    if (!isDeepStrictEqual(cur, k.wrote)) {
      report.push(`kept ${keyName(entry.format, k.path)} in ${entry.file}: changed since beacon install set it`);
      continue;
    }
    edits.push(k.previous ? { path: k.path, value: k.previous.value, raw: k.previous.raw } : { path: k.path, value: undefined });
    report.push(k.previous ? `restored ${keyName(entry.format, k.path)} = ${show(k.previous.value)} in ${entry.file}` : `removed ${keyName(entry.format, k.path)} from ${entry.file}`);
  }
  let out = edits.length > 0 ? applySettings(entry.format, entry.file, text, edits) : text;
  if (removed.hooks.length > 0 && entry.format === 'json') {
    const h = planHookRemoval(removed.hooks, parseSettings('json', out).doc ?? {}, entry.file);
    report.push(...h.report);
    if (h.edits.length > 0) out = applyArrayEdits(entry.file, out, h.edits);
  }
  // Objects and arrays Beacon created for its keys and entries go with them when nothing else was put in them (innermost first).
  const candidates = new Map<string, string[]>();
  for (const k of removed.keys) if (k.createdParent) candidates.set(JSON.stringify(k.createdParent), k.createdParent);
  for (const h of removed.hooks) {
    if (!h.createdParent) continue;
    for (let n = h.path.length; n >= h.createdParent.length; n--) candidates.set(JSON.stringify(h.path.slice(0, n)), h.path.slice(0, n));
  }
  if (entry.format === 'json') {
    for (const p of [...candidates.values()].sort((a, b) => b.length - a.length)) {
      const v = getPath(parseSettings('json', out).doc ?? {}, p);
      if (typeof v === 'object' && v !== null && Object.keys(v).length === 0) out = applySettings('json', entry.file, out, [{ path: p, value: undefined }]);
    }
  }
  if (out === text) return undefined;
  const doc = parseSettings(entry.format, out).doc;
  if (entry.created && doc && Object.keys(doc).length === 0) {
    removeInTree(entry.file, treeOf(entry));
    report.push(`removed ${entry.file} (beacon install created it; nothing else is in it)`);
    return undefined;
  }
  const written = (bom ? BOM : '') + out;
  writeInTree(entry.file, written, treeOf(entry));
  return written;
}
