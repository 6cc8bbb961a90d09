import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AGENT_SPECS } from '../../src/setup/agents/registry';
import { commandVersionCheck, compareVersions, versionCheck } from '../../src/setup/agent-version';
import type { TestedVersion } from '../../src/setup/agents/spec';
import { tempDir } from '../helpers/paths';

/**
 * Issue 33: doctor shows each agent's installed version next to the one the agents lab tested. The
 * pins live twice (the lab's package.json installs them, the AgentSpecs ship them): kept equal here.
 */
const lab = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'test', 'agents', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };

describe("each AgentSpec's testedVersion is the agents lab's pin", () => {
  it('equal to test/agents/package.json, for every agent but goose (not an npm package: the goose its source was read at)', () => {
    for (const spec of AGENT_SPECS) {
      if (spec.id === 'goose') {
        assert.deepEqual([spec.testedVersion?.package, spec.testedVersion?.version], [undefined, '1.51']);
        continue;
      }
      assert.ok(spec.testedVersion?.package, `${spec.id} has no testedVersion`);
      assert.equal(lab.dependencies[spec.testedVersion.package], spec.testedVersion.version, `${spec.id}: ${spec.testedVersion.package}`);
    }
  });
});

/** A PATH holding `bin` as npm links it: a symlink into node_modules/<pkg>/bin, beside the package's package.json. */
function npmInstall(pkg: string, version: string, bin: string): NodeJS.ProcessEnv {
  const root = tempDir('agent-version-');
  const pkgDir = join(root, 'lib', 'node_modules', pkg);
  mkdirSync(join(pkgDir, 'bin'), { recursive: true });
  writeFileSync(join(pkgDir, 'package.json'), JSON.stringify({ name: pkg, version }));
  writeFileSync(join(pkgDir, 'bin', 'cli.js'), '#!/usr/bin/env node\n', { mode: 0o755 });
  mkdirSync(join(root, 'bin'));
  symlinkSync(join(pkgDir, 'bin', 'cli.js'), join(root, 'bin', bin));
  return { PATH: join(root, 'bin') };
}

describe('the version check', () => {
  const spec = AGENT_SPECS.find((a) => a.id === 'claude-code')!;
  const tested = spec.testedVersion as Required<Pick<TestedVersion, 'package' | 'version'>>;
  it('the tested version: ok, and says so', () => {
    const c = versionCheck(spec, { env: npmInstall(tested.package, tested.version, 'claude'), cwd: '/' });
    assert.equal(c?.status, 'ok');
    assert.match(c!.message, new RegExp(`^${tested.version.replace(/\./g, '\\.')}, the version Beacon's agents lab tested$`));
  });
  it('a newer, untested version: a warning with what to do, never a failure', () => {
    const c = versionCheck(spec, { env: npmInstall(tested.package, '99.0.0', 'claude'), cwd: '/' });
    assert.equal(c?.status, 'warn');
    assert.match(c!.message, new RegExp(`^99\\.0\\.0 is newer than ${tested.version.replace(/\./g, '\\.')}`));
    assert.match(c!.fix!, /beacon doctor claude-code --send-test/);
  });
  it('an older version: a warning to update', () => {
    const c = versionCheck(spec, { env: npmInstall(tested.package, '0.0.1', 'claude'), cwd: '/' });
    assert.equal(c?.status, 'warn');
    assert.match(c!.fix!, new RegExp(`npm install -g ${tested.package}@${tested.version}`));
  });
  it('not on PATH: no version line', () => {
    assert.equal(versionCheck(spec, { env: { PATH: tempDir('empty-path-') }, cwd: '/' }), undefined);
  });
  it('compares dotted numbers, not strings', () => {
    assert.equal(compareVersions('2.1.10', '2.1.9'), 1);
    assert.equal(compareVersions('0.61.0', '0.61.0'), 0);
    assert.equal(compareVersions('1.0.99', '1.0.102'), -1);
  });
});

/** A PATH holding a stand-in `goose` whose --version prints `out` (goose is a Rust binary: no package.json to read). */
function gooseOnPath(script: string): NodeJS.ProcessEnv {
  const dir = tempDir('goose-bin-');
  writeFileSync(join(dir, 'goose'), `#!/bin/sh\n${script}\n`, { mode: 0o755 });
  return { PATH: dir };
}

describe("goose's version check: goose --version beside the goose Beacon was checked against (1.51)", () => {
  const goose = AGENT_SPECS.find((a) => a.id === 'goose')!;
  const check = (script: string, timeoutMs?: number) => commandVersionCheck(goose, { env: gooseOnPath(script), cwd: '/' }, timeoutMs);
  it("a 1.51 release (clap's line, as goose prints it): ok, and says what it was checked against", async () => {
    for (const line of ['echo " 1.51.1"', 'echo goose 1.51.0', 'echo 1.51']) {
      const c = await check(line);
      assert.equal(c?.id, 'goose-version');
      assert.equal(c?.status, 'ok', c?.message);
      assert.match(c!.message, /^1\.51(\.\d)?( \(a 1\.51 release\))?, the newest goose whose source code Beacon's goose support was checked against \(the agents lab runs no goose\)$/);
    }
  });
  it('a newer goose: a warning naming --send-test, with no npm pin', async () => {
    const c = await check('echo " 1.52.0"');
    assert.equal(c?.status, 'warn');
    assert.match(c!.message, /^1\.52\.0 is newer than 1\.51, the newest goose /);
    assert.match(c!.fix!, /beacon doctor goose --send-test/);
    assert.doesNotMatch(c!.fix!, /npm/);
  });
  it('an older goose: a warning to run goose update', async () => {
    const c = await check('echo " 1.47.0"');
    assert.equal(c?.status, 'warn');
    assert.match(c!.message, /^1\.47\.0 is older than 1\.51/);
    assert.equal(c!.fix, 'update it: goose update');
  });
  it('no number printed, an exit 1, or no answer in time: ok, saying so (no guess); not on PATH: no line', async () => {
    for (const script of ['echo "<b>goose</b>"', 'echo 1.51.1; exit 1', 'sleep 5']) {
      const c = await check(script, 300);
      assert.equal(c?.status, 'ok', script);
      assert.match(c!.message, /--version printed no version number within 0\.3 s: compare it yourself with 1\.51/);
    }
    assert.equal(await commandVersionCheck(goose, { env: { PATH: tempDir('empty-path-') }, cwd: '/' }), undefined);
  });
  it('its words hold the doctor wording rule (no double negative)', async () => {
    for (const script of ['echo 1.51.1', 'echo 1.52.0', 'echo 1.47.0', 'echo none']) {
      const c = (await check(script, 300))!;
      for (const t of [c.message, c.fix ?? '']) for (const clause of t.split(/[.;:,()]| — /)) assert.doesNotMatch(clause, /\b(not|no|never|without)\b.*\b(not|n't|never)\b/i, t);
    }
  });
});
