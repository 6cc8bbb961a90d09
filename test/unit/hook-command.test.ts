import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { hookCommandLine, launcherOf, subcommandOf } from '../../src/setup/hooks-file';
import { tempDir } from '../helpers/paths';

describe('the hook command line goose runs', () => {
  it('sources the launcher, quotes and spaces in its path, with the arguments set', () => {
    const dir = join(tempDir('hook-cmd-'), "o'brien's beacon");
    mkdirSync(dir);
    const launcher = join(dir, 'beacon-hooks');
    writeFileSync(launcher, `printf '%s|' "$@"; echo "$0"`);
    const r = spawnSync('sh', ['-c', hookCommandLine(launcher, '/l/my events.db', '/l/config.json', 'pre-tool')], { encoding: 'utf8' });
    // $0 stays the shell's: the file ran inside goose's sh -c, not as a new process
    assert.deepEqual([r.status, r.stdout], [0, '--platform|goose|--log|/l/my events.db|--config|/l/config.json|pre-tool|sh\n'], r.stderr);
  });

  it('names the launcher and the subcommand, in this form and in the executed form of earlier installs', () => {
    const launcher = "/home/o'brien/bin/beacon-hooks";
    const command = hookCommandLine(launcher, '/l/events.db', '/l/config.json', 'pre-tool');
    assert.equal(launcherOf(command), launcher);
    assert.equal(subcommandOf(command), 'pre-tool');
    const legacy = `'/home/o'\\''brien/bin/beacon-hooks' --platform goose --log '/l/events.db' --config '/l/config.json' post-tool`;
    assert.equal(launcherOf(legacy), launcher);
    assert.equal(subcommandOf(legacy), 'post-tool');
  });
});
