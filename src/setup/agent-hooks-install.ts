import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { BeaconError } from '../model/errors';
import { readInTree, removeInTree, writeInTree, type TreeOptions } from '../model/tree-files';
import { agentHookCommand, looksLikeBeacons, parseAgentHookCommand, type AgentHookCall } from './hook-command';
import { getPath, type ArrayEdit } from './agents/settings-edit';
import type { HookSpec } from './agents/hook-spec';

/**
 * The hook half of `beacon install <agent>`: Beacon's one entry per event, appended to the event's
 * array beside the user's own (never replacing them), and taken out again by uninstall — exactly
 * Beacon's, recognized by being what agentHookCommand writes (hook-command.ts), never by a pattern
 * of our own. An entry that is Beacon's by its command but not as Beacon wrote it (edited by hand,
 * another log) is refused unless --force, which replaces only Beacon's entries.
 */

/** One entry Beacon added: where, what, and the containers it had to create for it (removed with it when left empty). */
export interface HookRecord {
  event: string;
  path: string[];
  wrote: unknown;
  /** the outermost object or array on the path that did not exist before */
  createdParent?: string[];
}

/** What the hook commands carry: the launcher they source, the log and config they record into. */
export type HookTarget = Omit<AgentHookCall, 'event' | 'platform'>;

const isBeaconCommand = (c: string, launcher: string) => parseAgentHookCommand(c) !== undefined || looksLikeBeacons(c) || c.includes(launcher);

export interface HookPlan {
  edits: ArrayEdit[];
  records: HookRecord[];
  conflicts: string[];
  /** entries already there exactly as Beacon writes them */
  kept: number;
}

/** The array edits that put Beacon's entries in `doc` (the file's parsed text), or the conflicts that refuse it. */
export function planHookEntries(hooks: HookSpec, platform: string, t: HookTarget, doc: Record<string, unknown>, prior: readonly HookRecord[], force: boolean): HookPlan {
  const plan: HookPlan = { edits: [], records: [], conflicts: [], kept: 0 };
  for (const event of hooks.events) {
    const path = hooks.arrayPath(event);
    const want = hooks.entry(event, agentHookCommand({ ...t, platform, event }));
    const current = getPath(doc, path);
    if (current !== undefined && !Array.isArray(current)) {
      plan.conflicts.push(`  ${path.join('.')} is not a list`);
      continue;
    }
    const elements = (current ?? []) as unknown[];
    const beacons = elements.map((e, i) => ({ e, i, commands: hooks.commandsOf(e) })).filter((x) => x.commands.some((c) => isBeaconCommand(c, t.launcher)));
    if (beacons.length === 1 && isDeepStrictEqual(beacons[0]!.e, want)) {
      plan.kept++;
      continue;
    }
    const mine = prior.find((r) => r.event === event && isDeepStrictEqual(r.path, path));
    const mixed = beacons.filter((x) => x.commands.some((c) => !isBeaconCommand(c, t.launcher)));
    if (mixed.length > 0) {
      plan.conflicts.push(`  ${path.join('.')}[${mixed[0]!.i}] holds your command beside Beacon's: move yours to an entry of its own (--force does not split an entry)`);
      continue;
    }
    const ownWrite = beacons.length === 1 && mine !== undefined && isDeepStrictEqual(beacons[0]!.e, mine.wrote);
    if (beacons.length > 0 && !ownWrite && !force) {
      const command = hooks.commandsOf(want)[0]!;
      plan.conflicts.push(...beacons.map((x) => `  ${path.join('.')}[${x.i}] runs Beacon's launcher but is not the entry Beacon writes: ${x.commands.includes(command) ? 'its other fields were edited' : 'its command is not the one Beacon writes for this log and config'}`));
      continue;
    }
    // Removed from the last, so the indices of the ones before stay right.
    for (const x of [...beacons].reverse()) plan.edits.push({ path, remove: x.i });
    plan.edits.push({ path, append: want });
    let createdParent: string[] | undefined;
    for (let i = 1; i <= path.length; i++) if (getPath(doc, path.slice(0, i)) === undefined) { createdParent = path.slice(0, i); break; }
    plan.records.push(mine ? { ...mine, wrote: want } : { event, path, wrote: want, ...(createdParent ? { createdParent } : {}) });
  }
  return plan;
}

/**
 * The edits that take Beacon's entries out of `doc`: each element still exactly as Beacon wrote it
 * goes; one changed since is kept and named. Returns the containers to drop when left empty.
 */
export function planHookRemoval(records: readonly HookRecord[], doc: Record<string, unknown>, file: string): { edits: ArrayEdit[]; report: string[]; emptied: string[][] } {
  const edits: ArrayEdit[] = [];
  const report: string[] = [];
  const byPath = new Map<string, HookRecord[]>();
  for (const r of records) byPath.set(JSON.stringify(r.path), [...(byPath.get(JSON.stringify(r.path)) ?? []), r]);
  for (const group of byPath.values()) {
    const path = group[0]!.path;
    const current = getPath(doc, path);
    const elements = Array.isArray(current) ? current : [];
    const gone: number[] = [];
    for (const r of group) {
      const i = elements.findIndex((e, j) => !gone.includes(j) && isDeepStrictEqual(e, r.wrote));
      if (i < 0) report.push(`kept ${path.join('.')} in ${file}: Beacon's ${r.event} entry was changed or removed since beacon install wrote it`);
      else gone.push(i);
    }
    for (const i of gone.sort((a, b) => b - a)) edits.push({ path, remove: i });
    if (gone.length > 0) report.push(`removed Beacon's ${group.map((r) => r.event).join(', ')} hook entr${gone.length === 1 ? 'y' : 'ies'} from ${file}`);
  }
  const emptied = [...new Map(records.filter((r) => r.createdParent).map((r) => [JSON.stringify(r.createdParent), r.createdParent!])).values()];
  return { edits, report, emptied };
}

// ---- opencode's plugin: one file Beacon owns whole ------------------------------------------------

export interface PluginState {
  path: string;
  root?: string;
  sha: string;
  createdDirs: string[];
}

const MAX_PLUGIN_BYTES = 1 << 20;
const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

/** Refuses (naming it) a plugin file there that Beacon did not write; true when it is already exactly what Beacon writes now. */
export function checkPlugin(path: string, content: string, prior: PluginState | undefined, tree: TreeOptions, force: boolean): boolean {
  const bytes = readInTree(path, MAX_PLUGIN_BYTES, tree);
  if (bytes === undefined) return false;
  if (bytes.toString('utf8') === content) return true;
  if ((prior?.path === path && prior.sha === sha(bytes)) || force) return false;
  throw new BeaconError('bad_data', `refusing to replace ${path}: it is not the plugin Beacon wrote (edited by hand, or another tool's). Move it away, or pass --force to replace it. Nothing was changed.`);
}

export function writePlugin(path: string, content: string, tree: TreeOptions, prior: PluginState | undefined): PluginState {
  const created = writeInTree(path, content, { ...tree, newMode: 0o644 }).created.reverse();
  return { path, ...(tree.root ? { root: tree.root } : {}), sha: sha(content), createdDirs: prior?.path === path ? prior.createdDirs : created };
}

/** Removes the plugin while it is still exactly what Beacon wrote; refuses (naming it) otherwise. `checkOnly`: refuses or returns, removes nothing. */
export function removePlugin(p: PluginState, checkOnly = false): string {
  const tree = p.root ? { root: p.root } : {};
  const bytes = readInTree(p.path, MAX_PLUGIN_BYTES, tree);
  if (bytes === undefined) return `${p.path} is gone already`;
  if (sha(bytes) !== p.sha) throw new BeaconError('bad_data', `refusing to remove ${p.path}: it was changed since beacon install wrote it. Remove it yourself if it is no longer wanted. Nothing was changed.`);
  if (checkOnly) return '';
  removeInTree(p.path, tree);
  return `removed ${p.path}`;
}
