/**
 * Issue 32 item 4: the README's CI shell script runs each agent through `beacon stream <agent> --`.
 * Every agent with a stream adapter has a line in it, and each line, completed by the wrapper, is
 * the agent's stream mode (the flags Beacon reads), never refused: a README a user copies must work.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { STREAM_ADAPTERS } from '../../src/sources/stream-registry';
import { withStreamMode } from '../../src/stream/stream-mode';
import { repoRoot } from '../helpers/paths';

const README = readFileSync(join(repoRoot(), 'README.md'), 'utf8');

/** `  claude-code) cmd=(claude -p "$prompt") ;;` → ['claude-code', ['claude', '-p', '$prompt']] */
function scriptLines(): Map<string, string[]> {
  const block = README.split('# ci/run-agent.sh')[1]?.split('```')[0] ?? '';
  const lines = new Map<string, string[]>();
  for (const m of block.matchAll(/^ {2}([\w-]+)\)\s+cmd=\((.*)\) ;;$/gm)) {
    lines.set(m[1]!, [...m[2]!.matchAll(/"([^"]*)"|(\S+)/g)].map((w) => w[1] ?? w[2]!));
  }
  return lines;
}

describe("the README's CI script", () => {
  it('has one line per agent Beacon reads a stream of', () => {
    assert.deepEqual([...scriptLines().keys()].sort(), STREAM_ADAPTERS.map((a) => a.platform).sort());
  });

  for (const adapter of STREAM_ADAPTERS) {
    it(`${adapter.platform}: the wrapper completes its line into the stream mode`, () => {
      const argv = scriptLines().get(adapter.platform);
      assert.ok(argv, `a line for ${adapter.platform}`);
      const full = withStreamMode(adapter.mode, argv, adapter.platform);
      assert.equal(full[0], adapter.mode.program);
      for (const f of adapter.mode.flags) {
        const at = full.indexOf(f.name);
        assert.ok(at > 0, `${f.name} in ${full.join(' ')}`);
        if (f.value !== undefined) assert.equal(full[at + 1], f.value);
      }
      assert.ok(full.includes('$prompt'), 'the prompt kept');
    });
  }
});
