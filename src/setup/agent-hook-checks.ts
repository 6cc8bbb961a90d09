import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { escapeControls } from '../model/terminal';
import { getPath, parseSettings } from './agents/settings-edit';
import type { AgentContext, AgentSpec, Scope } from './agents/spec';
import type { HookSpec } from './agents/hook-spec';
import { codexTrustCheck } from './codex-hook-trust';
import type { Check } from './doctor';
import { looksLikeBeacons, parseAgentHookCommand, type AgentHookCall } from './hook-command';
import { probeLauncher } from './launcher-probe';

/** Where doctor reads the hooks from, and what Beacon's own entries must run: this log and config, Beacon's launcher. */
export interface HookDoctorContext extends AgentContext {
  log: string;
  config: string;
  launcher: string;
}

/** One Beacon entry found in an agent's hook file (or plugin): the event it sits under, what it runs. */
export interface FoundEntry {
  event: string;
  call: AgentHookCall;
  /** the element in the array is exactly what install writes for that command */
  exact: boolean;
}

/** What one scope's hook file (or plugin) holds of Beacon's. */
export interface ScopeHooks {
  scope: Scope;
  file: string;
  exists: boolean;
  mtimeMs?: number;
  error?: string;
  entries: FoundEntry[];
  /** commands that look like Beacon's without being exactly one (edited by hand), by event */
  edited: string[];
}

/** Beacon's entries in the agent's hook file at each scope, recognised only through parseAgentHookCommand. */
export function readHookScopes(spec: AgentSpec, ctx: AgentContext): ScopeHooks[] {
  const hooks = spec.hooks!;
  const out: ScopeHooks[] = [];
  if (hooks.pluginFiles) return readHookFiles(hooks.pluginFiles, ctx);
  for (const scope of ['user', 'project'] as const) {
    const plugin = hooks.plugin?.(scope, ctx);
    const sf = plugin ? undefined : hooks.file(scope, ctx);
    const file = plugin?.path ?? sf?.path;
    if (!file || out.some((s) => s.file === file)) continue;
    const found: ScopeHooks = { scope, file, exists: existsSync(file), entries: [], edited: [] };
    out.push(found);
    if (!found.exists) continue;
    found.mtimeMs = statSync(file).mtimeMs;
    const text = readFileSync(file, 'utf8');
    if (plugin) {
      readPlugin(found, text, plugin.render);
      continue;
    }
    const p = parseSettings(sf!.format, text);
    if (p.error !== undefined) {
      found.error = `${file} does not parse (${p.error}): ${spec.title} may ignore it`;
      continue;
    }
    for (const event of hooks.events) {
      const elements = getPath(p.doc, hooks.arrayPath(event));
      for (const element of Array.isArray(elements) ? elements : []) {
        for (const command of hooks.commandsOf(element)) {
          const call = parseAgentHookCommand(command);
          if (call) found.entries.push({ event, call, exact: isDeepStrictEqual(element, hooks.entry(event, command)) });
          else if (looksLikeBeacons(command)) found.edited.push(event);
        }
      }
    }
  }
  return out;
}

/**
 * opencode's plugin: Beacon's when it is byte for byte what `plugin.render` gives for the call its
 * own commands name (so a plugin for another log is told from one edited by hand).
 */
/**
 * Hook files named by their event (Cline), at each scope: the scope's directory stands for its
 * file; each file is Beacon's when it is exactly what install renders for the command it runs.
 */
function readHookFiles(files: NonNullable<HookSpec['pluginFiles']>, ctx: AgentContext): ScopeHooks[] {
  const out: ScopeHooks[] = [];
  for (const scope of ['user', 'project'] as const) {
    const list = files(scope, ctx);
    if (list.length === 0) continue;
    const found: ScopeHooks = { scope, file: dirname(list[0]!.path), exists: false, entries: [], edited: [] };
    out.push(found);
    for (const f of list) {
      if (!existsSync(f.path)) continue;
      found.exists = true;
      found.mtimeMs = Math.max(found.mtimeMs ?? 0, statSync(f.path).mtimeMs);
      const text = readFileSync(f.path, 'utf8');
      const call = text.split('\n').map(parseAgentHookCommand).find((c) => c !== undefined);
      if (call && f.render({ launcher: call.launcher, platform: call.platform, log: call.log, config: call.config }) === text) found.entries.push({ event: call.event, call, exact: true });
      else found.edited.push(f.event ?? basename(f.path));
    }
  }
  return out;
}

function readPlugin(found: ScopeHooks, text: string, render: (call: Omit<AgentHookCall, 'event'>) => string): void {
  const m = /^const COMMANDS = (\{[\s\S]*?\n\});$/m.exec(text);
  let commands: Record<string, unknown> = {};
  try {
    commands = m ? (JSON.parse(m[1]!) as Record<string, unknown>) : {};
  } catch {
    /* not Beacon's shape: edited below */
  }
  const calls = Object.entries(commands).map(([event, c]) => ({ event, call: typeof c === 'string' ? parseAgentHookCommand(c) : undefined }));
  const first = calls[0]?.call;
  if (first && calls.every((c) => c.call) && render({ launcher: first.launcher, platform: first.platform, log: first.log, config: first.config }) === text) {
    found.entries = calls.map((c) => ({ event: c.event, call: c.call!, exact: true }));
  } else found.edited = ['the plugin file'];
}

const reinstall = (spec: AgentSpec, scope: Scope, force: boolean) => `beacon install ${spec.id}${scope === 'project' ? ' --scope project' : ''}${force ? ' --force' : ''}`;

/** The registered check of one scope: every event exactly once, exactly as install writes it, for this log. */
function registeredCheck(spec: AgentSpec, s: ScopeHooks, ctx: HookDoctorContext): Check {
  const id = s.scope === 'user' ? `${spec.id}-hooks` : `${spec.id}-hooks-project`;
  const events = spec.hooks!.events;
  const wrong: string[] = [];
  const forLog = s.entries.filter((e) => e.call.log === ctx.log && e.call.config === ctx.config);
  const otherLog = [...new Set(s.entries.filter((e) => !forLog.includes(e)).map((e) => `${e.call.log} (config ${e.call.config})`))];
  for (const e of s.entries) {
    if (e.call.platform !== spec.id || e.call.event !== e.event) wrong.push(`${e.event} runs Beacon's hook for ${escapeControls(e.call.platform)} ${escapeControls(e.call.event)}`);
    else if (!e.exact) wrong.push(`${e.event}'s entry was changed by hand (it is not the entry install writes)`);
  }
  for (const ev of new Set(s.edited)) wrong.push(`${ev === 'the plugin file' ? ev : `${ev}: a command`} looks like Beacon's but is not what install writes (edited by hand?)`);
  const count = (ev: string) => s.entries.filter((e) => e.event === ev).length;
  const missing = events.filter((ev) => count(ev) === 0);
  const twice = events.filter((ev) => count(ev) > 1);
  const plugin = spec.hooks!.plugin !== undefined;
  if (twice.length) wrong.push(`${twice.join(', ')} ${twice.length === 1 ? 'has' : 'have'} more than one Beacon entry (each event recorded again per entry)`);
  if (missing.length && !plugin && s.entries.length > 0) wrong.push(`no Beacon entry for ${missing.join(', ')}`);
  const where = `${s.scope} scope, ${s.file}`;
  if (wrong.length) return { id, status: 'fail', message: `${where}: ${wrong.join('; ')}`, fix: reinstall(spec, s.scope, s.edited.length > 0 || s.entries.some((e) => !e.exact)) };
  if (otherLog.length) return { id, status: 'warn', message: `${where}: Beacon's hooks record into another log: ${otherLog.map((l) => escapeControls(l)).join(', ')}, not ${ctx.log} (config ${ctx.config}) which doctor reads`, fix: `${reinstall(spec, s.scope, false)} --log ${ctx.log}, or beacon doctor ${spec.id} --log <that log>` };
  return { id, status: 'ok', message: `${where}: ${plugin ? 'Beacon\'s plugin, as install writes it, forwards' : `Beacon's hook on all ${events.length} events`} (${events.join(', ')}) into ${ctx.log}` };
}

/** The keys the agent needs before it runs any hook (Codex's `[features] hooks = true`). */
function switchChecks(spec: AgentSpec, ctx: HookDoctorContext): Check[] {
  const out: Check[] = [];
  for (const { file, keys } of spec.hooks!.switches?.('user', ctx) ?? []) {
    const text = existsSync(file.path) ? readFileSync(file.path, 'utf8') : '';
    const p = parseSettings(file.format, text);
    const id = `${spec.id}-hook-switch`;
    if (p.error !== undefined) {
      out.push({ id, status: 'fail', message: `${file.path} does not parse (${p.error})`, fix: 'fix the file' });
      continue;
    }
    const name = (path: string[]) => (file.format === 'toml' ? `[${path.slice(0, -1).join('.')}] ${path[path.length - 1]}` : path.join('.'));
    const off = keys.filter((k) => !isDeepStrictEqual(getPath(p.doc, k.path), k.value));
    out.push(off.length === 0
      ? { id, status: 'ok', message: `${file.path}: ${keys.map((k) => `${name(k.path)} = ${JSON.stringify(k.value)}`).join(', ')}` }
      : { id, status: 'fail', message: `${file.path}: ${off.map((k) => `${name(k.path)} is ${JSON.stringify(getPath(p.doc, k.path)) ?? 'unset'}, want ${JSON.stringify(k.value)}${k.why ? ` (${k.why})` : ''}`).join('; ')}`, fix: `beacon install ${spec.id}` });
  }
  return out;
}

/**
 * The launcher: doctor runs only Beacon's own (hooksLauncherPath), through the guard, and only when
 * every Beacon entry names it; an entry naming another launcher (a repository's, a project's) is
 * reported with what it would run, never run (issue 29 item 1).
 */
async function launcherCheck(spec: AgentSpec, scopes: ScopeHooks[], ctx: HookDoctorContext): Promise<Check | undefined> {
  const id = `${spec.id}-hook-launcher`;
  const entries = scopes.flatMap((s) => s.entries.map((e) => ({ ...e, s })));
  if (entries.length === 0) return undefined;
  const elsewhere = entries.filter((e) => resolve(ctx.cwd, e.call.launcher) !== ctx.launcher);
  if (elsewhere.length > 0) {
    const named = [...new Set(elsewhere.map((e) => escapeControls(e.call.launcher === resolve(ctx.cwd, e.call.launcher) ? e.call.launcher : `${e.call.launcher} (${resolve(ctx.cwd, e.call.launcher)} in a session started here)`)))].join(', ');
    const files = [...new Set(elsewhere.map((e) => e.s.file))].join(' and ');
    return {
      id, status: 'fail',
      message: `${files} runs ${named} on every hook, not Beacon's launcher ${ctx.launcher}; doctor ran none of it, and ${spec.title} would run it as you`,
      fix: `if you did not install it (a repository you cloned can bring it), remove those entries from ${files}; otherwise beacon install ${spec.id}`,
    };
  }
  return probeLauncher(ctx.launcher, { id, count: entries.length, reinstall: `beacon install ${spec.id}`, what: `${spec.id} hook commands` });
}

/**
 * `beacon doctor <agent>`'s hook half: registered (each scope), the agent's switches and trust, the
 * launcher; and the reasons a missing hook event could have and when the hooks were installed (the
 * newest change of the files holding Beacon's entries), for the events check after it.
 */
export async function agentHookChecks(spec: AgentSpec, ctx: HookDoctorContext): Promise<{ checks: Check[]; reasons: string[]; installed: boolean; installedAtMs?: number }> {
  if (!spec.hooks) return { checks: [], reasons: [], installed: false };
  const scopes = readHookScopes(spec, ctx);
  const checks: Check[] = scopes.filter((s) => s.error).map((s) => ({ id: `${spec.id}-hooks`, status: 'fail' as const, message: s.error!, fix: 'fix the file' }));
  const withOurs = scopes.filter((s) => s.entries.length > 0 || s.edited.length > 0);
  const reasons: string[] = [];
  if (withOurs.length === 0) {
    // A warning, not a failure: the OTLP half alone is a setup install offers (one half only).
    checks.push({ id: `${spec.id}-hooks`, status: 'warn', message: `not installed: ${scopes.map((s) => s.file).join(' and ')} ${scopes.length > 1 ? 'hold' : 'holds'} no Beacon hook: no prompts, command lines or diffs beyond what ${spec.title}'s telemetry exports`, fix: `beacon install ${spec.id}` });
    reasons.push('its hooks are not installed');
    return { checks, reasons, installed: false };
  }
  for (const s of withOurs) checks.push(registeredCheck(spec, s, ctx));
  if (withOurs.every((s) => s.scope === 'project')) reasons.push(`installed at project scope only: sessions started outside ${ctx.cwd} do not run them`);
  const installedAt = Math.max(...withOurs.map((s) => s.mtimeMs ?? 0));
  reasons.push(`no session since ${new Date(installedAt).toISOString()}, when ${withOurs.map((s) => s.file).join(' and ')} last changed`);
  for (const c of switchChecks(spec, ctx)) {
    checks.push(c);
    if (c.status !== 'ok') reasons.unshift(`the switch is off (${c.message})`);
  }
  if (spec.hooks.afterInstall) {
    const trust = spec.id === 'codex' ? codexTrustCheck(spec, withOurs, ctx) : undefined;
    const t = trust ?? { id: `${spec.id}-hook-trust`, status: 'warn' as const, message: `doctor cannot see whether ${spec.title} trusts the hooks: ${spec.hooks.afterInstall}` };
    checks.push(t);
    if (t.status !== 'ok') reasons.unshift(`${spec.title} has not trusted them`);
  }
  const launcher = await launcherCheck(spec, withOurs, ctx);
  if (launcher) checks.push(launcher);
  return { checks, reasons, installed: true, installedAtMs: installedAt };
}
