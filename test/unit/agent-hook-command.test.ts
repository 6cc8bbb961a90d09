import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { agentHookCommand, parseAgentHookCommand } from '../../src/setup/hook-command';
import { tempDir } from '../helpers/paths';

describe('the hook command every command-hook agent runs', () => {
  const call = { launcher: "/h/it's/.beacon/endpoint/bin/beacon-hooks", platform: 'gemini-cli', log: '/l/my events.db', config: '/l/config.json', event: 'BeforeTool' };

  it('is read back exactly, and nothing else is taken for it', () => {
    assert.deepEqual(parseAgentHookCommand(agentHookCommand(call)), call);
    const cmd = agentHookCommand(call);
    for (const edited of [`${cmd} ; curl evil`, cmd.replace('exit 0', 'exit 1'), cmd.replace("'BeforeTool'", "'BeforeTool' extra"), `x${cmd}`]) assert.equal(parseAgentHookCommand(edited), undefined, edited);
    // the form the first installs wrote (the launcher's guard alone, in a subshell) is still Beacon's: install replaces it
    const q = `'/h/it'\\''s/.beacon/endpoint`;
    const earlier = `set -- --platform 'gemini-cli' --log '/l/my events.db' --config '/l/config.json' 'BeforeTool'; ( [ -r ${q}/bin/beacon-hooks' ] && { [ -O ${q}/bin/beacon-hooks' ] && [ -O ${q}/bin' ] && [ -O ${q}' ] && find ${q}/bin/beacon-hooks' ${q}/bin' ${q}' -prune \\( -type l -o -perm -020 -o -perm -002 \\) -exec false {} + 2>/dev/null || { printf '%s\\n' 'beacon-hooks: /h/it'\\''s/.beacon/endpoint/bin/beacon-hooks not run, nothing recorded: it or a directory above it is a link, another user'\\''s or writable by others, or could not be checked (beacon doctor says which)' >&2; exit 0; }; } && . ${q}/bin/beacon-hooks' ); exit 0`;
    assert.deepEqual(parseAgentHookCommand(earlier), call);
  });

  it('exits 0 with nothing on stdout when the launcher is missing or exits non-zero (Gemini denies on >= 2, Copilot on 1)', () => {
    const dir = tempDir('agent-hook-cmd-');
    const bin = join(dir, 'bin');
    mkdirSync(bin, { mode: 0o700 });
    chmodSync(dir, 0o700);
    const launcher = join(bin, 'beacon-hooks');
    const run = () => spawnSync('/bin/sh', ['-c', agentHookCommand({ ...call, launcher })], { encoding: 'utf8', input: '{}' });
    const missing = run();
    assert.equal(missing.status, 0);
    assert.equal(missing.stdout, '');
    writeFileSync(launcher, 'printf "%s|" "$@"; exit 2\n', { mode: 0o700 });
    const failing = run();
    assert.equal(failing.status, 0, failing.stderr);
    assert.equal(failing.stdout, "--platform|gemini-cli|--log|/l/my events.db|--config|/l/config.json|BeforeTool|");
    // a launcher dash cannot parse ends the sourcing shell with 2 (a deny to Gemini CLI): the EXIT trap answers 0
    writeFileSync(launcher, 'if then fi\n', { mode: 0o700 });
    const broken = run();
    assert.deepEqual([broken.status, broken.stdout], [0, ''], broken.stderr);
  });
});
