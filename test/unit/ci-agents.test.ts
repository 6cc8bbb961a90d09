import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '../helpers/paths';

/**
 * CI installs the six agent CLIs the agents-lab tests run (from test/agents' lock, else by the
 * pinned names .ci/run lists): the two lists must name the same packages at the same versions, or
 * CI would test other CLIs than the lock says (or skip one).
 */
describe('the agent CLIs CI installs', () => {
  it(".ci/run's AGENT_CLIS are test/agents/package.json's dependencies, name for name and pin for pin", () => {
    const run = readFileSync(join(repoRoot(), '.ci', 'run'), 'utf8');
    const block = /AGENT_CLIS=\(\n([\s\S]*?)\n\)/.exec(run);
    assert.ok(block, '.ci/run lists AGENT_CLIS');
    const listed = block[1]!.split('\n').map((l) => l.trim()).filter(Boolean).sort();
    const pkg = JSON.parse(readFileSync(join(repoRoot(), 'test', 'agents', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    assert.deepEqual(listed, Object.entries(pkg.dependencies).map(([n, v]) => `${n}@${v}`).sort());
    assert.match(run, /npm ci --prefix test\/agents/);
  });
});
