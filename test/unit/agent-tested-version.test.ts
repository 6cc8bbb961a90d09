import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AGENT_SPECS } from '../../src/setup/agents/registry';
import { compareVersions, versionCheck } from '../../src/setup/agent-version';
import { tempDir } from '../helpers/paths';

/**
 * Issue 33: doctor shows each agent's installed version next to the one the agents lab tested. The
 * pins live twice (the lab's package.json installs them, the AgentSpecs ship them): kept equal here.
 */
const lab = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'test', 'agents', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };

describe("each AgentSpec's testedVersion is the agents lab's pin", () => {
  it('equal to test/agents/package.json, for every agent but goose (not an npm package)', () => {
    for (const spec of AGENT_SPECS) {
      if (spec.id === 'goose') {
        assert.equal(spec.testedVersion, undefined);
        continue;
      }
      assert.ok(spec.testedVersion, `${spec.id} has no testedVersion`);
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
  const tested = spec.testedVersion!;
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
