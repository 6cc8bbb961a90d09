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
  });
});
