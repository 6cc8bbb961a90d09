/**
 * Issue 29 items 3 and 10c: `beacon install` writes other programs' files (goose's hooks.json and
 * config.yaml, every agent's settings file) in directories it does not own the layout of. A second
 * local user who can write the project directory plants symlinks there; a repository checkout
 * brings its own. Nothing is written, read or backed up through a link, a directory others may
 * write is refused with its path and the fix, backups are 0600 and never overwrite each other.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, linkSync, lstatSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { beaconIn, fakeHome, type Home } from '../helpers/fake-home';
import { ATTACKER, otherUser } from '../helpers/other-user';
import { BEACON_BIN, tempDir } from '../helpers/paths';

const CLEAN = { XDG_CONFIG_HOME: '', CODEX_HOME: '', CLAUDE_CONFIG_DIR: '' };
const re = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const modeOf = (p: string) => statSync(p).mode & 0o777;
const backupsIn = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((f) => f.includes('.beacon-backup-')) : []);

function write(file: string, text: string, mode = 0o644): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  chmodSync(file, mode);
}

/** The victim's home (0700: nobody else gets in) and a project directory the second user may write (a shared checkout). */
function sharedProject(): Home {
  const h = fakeHome(CLEAN);
  chmodSync(h.home, 0o700);
  const project = tempDir('shared-project-');
  chmodSync(project, 0o777);
  return { ...h, cwd: project };
}

const CLAUDE_SETTINGS = '{\n  // mine\n  "model": "opus"\n}\n';

describe('a project directory another user can write: nothing is written through what they planted (issue 29 item 3)', () => {
  // Fails on main: goose's hooks.json, a link the attacker planted, was followed and the victim's file replaced.
  it('goose: a planted hooks.json symlink does not replace the file it points at; the directory is refused with the fix', (t) => {
    const as = otherUser(t);
    if (!as) return;
    const h = sharedProject();
    const notes = join(h.home, 'notes.txt');
    write(notes, 'my notes\n', 0o600);
    const hooks = join(h.cwd, '.agents', 'plugins', 'beacon-endpoint', 'hooks');
    as(`mkdir -p '${hooks}' && chmod -R 777 '${h.cwd}/.agents' && ln -s '${notes}' '${hooks}/hooks.json'`);
    const r = beaconIn(h, ['install', 'goose', '--scope', 'project']);
    assert.notEqual(r.status, 0, r.stdout);
    assert.equal(readFileSync(notes, 'utf8'), 'my notes\n', 'the file behind the link is untouched');
    assert.match(r.stderr, new RegExp(`refusing ${re(h.cwd)}: other users may write the directory \\(mode 777\\)\\..*Fix: chmod go-w '${re(h.cwd)}'`));
    assert.ok(!existsSync(join(h.home, '.beacon', 'endpoint', 'bin', 'beacon-hooks')), 'a refusal writes nothing, the launcher neither');
  });

  // Fails on main: the gemini-cli install edited ~/.claude/settings.json in place, through the planted .gemini link.
  it('gemini-cli: a planted .gemini -> ~/.claude link does not get ~/.claude/settings.json edited', (t) => {
    const as = otherUser(t);
    if (!as) return;
    const h = sharedProject();
    const claude = join(h.home, '.claude', 'settings.json');
    write(claude, CLAUDE_SETTINGS);
    as(`ln -s '${join(h.home, '.claude')}' '${h.cwd}/.gemini'`);
    const r = beaconIn(h, ['install', 'gemini-cli', '--scope', 'project']);
    assert.notEqual(r.status, 0, r.stdout);
    assert.equal(readFileSync(claude, 'utf8'), CLAUDE_SETTINGS);
    assert.deepEqual(backupsIn(join(h.home, '.claude')), []);
    assert.match(r.stderr, new RegExp(`refusing ${re(h.cwd)}: other users may write the directory`));
  });

  // Fails on main: the backup copied the victim's 0644 registry credentials into the attacker's directory, readable.
  it('a planted settings.json link to a 0644 file behind a 0700 home: no backup of it lands where the attacker reads', (t) => {
    const as = otherUser(t);
    if (!as) return;
    const h = sharedProject();
    const docker = join(h.home, '.docker', 'config.json');
    const secret = '{"auths":{"registry.corp":{"auth":"c2VjcmV0LXRva2Vu"}}}\n';
    write(docker, secret, 0o644);
    as(`mkdir -m 777 '${h.cwd}/.gemini' && ln -s '${docker}' '${h.cwd}/.gemini/settings.json'`);
    const r = beaconIn(h, ['install', 'gemini-cli', '--scope', 'project']);
    assert.notEqual(r.status, 0, r.stdout);
    assert.equal(as(`cat '${h.cwd}'/.gemini/*beacon-backup* 2>/dev/null || true`), '', 'the attacker reads nothing');
    assert.deepEqual(backupsIn(join(h.cwd, '.gemini')), []);
    assert.equal(readFileSync(docker, 'utf8'), secret);
  });

  // Fails on main: ~/.config was the user's but 0777; opencode's directory in it, the attacker's link to ~/.claude, was followed.
  it('user scope too: a careless 0777 ~/.config is refused, and the opencode link planted in it is not followed', (t) => {
    const as = otherUser(t);
    if (!as) return;
    const h = fakeHome(CLEAN);
    chmodSync(h.home, 0o755);
    const claudeDir = join(h.home, '.claude');
    write(join(claudeDir, 'opencode.json'), CLAUDE_SETTINGS);
    mkdirSync(join(h.home, '.config'), { mode: 0o777 });
    chmodSync(join(h.home, '.config'), 0o777);
    as(`ln -s '${claudeDir}' '${h.home}/.config/opencode'`);
    const r = beaconIn(h, ['install', 'opencode']);
    assert.notEqual(r.status, 0, r.stdout);
    assert.equal(readFileSync(join(claudeDir, 'opencode.json'), 'utf8'), CLAUDE_SETTINGS);
    assert.match(r.stderr, new RegExp(`refusing ${re(join(h.home, '.config'))}: other users may write the directory \\(mode 777\\)`));
  });

  it('a project directory of the user whose subdirectory belongs to another user is refused, naming the owner', (t) => {
    const as = otherUser(t);
    if (!as) return;
    const h = fakeHome(CLEAN);
    chmodSync(h.home, 0o755);
    chmodSync(h.cwd, 0o777);
    as(`mkdir -m 755 '${h.cwd}/.qwen'`);
    chmodSync(h.cwd, 0o755); // the user tightened it since: the directory inside stays the other user's
    const r = beaconIn(h, ['install', 'qwen-code', '--scope', 'project']);
    assert.notEqual(r.status, 0, r.stdout);
    assert.match(r.stderr, new RegExp(`refusing ${re(join(h.cwd, '.qwen'))}: the directory belongs to uid ${ATTACKER}, not to you`));
    assert.deepEqual(readdirSync(join(h.cwd, '.qwen')), []);
  });
});

describe('the private-group rule counts every member of the group (issue 29 item 3, review)', () => {
  /**
   * The accounts as the machine has them, seen only by `beacon install` itself: a private mount
   * namespace (unshare -m) with a passwd and a group file bind-mounted over /etc's. In it the
   * second user's primary group is the user's group, and /etc/group lists no member: what the
   * reviewer reproduced (bob, primary gid 1000, and `alice:x:1000:`).
   */
  function installWithAccounts(t: TestContext, h: Home, passwd: string, group: string, args: string[]) {
    if (process.getuid?.() !== 0) return t.skip('needs root to bind-mount a passwd file in a private mount namespace'), undefined;
    if (spawnSync('unshare', ['-m', 'true']).status !== 0) return t.skip('unshare -m is not permitted here'), undefined;
    const dir = tempDir('accounts-');
    writeFileSync(join(dir, 'passwd'), passwd);
    writeFileSync(join(dir, 'group'), group);
    const script = 'mount --bind "$1/passwd" /etc/passwd && mount --bind "$1/group" /etc/group && shift && exec "$@"';
    const r = spawnSync('unshare', ['-m', 'sh', '-c', script, 'sh', dir, process.execPath, BEACON_BIN, ...args], { env: h.env, cwd: h.cwd, encoding: 'utf8' });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  }
  const ROOT_LINE = 'root:x:0:0:root:/root:/bin/sh\n';

  // Fails on main: only /etc/group's member list was read, so the 0775 project was taken for the user's alone.
  it('a group-writable project whose group is another user\'s primary group is refused, naming the user', (t) => {
    const h = fakeHome(CLEAN);
    chmodSync(h.cwd, 0o775);
    const r = installWithAccounts(t, h, `${ROOT_LINE}bob:x:${ATTACKER}:0::/home/bob:/bin/sh\n`, 'root:x:0:\n', ['install', 'gemini-cli', '--scope', 'project']);
    if (!r) return;
    assert.notEqual(r.status, 0, r.stdout);
    assert.match(r.stderr, new RegExp(`refusing ${re(h.cwd)}: other users may write the directory \\(mode 775\\), through its group: gid 0 is also the primary group of bob\\..*Fix: chmod g-w '${re(h.cwd)}'`));
    assert.ok(!existsSync(join(h.cwd, '.gemini')), 'nothing written');
  });

  // Fails on main: the first line with the gid was read, the second (which lists bob) never.
  it('a second /etc/group line with the same gid that lists another member is refused', (t) => {
    const h = fakeHome(CLEAN);
    chmodSync(h.cwd, 0o775);
    const r = installWithAccounts(t, h, `${ROOT_LINE}bob:x:${ATTACKER}:${ATTACKER}::/home/bob:/bin/sh\n`, 'root:x:0:\nroot:x:0:bob\n', ['install', 'gemini-cli', '--scope', 'project']);
    if (!r) return;
    assert.notEqual(r.status, 0, r.stdout);
    assert.match(r.stderr, new RegExp(`refusing ${re(h.cwd)}: other users may write the directory \\(mode 775\\), through its group: the group database lists bob in gid 0`));
    assert.ok(!existsSync(join(h.cwd, '.gemini')), 'nothing written');
  });

  it('the same accounts without the other member: the private group is the user\'s, and the install goes ahead', (t) => {
    const h = fakeHome(CLEAN);
    chmodSync(h.cwd, 0o775);
    const r = installWithAccounts(t, h, `${ROOT_LINE}bob:x:${ATTACKER}:${ATTACKER}::/home/bob:/bin/sh\n`, 'root:x:0:\n', ['install', 'gemini-cli', '--scope', 'project']);
    if (!r) return;
    assert.equal(r.status, 0, r.stderr);
    assert.ok(existsSync(join(h.cwd, '.gemini', 'settings.json')));
  });
});

describe('hard links: a settings file with another name is not read or replaced (issue 29 item 3, review)', () => {
  // Fails on main: the victim's 0644 registry credentials, hard-linked as opencode.json into a sticky shared
  // project (fs.protected_hardlinks=0 lets any user do it; root does it here), were read, and a copy carrying
  // them and their mode was renamed into the shared directory.
  it('opencode.json hard-linked to a file of the user\'s elsewhere: refused, no copy lands in the shared directory', () => {
    const h = fakeHome(CLEAN);
    chmodSync(h.home, 0o700);
    const project = tempDir('sticky-project-');
    chmodSync(project, 0o1777);
    const secret = join(h.home, '.docker', 'config.json');
    const content = '{"auths":{"registry.corp":{"auth":"c2VjcmV0LXRva2Vu"}}}\n';
    write(secret, content, 0o644);
    const planted = join(project, 'opencode.json');
    linkSync(secret, planted);
    const r = beaconIn({ ...h, cwd: project }, ['install', 'opencode', '--scope', 'project']);
    assert.notEqual(r.status, 0, r.stdout);
    assert.match(r.stderr, new RegExp(`refusing ${re(planted)}: it has 2 names \\(hard links\\)`));
    assert.equal(statSync(planted).ino, statSync(secret).ino, 'the name still points at the same file: nothing renamed over it');
    assert.equal(readFileSync(secret, 'utf8'), content);
    assert.deepEqual(readdirSync(project).filter((f) => f !== 'opencode.json'), [], 'no backup, no copy in the shared directory');
  });

  it('a hard-linked settings file in the user\'s own home is refused too, with the command that removes only this name', () => {
    const h = fakeHome(CLEAN);
    const file = join(h.home, '.gemini', 'settings.json');
    write(file, '{ "theme": "GitHub" }\n');
    linkSync(file, join(h.home, 'gemini-settings.json'));
    const r = beaconIn(h, ['install', 'gemini-cli']);
    assert.notEqual(r.status, 0, r.stdout);
    assert.match(r.stderr, new RegExp(`it has 2 names \\(hard links\\).*Fix: remove this name \\(rm '${re(file)}': the file keeps its other names\\)`));
    assert.equal(readFileSync(file, 'utf8'), '{ "theme": "GitHub" }\n');
  });
});

describe('symlinks a checkout brought are not followed, in any component (issue 29 item 3)', () => {
  // Fails on main: each of these edited (or replaced) the file at the end of the link.
  it('a .gemini directory link, a settings.local.json file link and a .agents link: each refused, the targets untouched', () => {
    const h = fakeHome(CLEAN);
    const claude = join(h.home, '.claude', 'settings.json');
    write(claude, CLAUDE_SETTINGS);
    symlinkSync(join(h.home, '.claude'), join(h.cwd, '.gemini'));
    const g = beaconIn(h, ['install', 'gemini-cli', '--scope', 'project']);
    assert.notEqual(g.status, 0, g.stdout);
    assert.match(g.stderr, new RegExp(`refusing ${re(join(h.cwd, '.gemini'))}: it is a symbolic link`));

    mkdirSync(join(h.cwd, '.claude'));
    symlinkSync(claude, join(h.cwd, '.claude', 'settings.local.json'));
    const c = beaconIn(h, ['install', 'claude-code', '--scope', 'project']);
    assert.notEqual(c.status, 0, c.stdout);
    assert.match(c.stderr, new RegExp(`refusing ${re(join(h.cwd, '.claude', 'settings.local.json'))}: it is a symbolic link`));

    const elsewhere = tempDir('elsewhere-');
    symlinkSync(elsewhere, join(h.cwd, '.agents'));
    const goose = beaconIn(h, ['install', 'goose', '--scope', 'project']);
    assert.notEqual(goose.status, 0, goose.stdout);
    assert.match(goose.stderr, new RegExp(`refusing ${re(join(h.cwd, '.agents'))}: it is a symbolic link`));

    assert.equal(readFileSync(claude, 'utf8'), CLAUDE_SETTINGS);
    assert.deepEqual(backupsIn(join(h.home, '.claude')), []);
    assert.deepEqual(readdirSync(elsewhere), []);
  });
});

describe('what stays possible', () => {
  it('a user-scope config directory linked from a dotfiles checkout of the user\'s is edited where it is; the link stays', () => {
    const h = fakeHome(CLEAN);
    const real = join(h.home, 'dotfiles', 'gemini');
    write(join(real, 'settings.json'), '{ "theme": "GitHub" }\n');
    symlinkSync(real, join(h.home, '.gemini'));
    const r = beaconIn(h, ['install', 'gemini-cli']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(JSON.parse(readFileSync(join(real, 'settings.json'), 'utf8')).telemetry.otlpProtocol, 'http');
    assert.ok(lstatSync(join(h.home, '.gemini')).isSymbolicLink());
    assert.equal(beaconIn(h, ['uninstall', 'gemini-cli']).status, 0);
    assert.equal(readFileSync(join(real, 'settings.json'), 'utf8'), '{ "theme": "GitHub" }\n');
  });

  it('a group-writable project directory whose group is the user\'s private group (umask 002) is the user\'s', (t) => {
    const h = fakeHome(CLEAN);
    const me = userInfo();
    const line = readFileSync('/etc/group', 'utf8').split('\n').find((l) => l.split(':')[2] === String(me.gid));
    if (!line || line.split(':')[0] !== me.username || (line.split(':')[3] ?? '') !== '') return t.skip(`no private group for ${me.username} in /etc/group`);
    chmodSync(h.cwd, 0o775);
    const r = beaconIn(h, ['install', 'qwen-code', '--scope', 'project']);
    assert.equal(r.status, 0, r.stderr);
    if (process.getuid?.() !== 0) return;
    // the counterpart: the same mode with another group (whose members may write) is refused
    const other = fakeHome(CLEAN);
    chmodSync(other.cwd, 0o775);
    chownSync(other.cwd, 0, ATTACKER);
    const refused = beaconIn(other, ['install', 'qwen-code', '--scope', 'project']);
    assert.notEqual(refused.status, 0, refused.stdout);
    assert.match(refused.stderr, new RegExp(`refusing ${re(other.cwd)}: other users may write the directory \\(mode 775\\)`));
  });
});

describe('backups and modes (issue 29 items 3 and 10c)', () => {
  // Fails on main: copyFileSync kept the original's 0644 on the backup.
  it('a backup is 0600 whatever the original\'s mode; the edited file keeps its mode, and one holding the otlpToken is 0600', () => {
    const h = fakeHome(CLEAN);
    const gemini = join(h.home, '.gemini', 'settings.json');
    write(gemini, '{ "theme": "GitHub" }\n', 0o644);
    const r = beaconIn(h, ['install', 'gemini-cli']);
    assert.equal(r.status, 0, r.stderr);
    const [backup] = backupsIn(dirname(gemini));
    assert.equal(modeOf(join(dirname(gemini), backup!)), 0o600, 'the backup');
    assert.equal(modeOf(gemini), 0o644, 'the settings file keeps its mode');

    const cfgDir = join(h.home, '.config', 'goose');
    write(join(cfgDir, 'config.yaml'), 'GOOSE_MODEL: x\n', 0o644);
    assert.equal(beaconIn(h, ['install', 'goose', '--configure-otlp']).status, 0);
    const [yamlBackup] = backupsIn(cfgDir);
    assert.equal(modeOf(join(cfgDir, yamlBackup!)), 0o600, 'goose config.yaml backup');

    const claude = join(h.home, '.claude', 'settings.json');
    write(claude, '{}\n', 0o640);
    writeFileSync(join(h.home, '.beacon', 'endpoint', 'config.json'), JSON.stringify({ collector: { otlpToken: 'b'.repeat(32) } }), { mode: 0o600 });
    const c = beaconIn(h, ['install', 'claude-code']);
    assert.equal(c.status, 0, c.stderr);
    assert.match(readFileSync(claude, 'utf8'), /Bearer b{32}/);
    assert.equal(modeOf(claude), 0o600, 'holds the token');
  });

  // Fails on main: the second backup took the first's name, overwriting the original; uninstall could only undo key by key.
  it('two installs in the same second keep two backups, and uninstall restores the original bytes from the first', () => {
    const original = '{\n\t"theme": "GitHub", /* tabs here */\n\t"general": {"vimMode": true}\n}\n';
    for (let attempt = 0; attempt < 5; attempt++) {
      const h = fakeHome(CLEAN);
      const file = join(h.home, '.gemini', 'settings.json');
      write(file, original);
      // Start at the top of a second so both runs fall in it; a pair that straddles one is run again.
      while (Date.now() % 1000 > 50) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
      const second = Math.floor(Date.now() / 1000);
      const first = beaconIn(h, ['install', 'gemini-cli']);
      const next = beaconIn(h, ['install', 'gemini-cli', '--capture-content']);
      if (Math.floor(Date.now() / 1000) !== second) continue;
      assert.equal(first.status, 0, first.stderr);
      assert.equal(next.status, 0, next.stderr);
      const names = backupsIn(dirname(file));
      assert.equal(names.length, 2, `two backups: ${names}`);
      assert.ok(names.some((n) => readFileSync(join(dirname(file), n), 'utf8') === original), 'one holds the original bytes');
      const u = beaconIn(h, ['uninstall', 'gemini-cli']);
      assert.equal(u.status, 0, u.stderr);
      assert.match(u.stdout, /restored .* as it was before beacon install \(from /);
      assert.equal(readFileSync(file, 'utf8'), original);
      return;
    }
    assert.fail('two installs never ran within one second in five tries');
  });
});
