import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { usage } from '../../src/cli/commands/help';
import { COMMAND_NAMES, loadCommand } from '../../src/cli/registry';
import { repoRoot } from '../helpers/paths';

const readme = readFileSync(join(repoRoot(), 'README.md'), 'utf8');

/** The README's command table: `beacon NAME USAGE` → what it does (a `\|` in a cell is a `|`). */
function readmeCommands(): Map<string, string> {
  const section = readme.slice(readme.indexOf('## Commands'), readme.indexOf('\n## ', readme.indexOf('## Commands') + 1));
  const rows = new Map<string, string>();
  for (const m of section.matchAll(/^\| `(beacon (?:[^`]|\\\|)*)` \| (.+) \|$/gm)) rows.set(m[1]!.replace(/\\\|/g, '|'), m[2]!);
  return rows;
}

describe('beacon commands', () => {
  it('every module under src/cli/commands is in the registry under its own name', () => {
    const files = readdirSync(join(repoRoot(), 'src', 'cli', 'commands')).filter((f) => f.endsWith('.ts')).map((f) => f.slice(0, -3));
    assert.deepEqual([...COMMAND_NAMES].sort(), files.sort(), 'one registry line per command module');
    for (const name of COMMAND_NAMES) assert.equal(loadCommand(name)!.spec.name, `beacon ${name}`);
  });

  it("the README's command table is the specs': usage and summary, in the registry's order", () => {
    const expected = COMMAND_NAMES.map((name) => {
      const { spec } = loadCommand(name)!;
      return [`${spec.name} ${spec.usage}`.trim(), spec.summary];
    });
    assert.deepEqual([...readmeCommands()], expected);
  });

  it('beacon --help lists every command with its summary', () => {
    const text = usage();
    for (const name of COMMAND_NAMES) assert.match(text, new RegExp(`\\n  ${name} +${loadCommand(name)!.spec.summary.replace(/[(),.;:?]/g, '\\$&')}\\n`));
  });
});
