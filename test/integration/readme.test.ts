import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startCollector } from '../helpers/daemon';
import { BEACON_BIN, HOOKS_BIN, repoRoot, tempDir } from '../helpers/paths';

const readme = readFileSync(join(repoRoot(), 'README.md'), 'utf8');

/** The first ```sh block after a heading. */
function shBlock(heading: string): string[] {
  const at = readme.indexOf(heading);
  assert.ok(at >= 0, `README has "${heading}"`);
  const m = /```sh\n([\s\S]*?)```/.exec(readme.slice(at))!;
  return m[1]!.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
}

describe('README', () => {
  it('the quick start names every package the tests need (what .ci/run installs)', () => {
    const ci = readFileSync(join(repoRoot(), '.ci', 'run'), 'utf8');
    const quick = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('## Set goose up'));
    const installed = [...ci.matchAll(/need\+=\(([\w-]+)\)/g)].map((m) => m[1]!);
    assert.ok(installed.length >= 2);
    for (const p of installed) assert.ok(quick.includes(p), `quick start names ${p}`);
    for (const tool of [...ci.matchAll(/command -v (\w+)/g)].map((m) => m[1]!)) assert.ok(quick.includes(`\`${tool}\``), `quick start names ${tool}`);
  });

  // Issue 24 item 1 (fails on main: the quick start said `npm ci` alone, which stops at `gyp ERR! not
  // ok` where only the npm registry is reachable). node-gyp configure is the step that needs Node's
  // headers: run it on the SQLite driver's binding with nodejs.org unreachable, with the README's
  // --nodedir and without.
  it('the quick start builds the SQLite driver with no network but the npm registry', (t) => {
    const install = shBlock('## Quick start')[0]!;
    const m = /^npm ci --nodedir="(\$\(.*?\))"/.exec(install);
    assert.ok(m, `the quick start's npm ci names Node's headers: ${install}`);
    const ci = readFileSync(join(repoRoot(), '.ci', 'run'), 'utf8');
    assert.ok(ci.includes(`npm ci --nodedir="${m[1]}"`), '.ci/run installs as the README says');
    const nodedir = spawnSync('sh', ['-c', `printf %s "${m[1]}"`], { encoding: 'utf8' }).stdout;
    const npmCli = spawnSync('sh', ['-c', 'readlink -f "$(command -v npm)"'], { encoding: 'utf8' }).stdout.trim();
    const nodeGyp = join(npmCli, '..', '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
    if (!npmCli || !existsSync(nodeGyp)) return t.skip(`npm's node-gyp not found beside ${npmCli || 'npm'}`);
    const binding = tempDir('gyp-');
    const driver = join(repoRoot(), 'node_modules', 'better-sqlite3');
    for (const part of ['binding.gyp', 'deps', 'src']) cpSync(join(driver, part), join(binding, part), { recursive: true });
    // a fresh HOME: no headers cached by an earlier install; nodejs.org unreachable
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_config_/i.test(k)));
    const configure = (extra: string[]) =>
      spawnSync(process.execPath, [nodeGyp, 'configure', '--disturl=http://127.0.0.1:9', ...extra], { cwd: binding, env: { ...env, HOME: tempDir('gyp-home-') }, encoding: 'utf8', timeout: 60_000 });
    const withHeaders = configure([`--nodedir=${nodedir}`]);
    assert.equal(withHeaders.status, 0, withHeaders.stderr);
    const without = configure([]);
    assert.notEqual(without.status, 0, 'without --nodedir node-gyp needs nodejs.org (so the test does check something)');
  });

  it('after npm link the README says beacon …, not node dist/…', () => {
    const at = readme.indexOf('npm link');
    assert.ok(at >= 0, 'the README says npm link');
    const after = readme.slice(at);
    const end = after.indexOf('## Commands');
    assert.ok(end >= 0, 'a Commands section follows');
    const setUp = after.slice(0, end);
    assert.doesNotMatch(setUp, /node dist\/src\/bin\/beacon\.js events/);
  });

  it('the copy-paste smoke test works as written: a span by curl, a hook payload, both listed', async (t) => {
    const c = await startCollector();
    t.after(() => c.stop());
    // `npm link`, in miniature: beacon and beacon-hooks on PATH
    const bin = tempDir('readme-bin-');
    for (const [name, target] of [['beacon', BEACON_BIN], ['beacon-hooks', HOOKS_BIN]] as const) {
      writeFileSync(join(bin, name), `#!/bin/sh\nexec '${process.execPath}' '${target}' "$@"\n`);
      chmodSync(join(bin, name), 0o755);
    }
    const home = tempDir('readme-home-');
    mkdirSync(join(home, '.beacon'));
    const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, HOME: home, BEACON_ENDPOINT_LOG: c.log };
    const outputs = shBlock('### See it work').map((line) => {
      const r = spawnSync('sh', ['-c', line.replace('http://127.0.0.1:4318', c.url)], { cwd: repoRoot(), env, encoding: 'utf8' });
      assert.equal(r.status, 0, `${line}: ${r.stderr}`);
      return r.stdout;
    });
    assert.equal(outputs.length, 3);
    assert.equal(outputs[0], '{}');
    assert.equal(outputs[1], '{"decision":"allow"}');
    assert.match(outputs[2]!, /goose\s+otlp\s+model\.invoked\s+beacon-smoke-test/);
    assert.match(outputs[2]!, /goose\s+pre-tool\s+tool\.invoked\s+unfinished\s+beacon-smoke-test\s+developer__shell: cargo test/);
  });
});
