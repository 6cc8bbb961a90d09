import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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
