/**
 * Issue 30 item 5: `beacon install <agent>` installs the hook half too — Beacon's one entry per
 * event appended beside the user's own hooks, in the agent's own file, edited in place (comments,
 * key order, a BOM, CRLF kept) — and `beacon uninstall <agent>` takes it out byte for byte. Each
 * case starts from a file that already holds the user's hooks for the same events.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { agentHookCommand } from '../../src/setup/hook-command';
import { renderOpencodePlugin } from '../../src/setup/agents/opencode-plugin';
import { BOM, CLEAN, HOOK_CASES, callOf, launcherOf, parsed, put, userFile } from '../helpers/agent-hook-cases';
import { beaconIn, fakeHome } from '../helpers/fake-home';

const backups = (file: string) => readdirSync(dirname(file)).filter((f) => f.includes('.beacon-backup-'));

describe('beacon install <agent>: Beacon\'s hook entries beside the user\'s, undone byte for byte', () => {
  for (const c of HOOK_CASES) {
    it(`${c.agent}: the user's hooks kept, Beacon's added with the exact command, a reinstall byte-identical, uninstall restores the original bytes`, () => {
      const h = fakeHome(CLEAN);
      const file = c.file(h);
      const original = Buffer.from(userFile(c));
      put(file, original);
      const r = beaconIn(h, ['install', c.agent]);
      assert.equal(r.status, 0, r.stderr);
      const text = readFileSync(file, 'utf8');
      const doc = parsed(text);
      for (const [i, event] of c.events.entries()) {
        const list = doc.hooks[event]!;
        const last = i === c.events.length - 1;
        assert.deepEqual(list, [...(last ? [] : [c.userEntry(event)]), c.beaconEntry(event, agentHookCommand({ ...callOf(h, c.agent), event }))], `${event}: the user's entry first, then Beacon's`);
      }
      assert.equal((doc as unknown as { theme: string }).theme, 'dark');
      if (c.jsonc) {
        assert.ok(text.startsWith(BOM), 'the BOM kept');
        assert.match(text, /\/\/ my settings, my hooks\r\n/);
        assert.match(text, /\/\/ mine\r\n/);
      }
      assert.doesNotMatch(text, /[^\r]\n/, 'CRLF kept: no bare LF');
      assert.ok(existsSync(launcherOf(h)), 'the launcher the entries run');
      assert.equal(backups(file).length, 1);

      const again = beaconIn(h, ['install', c.agent]);
      assert.equal(again.status, 0, again.stderr);
      assert.deepEqual(readFileSync(file), Buffer.from(text), 'reinstall byte-identical');
      assert.match(again.stdout, /already runs Beacon's hooks/);
      assert.equal(backups(file).length, 1, 'no second backup');

      const u = beaconIn(h, ['uninstall', c.agent]);
      assert.equal(u.status, 0, u.stderr);
      assert.deepEqual(readFileSync(file), original, 'the original bytes');
      assert.ok(!existsSync(launcherOf(h)), 'the launcher goes with its last user');
    });

    it(`${c.agent}: Beacon's entry edited by hand is refused (named, nothing written); --force replaces only Beacon's; uninstall then keeps the user's edits`, () => {
      const h = fakeHome(CLEAN);
      const file = c.file(h);
      put(file, userFile(c));
      assert.equal(beaconIn(h, ['install', c.agent]).status, 0);
      const event = c.events[0]!;
      const command = agentHookCommand({ ...callOf(h, c.agent), event });
      // the user edits Beacon's entry (a longer timeout, the same command)
      const installed = readFileSync(file, 'utf8');
      const at = installed.indexOf('set -- --platform');
      const edited = installed.slice(0, at) + installed.slice(at).replace(/("timeout(?:Sec)?": )(\d+)/, '$1$2$2');
      put(file, edited);
      const r = beaconIn(h, ['install', c.agent]);
      assert.equal(r.status, 1, r.stdout);
      assert.match(r.stderr, new RegExp(`refusing to change [^\\n]*\\n  hooks\\.${event}\\[1\\] runs Beacon's launcher but is not the entry Beacon writes: its other fields were edited\\n[\\s\\S]*--force`));
      assert.equal(readFileSync(file, 'utf8'), edited, 'nothing written');
      const f = beaconIn(h, ['install', c.agent, '--force']);
      assert.equal(f.status, 0, f.stderr);
      const doc = parsed(readFileSync(file, 'utf8'));
      assert.deepEqual(doc.hooks[event], [c.userEntry(event), c.beaconEntry(event, command)], 'Beacon\'s entry replaced, the user\'s kept');
      // the user adds a hook of their own to the list Beacon created, and another key: uninstall keeps both
      const lastEvent = c.events[c.events.length - 1]!;
      const withMine = readFileSync(file, 'utf8').replace(/"theme": "dark"/, '"theme": "light"');
      put(file, withMine);
      const u = beaconIn(h, ['uninstall', c.agent]);
      assert.equal(u.status, 0, u.stderr);
      const back = parsed(readFileSync(file, 'utf8'));
      assert.equal((back as unknown as { theme: string }).theme, 'light', 'the user\'s edit kept');
      for (const e of c.events.slice(0, -1)) assert.deepEqual(back.hooks[e], [c.userEntry(e)], `${e}: only the user's entry left`);
      assert.equal(back.hooks[lastEvent], undefined, 'the list Beacon created, left empty, goes');
      assert.match(u.stdout, new RegExp(`removed Beacon's ${event} hook entry from`));
    });
  }

  it('a file that does not parse is refused, nothing written (no launcher either)', () => {
    const h = fakeHome(CLEAN);
    const file = join(h.home, '.gemini', 'settings.json');
    put(file, '{ "hooks": { "BeforeTool": [ }');
    const r = beaconIn(h, ['install', 'gemini-cli']);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /does not parse/);
    assert.equal(readFileSync(file, 'utf8'), '{ "hooks": { "BeforeTool": [ }');
    assert.ok(!existsSync(launcherOf(h)));
  });

  it('a refusal in one file (Codex config.toml) writes none of the others (hooks.json)', () => {
    const h = fakeHome(CLEAN);
    put(join(h.home, '.codex', 'config.toml'), '[features]\nhooks = false # off on purpose\n');
    const r = beaconIn(h, ['install', 'codex']);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /\[features\] hooks is false; Beacon would set true/);
    assert.ok(!existsSync(join(h.home, '.codex', 'hooks.json')), 'no half-install');
    assert.ok(!existsSync(launcherOf(h)));
  });

  it('codex: [features] hooks = true set beside the user\'s config and put back as it was; install says how to trust the hooks', () => {
    const h = fakeHome(CLEAN);
    const config = join(h.home, '.codex', 'config.toml');
    const original = '# mine\r\nmodel = "o3"\r\n\r\n[features]\r\nweb_search = true # kept\r\n';
    put(config, original);
    const r = beaconIn(h, ['install', 'codex']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(readFileSync(config, 'utf8'), /\[features\]\r\nweb_search = true # kept\r\nhooks = true\r\n/);
    assert.match(r.stdout, /Codex runs a new or changed hook only once it is trusted/);
    assert.equal(beaconIn(h, ['uninstall', 'codex']).status, 0);
    assert.equal(readFileSync(config, 'utf8'), original);
    assert.ok(!existsSync(join(h.home, '.codex', 'hooks.json')), 'the hooks.json install created is removed');
  });

  it('--hooks-only and --otlp-only install one half; uninstall of one half leaves the other', () => {
    const h = fakeHome(CLEAN);
    const file = join(h.home, '.claude', 'settings.json');
    const original = '{\n  "model": "opus"\n}\n';
    put(file, original);
    assert.equal(beaconIn(h, ['install', 'claude-code', '--hooks-only']).status, 0);
    let doc = parsed(readFileSync(file, 'utf8')) as unknown as { env?: unknown; hooks: Record<string, unknown[]> };
    assert.equal(doc.env, undefined, 'no OTLP key');
    assert.equal(doc.hooks.PreToolUse!.length, 1);
    assert.equal(beaconIn(h, ['install', 'claude-code', '--otlp-only']).status, 0);
    doc = parsed(readFileSync(file, 'utf8')) as unknown as typeof doc;
    assert.ok(doc.env && doc.hooks.PreToolUse!.length === 1, 'both halves now');
    const u = beaconIn(h, ['uninstall', 'claude-code', '--hooks-only']);
    assert.equal(u.status, 0, u.stderr);
    doc = parsed(readFileSync(file, 'utf8')) as unknown as typeof doc;
    assert.equal(doc.hooks, undefined, 'the hooks Beacon created are gone');
    assert.equal((doc.env as Record<string, string>).OTEL_LOGS_EXPORTER, 'otlp', 'the OTLP half stays');
    assert.ok(!existsSync(launcherOf(h)), 'no hooks left: no launcher');
    assert.equal(beaconIn(h, ['uninstall', 'claude-code']).status, 0);
    assert.equal(readFileSync(file, 'utf8'), original, 'and the rest back byte for byte');
    const both = beaconIn(h, ['install', 'claude-code', '--hooks-only', '--otlp-only']);
    assert.equal(both.status, 2);
    assert.match(both.stderr, /exclude each other/);
  });

  it('the launcher lives while goose or any agent still uses it', () => {
    const h = fakeHome(CLEAN);
    assert.equal(beaconIn(h, ['install', 'goose']).status, 0);
    assert.equal(beaconIn(h, ['install', 'gemini-cli']).status, 0);
    const g = beaconIn(h, ['uninstall', 'goose']);
    assert.equal(g.status, 0, g.stderr);
    assert.match(g.stdout, /kept the hook launcher .*still used by beacon install gemini-cli/);
    assert.ok(existsSync(launcherOf(h)));
    assert.equal(beaconIn(h, ['install', 'goose']).status, 0);
    const a = beaconIn(h, ['uninstall', 'gemini-cli']);
    assert.match(a.stdout, /kept the hook launcher/);
    assert.ok(existsSync(launcherOf(h)), 'goose still uses it');
    assert.equal(beaconIn(h, ['uninstall', 'goose']).status, 0);
    assert.ok(!existsSync(launcherOf(h)), 'the last user gone: removed');
  });

  it('project scope: the project\'s file gets the entries, the user\'s is untouched; Copilot\'s hooks have no project scope here', () => {
    const h = fakeHome(CLEAN);
    const c = HOOK_CASES.find((x) => x.agent === 'qwen-code')!;
    const r = beaconIn(h, ['install', 'qwen-code', '--scope', 'project']);
    assert.equal(r.status, 0, r.stderr);
    const doc = parsed(readFileSync(c.file(h, 'project'), 'utf8'));
    assert.deepEqual(doc.hooks.PreToolUse, [c.beaconEntry('PreToolUse', agentHookCommand({ ...callOf(h, 'qwen-code'), event: 'PreToolUse' }))]);
    assert.ok(!existsSync(join(h.home, '.qwen')));
    assert.equal(beaconIn(h, ['uninstall', 'qwen-code', '--scope', 'project']).status, 0);
    assert.ok(!existsSync(join(h.cwd, '.qwen')), 'the file and directory install created are gone');
    const cp = beaconIn(h, ['install', 'copilot-cli', '--scope', 'project']);
    assert.equal(cp.status, 2);
    assert.match(cp.stderr, /GitHub Copilot CLI has no project-scope hook configuration Beacon edits; use --scope user \(or --otlp-only/);
    assert.equal(beaconIn(h, ['install', 'copilot-cli', '--scope', 'project', '--otlp-only']).status, 0);
  });

  it('opencode: its plugin file written whole (0644) beside the user\'s plugins, refused when edited, removed by uninstall', () => {
    const h = fakeHome(CLEAN);
    const dir = join(h.home, '.config', 'opencode', 'plugins');
    put(join(dir, 'mine.js'), 'export const Mine = async () => ({});\n');
    const r = beaconIn(h, ['install', 'opencode']);
    assert.equal(r.status, 0, r.stderr);
    const plugin = join(dir, 'beacon.js');
    const { event: _e, ...call } = { ...callOf(h, 'opencode'), event: '' };
    assert.equal(readFileSync(plugin, 'utf8'), renderOpencodePlugin(call));
    assert.equal(statSync(plugin).mode & 0o777, 0o644);
    const before = readFileSync(plugin);
    assert.equal(beaconIn(h, ['install', 'opencode']).status, 0);
    assert.deepEqual(readFileSync(plugin), before, 'reinstall byte-identical');
    put(plugin, `${before.toString()}// mine\n`);
    const refused = beaconIn(h, ['install', 'opencode']);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /refusing to replace .*beacon\.js: it is not the plugin Beacon wrote/);
    const u1 = beaconIn(h, ['uninstall', 'opencode']);
    assert.equal(u1.status, 1);
    assert.match(u1.stderr, /refusing to remove .*beacon\.js: it was changed since/);
    assert.equal(beaconIn(h, ['install', 'opencode', '--force']).status, 0);
    assert.deepEqual(readFileSync(plugin), before);
    const u = beaconIn(h, ['uninstall', 'opencode']);
    assert.equal(u.status, 0, u.stderr);
    assert.ok(!existsSync(plugin));
    assert.ok(existsSync(join(dir, 'mine.js')), 'the user\'s plugin stays');
    assert.ok(!existsSync(launcherOf(h)));
  });
});
