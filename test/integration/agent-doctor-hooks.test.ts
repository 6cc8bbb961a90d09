/**
 * Issue 30 item 5, doctor's half: `beacon doctor <agent>` checks the hook half of every agent —
 * registered (each event exactly once, as install writes it, for this log), the agent's switch and
 * trust (Codex), the launcher (run only when it is Beacon's own and sound), the newest hook event or
 * the reasons there is none, and --send-test through Beacon's own hook command. The fixtures are
 * built from the same data install writes (HookSpec, agentHookCommand), in temp HOMEs.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { defaultConfigPath, defaultEventLogPath, hooksLauncherPath } from '../../src/config/paths';
import { AGENT_SPECS, findAgent } from '../../src/setup/agents/registry';
import type { AgentSpec, Scope } from '../../src/setup/agents/spec';
import { agentHookCommand } from '../../src/setup/hook-command';
import { beaconIn as beacon, fakeHome, type Home } from '../helpers/fake-home';

type Check = { id: string; status: string; message: string; fix?: string };
const doctor = (h: Home, args: string[]) => {
  const r = beacon(h, ['doctor', ...args, '--json']);
  assert.ok(r.stdout, r.stderr);
  return JSON.parse(r.stdout).checks as Check[];
};
const find = (checks: Check[], id: string) => {
  const c = checks.find((x) => x.id === id);
  assert.ok(c, `no ${id} in ${JSON.stringify(checks, null, 1)}`);
  return c!;
};

/** A home with Beacon's launcher written (beacon install goose writes it; the agent's install writes the same one). */
function homeWithLauncher(): Home {
  const h = fakeHome();
  const r = beacon(h, ['install', 'goose']);
  assert.equal(r.status, 0, r.stderr);
  return h;
}

const ctxOf = (h: Home) => ({ env: h.env, cwd: h.cwd });
const callOf = (h: Home, spec: AgentSpec, over: { launcher?: string; log?: string } = {}) => ({
  launcher: over.launcher ?? hooksLauncherPath(h.env), platform: spec.id, log: over.log ?? defaultEventLogPath(h.env), config: defaultConfigPath(h.env),
});

function setPath(doc: Record<string, unknown>, path: string[], value: unknown) {
  let o = doc;
  for (const k of path.slice(0, -1)) o = (o[k] ??= {}) as Record<string, unknown>;
  o[path[path.length - 1]!] = value;
}

/**
 * Beacon's entries as install writes them (spec.hooks.entry at spec.hooks.arrayPath), or opencode's
 * plugin as plugin.render gives it; `edit` may change the document first. Codex's switch on unless told.
 */
function writeHooks(h: Home, spec: AgentSpec, o: { scope?: Scope; launcher?: string; log?: string; skip?: string; edit?: (doc: Record<string, unknown>) => void; switchOn?: boolean } = {}): string {
  const hooks = spec.hooks!;
  const scope = o.scope ?? 'user';
  const files = hooks.pluginFiles?.(scope, ctxOf(h));
  if (files) { // Cline: one file per event, the event's file left out for `skip`
    for (const f of files) {
      rmSync(f.path, { force: true });
      if (f.event === o.skip) continue;
      mkdirSync(dirname(f.path), { recursive: true });
      writeFileSync(f.path, f.render(callOf(h, spec, o)));
    }
    return dirname(files[0]!.path);
  }
  const plugin = hooks.plugin?.(scope, ctxOf(h));
  if (plugin) {
    mkdirSync(dirname(plugin.path), { recursive: true });
    writeFileSync(plugin.path, plugin.render(callOf(h, spec, o)));
    return plugin.path;
  }
  const file = hooks.file(scope, ctxOf(h))!.path;
  const doc: Record<string, unknown> = {};
  for (const event of hooks.events) {
    if (event === o.skip) continue;
    setPath(doc, hooks.arrayPath(event), [hooks.entry(event, agentHookCommand({ ...callOf(h, spec, o), event }))]);
  }
  o.edit?.(doc);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
  for (const sw of hooks.switches?.(scope, ctxOf(h)) ?? []) {
    if (o.switchOn === false) continue;
    mkdirSync(dirname(sw.file.path), { recursive: true });
    writeFileSync(sw.file.path, sw.keys.map((k) => `[${k.path.slice(0, -1).join('.')}]\n${k.path[k.path.length - 1]} = ${JSON.stringify(k.value)}\n`).join(''));
  }
  return file;
}

/** The command an agent would run for `event`, read back from the file as the agent reads it. */
function installedCommand(h: Home, spec: AgentSpec, event: string): string {
  const hookFile = spec.hooks!.pluginFiles?.('user', ctxOf(h)).find((f) => f.event === event);
  if (hookFile) return `sh ${hookFile.path}`; // Cline runs the file by its shebang
  const file = spec.hooks!.file('user', ctxOf(h))!.path;
  let v: unknown = JSON.parse(readFileSync(file, 'utf8'));
  for (const k of spec.hooks!.arrayPath(event)) v = (v as Record<string, unknown>)[k];
  return spec.hooks!.commandsOf((v as unknown[])[0])[0]!;
}

const hookAgents = AGENT_SPECS.filter((a) => a.hooks);
const preTool: Record<string, string> = { 'claude-code': 'PreToolUse', codex: 'PreToolUse', 'gemini-cli': 'BeforeTool', 'qwen-code': 'PreToolUse', 'copilot-cli': 'preToolUse', opencode: 'tool.execute.before', cline: 'PreToolUse', pi: 'tool_call' };

describe('beacon doctor <agent>: Beacon\'s hook entries registered, each exactly as install writes it', () => {
  it('covers the seven agents', () => assert.deepEqual(hookAgents.map((a) => a.id).sort(), Object.keys(preTool).sort()));
  for (const spec of hookAgents) {
    it(`${spec.id}: installed → ok with its launcher answering; not installed → warn naming beacon install; ${spec.hooks!.plugin ? 'the plugin edited' : 'an event missing, a command edited'} → fail`, () => {
      const h = homeWithLauncher();
      const none = find(doctor(h, [spec.id]), `${spec.id}-hooks`);
      assert.equal(none.status, 'warn');
      assert.match(none.message, /not installed/);
      assert.equal(none.fix, `beacon install ${spec.id}`);

      const file = writeHooks(h, spec);
      const ok = doctor(h, [spec.id]);
      assert.equal(find(ok, `${spec.id}-hooks`).status, 'ok', JSON.stringify(ok));
      const launcher = find(ok, `${spec.id}-hook-launcher`);
      assert.equal(launcher.status, 'ok', launcher.message);
      assert.match(launcher.message, /which answers \(beacon-hooks /);

      if (spec.hooks!.plugin) {
        writeFileSync(file, readFileSync(file, 'utf8').replace("resolve('');\n    return;", "resolve('');\n    return; // mine"));
        const edited = find(doctor(h, [spec.id]), `${spec.id}-hooks`);
        assert.equal(edited.status, 'fail');
        assert.match(edited.message, /the plugin file looks like Beacon's but is not what install writes/);
        assert.equal(edited.fix, `beacon install ${spec.id} --force`);
        return;
      }
      const last = spec.hooks!.events[spec.hooks!.events.length - 1]!;
      writeHooks(h, spec, { skip: last });
      const missing = find(doctor(h, [spec.id]), `${spec.id}-hooks`);
      assert.equal(missing.status, 'fail');
      assert.ok(missing.message.endsWith(`no Beacon entry for ${last}`), missing.message);

      const pre = preTool[spec.id]!;
      writeHooks(h, spec, { edit: (doc) => { const s = JSON.stringify(doc); Object.assign(doc, JSON.parse(s.replace(`'${pre}';`, `'${pre}' --verbose;`))); } });
      const preFile = spec.hooks!.pluginFiles?.('user', ctxOf(h)).find((f) => f.event === pre)?.path;
      if (preFile) writeFileSync(preFile, readFileSync(preFile, 'utf8').replace(`'${pre}';`, `'${pre}' --verbose;`));
      const edited = find(doctor(h, [spec.id]), `${spec.id}-hooks`);
      assert.equal(edited.status, 'fail');
      assert.match(edited.message, new RegExp(`${pre}: a command looks like Beacon's but is not what install writes`));
      assert.equal(edited.fix, `beacon install ${spec.id} --force`);
    });
  }

  it('an entry for another log warns, naming it; a timeout changed by hand fails', () => {
    const spec = findAgent('claude-code')!;
    const h = homeWithLauncher();
    writeHooks(h, spec, { log: join(h.home, 'elsewhere.db') });
    const other = find(doctor(h, [spec.id]), `${spec.id}-hooks`);
    assert.equal(other.status, 'warn');
    assert.ok(other.message.includes(`record into another log: ${join(h.home, 'elsewhere.db')}`), other.message);
    writeHooks(h, spec, { edit: (doc) => { ((doc.hooks as Record<string, { hooks: { timeout: number }[] }[]>).Stop![0]!.hooks[0]!.timeout = 99); } });
    const changed = find(doctor(h, [spec.id]), `${spec.id}-hooks`);
    assert.equal(changed.status, 'fail');
    assert.match(changed.message, /Stop's entry was changed by hand/);
  });

  it('project scope: read as the OTLP half reads scopes, and said to cover sessions started there only', () => {
    const spec = findAgent('gemini-cli')!;
    const h = homeWithLauncher();
    writeHooks(h, spec, { scope: 'project' });
    const checks = doctor(h, [spec.id]);
    assert.equal(find(checks, `${spec.id}-hooks-project`).status, 'ok');
    assert.match(find(checks, `${spec.id}-hook-events`).message, /installed at project scope only/);
  });
});

describe('Codex: the feature switch and the hooks\' trust', () => {
  const spec = findAgent('codex')!;
  it('[features] hooks off → fail "Codex runs no hook", and the missing hook event names it', () => {
    const h = homeWithLauncher();
    writeHooks(h, spec, { switchOn: false });
    const checks = doctor(h, ['codex']);
    const sw = find(checks, 'codex-hook-switch');
    assert.equal(sw.status, 'fail');
    assert.match(sw.message, /\[features\] hooks is unset, want true \(Codex runs no hook without it\)/);
    assert.match(find(checks, 'codex-hook-events').message, /the switch is off/);
  });

  it('on, untrusted → warn with how to trust; a trusted_hash for each of Beacon\'s hooks in [hooks.state] → ok; one disabled → fail', () => {
    const h = homeWithLauncher();
    const file = writeHooks(h, spec);
    const config = spec.settingsFile('user', ctxOf(h))!.path;
    const untrusted = find(doctor(h, ['codex']), 'codex-hook-trust');
    assert.equal(untrusted.status, 'warn');
    const n = spec.hooks!.events.length;
    assert.match(untrusted.message, new RegExp(`${n} of Beacon's ${n} hooks are not trusted`));
    assert.match(untrusted.fix ?? '', /\/hooks/);
    const label = (e: string) => e.replace(/(?<=[a-z])([A-Z])/g, '_$1').toLowerCase();
    const state = (extra: string) => spec.hooks!.events.map((e) => `[hooks.state."${file}:${label(e)}:0:0"]\ntrusted_hash = "sha256:00"\n${e === 'Stop' ? extra : ''}`).join('');
    writeFileSync(config, `${readFileSync(config, 'utf8')}${state('')}`);
    assert.equal(find(doctor(h, ['codex']), 'codex-hook-trust').status, 'ok');
    writeFileSync(config, `[features]\nhooks = true\n${state('enabled = false\n')}`);
    const off = find(doctor(h, ['codex']), 'codex-hook-trust');
    assert.equal(off.status, 'fail');
    assert.match(off.message, new RegExp(`turns off 1 of Beacon's ${n} hooks .*stop`));
  });
});

describe('the launcher: only Beacon\'s own, and only when sound (issue 29 item 1)', () => {
  const spec = findAgent('copilot-cli')!;
  it('entries naming a launcher in the project: fail, and neither doctor nor --send-test runs it', () => {
    const h = homeWithLauncher();
    const marker = join(h.home, 'ran-as-victim');
    const planted = join(h.cwd, 'bin', 'beacon-hooks');
    mkdirSync(dirname(planted));
    writeFileSync(planted, `#!/bin/sh\n: > '${marker}'\necho 'beacon-hooks 9.9.9'\n`, { mode: 0o755 });
    writeHooks(h, spec, { launcher: 'bin/beacon-hooks' });
    for (const args of [[spec.id], ['--send-test', spec.id]]) {
      const checks = doctor(h, args);
      assert.equal(existsSync(marker), false, `beacon doctor ${args.join(' ')} ran the project's file`);
      const l = find(checks, `${spec.id}-hook-launcher`);
      assert.equal(l.status, 'fail');
      assert.ok(l.message.includes(`runs bin/beacon-hooks (${planted} in a session started here) on every hook, not Beacon's launcher`), l.message);
      if (args[0] === '--send-test') assert.match(find(checks, `${spec.id}-send-test-hook`).message, /^not run: /);
    }
  });

  it('~/.beacon/endpoint made 0777 and the launcher rewritten: fail on the mode, nothing run; the launcher gone: fail', () => {
    const h = homeWithLauncher();
    writeHooks(h, spec);
    const launcher = hooksLauncherPath(h.env);
    const marker = join(h.home, 'ran-as-victim');
    writeFileSync(launcher, `#!/bin/sh\n: > '${marker}'\necho 'beacon-hooks 9.9.9'\n`);
    chmodSync(dirname(dirname(launcher)), 0o777);
    for (const args of [[spec.id], ['--send-test', spec.id]]) {
      const l = find(doctor(h, args), `${spec.id}-hook-launcher`);
      assert.equal(existsSync(marker), false, `beacon doctor ${args.join(' ')} ran the rewritten launcher`);
      assert.equal(l.status, 'fail');
      assert.match(l.message, /will not run the launcher, and doctor did not: .*other users may write the directory \(mode 777\)/);
    }
    chmodSync(dirname(dirname(launcher)), 0o700);
    rmSync(launcher);
    const gone = find(doctor(h, [spec.id]), `${spec.id}-hook-launcher`);
    assert.equal(gone.status, 'fail');
    assert.match(gone.message, /not an executable file/);
  });
});

describe('the newest hook event, and --send-test through Beacon\'s own hook command', () => {
  for (const spec of hookAgents) {
    it(`${spec.id}: none → warn with a reason; --send-test runs its ${preTool[spec.id]} and finds it recorded${spec.hooks!.plugin ? '' : '; a hook the agent runs → the event and its age; the hooks installed again after it → warn, none since the setup'}`, () => {
      const h = homeWithLauncher();
      writeHooks(h, spec);
      const none = find(doctor(h, [spec.id]), `${spec.id}-hook-events`);
      assert.equal(none.status, 'warn');
      assert.match(none.message, /no session since \d{4}-/);

      const sent = find(doctor(h, ['--send-test', spec.id]), `${spec.id}-send-test-hook`);
      assert.equal(sent.status, 'ok', sent.message);
      const session = /beacon events --session (\S+)/.exec(sent.message)![1]!;
      const events = beacon(h, ['events', '--json', '--session', session]);
      assert.ok(events.stdout.split('\n').filter(Boolean).some((l) => JSON.parse(l).harness?.name === spec.id), events.stdout + events.stderr);
      // a test event is no sign of a real session
      assert.match(find(doctor(h, [spec.id]), `${spec.id}-hook-events`).message, /only beacon doctor --send-test's/);
      if (spec.hooks!.plugin) return;

      const pre = preTool[spec.id]!;
      const payload = spec.id === 'cline' ? { sessionContext: { rootSessionId: 'real-1' }, workspaceRoots: [h.cwd], tool_call: { id: 't1', name: 'run_commands', input: { commands: ['ls'] } } } : spec.id === 'copilot-cli' ? { sessionId: 'real-1', timestamp: Date.now(), cwd: h.cwd, toolName: 'bash', toolArgs: { command: 'ls' } } : { session_id: 'real-1', cwd: h.cwd, hook_event_name: pre, tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 't1' };
      const r = spawnSync('sh', ['-c', installedCommand(h, spec, pre)], { input: JSON.stringify(payload), env: h.env, cwd: h.cwd, encoding: 'utf8' });
      assert.deepEqual([r.status, r.stdout], [0, ''], r.stderr);
      const found = find(doctor(h, [spec.id]), `${spec.id}-hook-events`);
      assert.equal(found.status, 'ok', found.message);
      assert.match(found.message, new RegExp(`last ${spec.id} hook event \\d{4}-\\d\\d-\\d\\dT[^ ]+, [\\d.]+ (ms|s) ago \\(1 hook events in all\\)`));

      // installed again after that session (issue 33): the log's hook event predates the setup, so none has arrived since
      writeHooks(h, spec);
      const stale = find(doctor(h, [spec.id]), `${spec.id}-hook-events`);
      assert.equal(stale.status, 'warn', stale.message);
      assert.match(stale.message, new RegExp(`^no ${spec.id} hook event since the setup: the last one arrived \\d{4}-[^;]+; .*no session since \\d{4}-`));
    });
  }
});
