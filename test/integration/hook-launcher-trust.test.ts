/**
 * Issue 29 (a red team with a second local user and a repository the victim clones): what a hook
 * command and `beacon doctor` run. Each test failed on main as noted.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { hookCommandLine } from '../../src/setup/goose-hooks-file';
import { beaconIn as beacon, fakeHome, type Home } from '../helpers/fake-home';
import { otherUser } from '../helpers/other-user';

type Check = { id: string; status: string; message: string; fix?: string };
const checks = (stdout: string) => JSON.parse(stdout).checks as Check[];
const hooksJson = (root: string) => join(root, '.agents', 'plugins', 'beacon-endpoint', 'hooks', 'hooks.json');
const installedCommands = (h: Home) => Object.fromEntries(Object.entries(JSON.parse(readFileSync(hooksJson(h.home), 'utf8')).hooks as Record<string, { hooks: { command: string }[] }[]>).map(([event, rules]) => [event, rules[0]!.hooks[0]!.command]));
const payloads: Record<string, object> = {
  PreToolUse: { event: 'PreToolUse', session_id: 's29', tool_call_id: 'c1', tool_name: 'developer__shell', tool_input: { command: 'ls' } },
  UserPromptSubmit: { event: 'UserPromptSubmit', session_id: 's29', message: 'hi' },
  Stop: { event: 'Stop', session_id: 's29' },
};

/** A victim with Beacon installed, the home reachable (0755) by the second user. */
function installedHome(): { h: Home; base: string; launcher: string } {
  const h = fakeHome();
  chmodSync(h.home, 0o755);
  const r = beacon(h, ['install', 'goose']);
  assert.equal(r.status, 0, r.stderr);
  const base = join(h.home, '.beacon', 'endpoint');
  chmodSync(join(h.home, '.beacon'), 0o755);
  return { h, base, launcher: join(base, 'bin', 'beacon-hooks') };
}

/** goose running each hook the victim installed: none may run the planted file, each answers goose's neutral. */
function assertHooksRefuse(h: Home, marker: string) {
  const commands = installedCommands(h);
  for (const [event, payload] of Object.entries(payloads)) {
    const r = spawnSync('sh', ['-c', commands[event]!], { input: JSON.stringify(payload), env: h.env, cwd: h.cwd, encoding: 'utf8' });
    assert.equal(existsSync(marker), false, `goose's ${event} hook ran the planted launcher as the victim`);
    assert.deepEqual([r.status, r.stdout], [0, ''], `${event}: ${r.stderr}`);
    assert.equal(r.stderr.split('\n').filter(Boolean).length, 1, r.stderr);
    assert.match(r.stderr, /^beacon-hooks: \S+ not run, nothing recorded: /);
  }
}

describe('a hook command sources only a launcher that is the user\'s alone (issue 29 item 2)', () => {
  // main: the goose hook command and beacon doctor both ran the second user's file as the victim
  it('~/.beacon/endpoint made 0777 after install, bin/ swapped by another user: no hook and no doctor runs their file', (t) => {
    const as = otherUser(t);
    if (!as) return;
    const { h, base } = installedHome();
    chmodSync(base, 0o777);
    const marker = join(h.home, 'ran-as-victim');
    as(`mv '${base}/bin' '${base}/bin.old' && mkdir -m 755 '${base}/bin' && printf ': > %s\\n' '${marker}' > '${base}/bin/beacon-hooks' && chmod 755 '${base}/bin/beacon-hooks'`);
    assertHooksRefuse(h, marker);
    const d = beacon(h, ['doctor', '--json']);
    assert.equal(existsSync(marker), false, 'beacon doctor ran the planted launcher');
    const command = checks(d.stdout).find((c) => c.id === 'plugin-command');
    assert.equal(command?.status, 'fail', d.stdout);
    assert.match(command!.message, new RegExp(`will not run the launcher.*refusing ${base.replace(/[.]/g, '\\.')}: other users may write the directory \\(mode 777\\)`));
  });

  // main: the launcher is the victim's file, so an owner check alone passes; its mode let the second user rewrite it
  it('the launcher made 0666, rewritten by another user (still owned by the victim): refused on its mode', (t) => {
    const as = otherUser(t);
    if (!as) return;
    const { h, base, launcher } = installedHome();
    chmodSync(base, 0o755);
    chmodSync(join(base, 'bin'), 0o755);
    chmodSync(launcher, 0o666);
    const marker = join(h.home, 'ran-as-victim');
    as(`printf ': > %s\\n' '${marker}' > '${launcher}'`);
    assertHooksRefuse(h, marker);
    const d = beacon(h, ['doctor', '--json']);
    assert.equal(existsSync(marker), false, 'beacon doctor ran the rewritten launcher');
    assert.match(checks(d.stdout).find((c) => c.id === 'plugin-command')!.message, /other users may write the file \(mode 666\)/);
  });

  it("an earlier install's unchecked commands: doctor names them, install again rewrites them", () => {
    const { h } = installedHome();
    const current = readFileSync(hooksJson(h.home), 'utf8');
    const launcher = join(h.home, '.beacon', 'endpoint', 'bin', 'beacon-hooks');
    // the form installs wrote before issue 29, spelled out: `set -- …; [ -r L ] && . L`
    const doc = JSON.parse(current) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
    for (const rules of Object.values(doc.hooks)) for (const a of rules[0]!.hooks) a.command = `${a.command.slice(0, a.command.indexOf('; '))}; [ -r '${launcher}' ] && . '${launcher}'`;
    const earlier = JSON.stringify(doc);
    assert.match(earlier, /pre-tool; \[ -r '[^']*' \] && \. '[^']*'"/);
    writeFileSync(hooksJson(h.home), earlier);
    const before = checks(beacon(h, ['doctor', '--json']).stdout);
    const unchecked = before.find((c) => c.id === 'plugin-unchecked');
    assert.equal(unchecked?.status, 'fail', JSON.stringify(before));
    assert.match(unchecked!.message, /8 of 8 hook commands .* without checking/);
    assert.equal(before.find((c) => c.id === 'plugin-foreign'), undefined, 'they are Beacon\'s, not foreign');
    const again = beacon(h, ['install', 'goose']);
    assert.equal(again.status, 0, again.stderr);
    assert.equal(readFileSync(hooksJson(h.home), 'utf8'), current);
    assert.equal(checks(beacon(h, ['doctor', '--json']).stdout).find((c) => c.id === 'plugin-unchecked'), undefined);
  });
});

describe('beacon doctor runs nothing a project names (issue 29 item 1)', () => {
  // main: the launcher probe ran `sh -c "'bin/beacon-hooks' --version"` in the clone, and --send-test ran the file's command
  const shapes: Record<string, (sub: string) => string> = {
    executed: (sub) => `'bin/beacon-hooks' --platform goose --log '/tmp/l.db' --config '/tmp/c.json' ${sub}`,
    sourced: (sub) => `set -- --platform goose --log '/tmp/l.db' --config '/tmp/c.json' ${sub}; [ -r 'bin/beacon-hooks' ] && . 'bin/beacon-hooks'`,
    checked: (sub) => hookCommandLine('bin/beacon-hooks', '/tmp/l.db', '/tmp/c.json', sub),
  };
  for (const [shape, command] of Object.entries(shapes)) {
    it(`a cloned repository's plugin in Beacon's ${shape} shape, with a relative bin/beacon-hooks: doctor and --send-test run none of it, and say what it would run`, () => {
      const { h } = installedHome();
      const marker = join(h.home, 'ran-as-victim');
      // the clone, as git leaves it: the plugin's hooks file and the launcher it names, committed
      mkdirSync(join(hooksJson(h.cwd), '..'), { recursive: true });
      writeFileSync(hooksJson(h.cwd), JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: command('pre-tool') }] }], PostToolUse: [{ hooks: [{ type: 'command', command: command('post-tool') }] }] } }));
      mkdirSync(join(h.cwd, 'bin'));
      writeFileSync(join(h.cwd, 'bin', 'beacon-hooks'), `#!/bin/sh\n: > '${marker}'\necho 'beacon-hooks 9.9.9'\n`, { mode: 0o755 });
      for (const args of [['doctor', '--json'], ['doctor', '--send-test', '--json']]) {
        const d = beacon(h, args);
        assert.equal(existsSync(marker), false, `beacon ${args.join(' ')} ran the repository's file`);
        const command = checks(d.stdout).find((c) => c.id === 'plugin-command');
        assert.equal(command?.status, 'fail', d.stdout);
        assert.ok(command!.message.includes(`runs bin/beacon-hooks (${join(h.cwd, 'bin', 'beacon-hooks')} in a session started here) on every hook, not Beacon's launcher`), command!.message);
        assert.ok(command!.fix?.includes(`remove ${join(h.cwd, '.agents', 'plugins', 'beacon-endpoint')}`), command!.fix);
      }
    });
  }
});
