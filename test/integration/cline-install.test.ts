/**
 * `beacon install cline`'s hook files beside the user's (docs/agents/cline-facts.md: Cline runs every
 * file of an event): a user's `PreToolUse` or `PreToolUse.py` is left alone, a `PreToolUse.bash` that
 * is not Beacon's is refused with nothing written, a reinstall changes nothing, `$CLINE_DIR` moves
 * them, the project scope writes `.clinerules/hooks/`, and an edited Beacon file is kept by uninstall.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { beaconIn, fakeHome } from '../helpers/fake-home';

const BEACON_FILES = ['PostToolUse.bash', 'PreToolUse.bash', 'TaskComplete.bash', 'TaskStart.bash', 'UserPromptSubmit.bash'];

describe('beacon install cline: its hook files beside the user\'s', () => {
  it('writes one file per event next to the user\'s own, reinstalls byte-identically, uninstalls to the user\'s alone', () => {
    const h = fakeHome();
    const dir = join(h.home, '.cline', 'hooks');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'PreToolUse'), '#!/bin/sh\necho mine\n');
    writeFileSync(join(dir, 'PostToolUse.py'), 'print("{}")\n');
    const r = beaconIn(h, ['install', 'cline']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^no OTLP to set up: Cline sends its telemetry only to Cline's own endpoint/m);
    assert.doesNotMatch(r.stdout, /content capture/, 'no content switch to speak of: Cline exports nothing to Beacon');
    assert.deepEqual(readdirSync(dir).sort(), ['PostToolUse.py', 'PreToolUse', ...BEACON_FILES].sort());
    const pre = readFileSync(join(dir, 'PreToolUse.bash'), 'utf8');
    assert.match(pre, /^#!\/bin\/sh\n/);
    assert.match(pre, /--platform 'cline' .* 'PreToolUse'; trap 'exit 0' EXIT; .*; exit 0\n$/);
    const again = beaconIn(h, ['install', 'cline']);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /PreToolUse\.bash is already Beacon's hook file/);
    assert.equal(readFileSync(join(dir, 'PreToolUse.bash'), 'utf8'), pre);
    const doctor = JSON.parse(beaconIn(h, ['doctor', 'cline', '--json']).stdout).checks as Array<{ id: string; status: string; message: string }>;
    assert.equal(doctor.find((c) => c.id === 'cline-hooks')?.status, 'ok', JSON.stringify(doctor));
    assert.equal(beaconIn(h, ['uninstall', 'cline']).status, 0);
    assert.deepEqual(readdirSync(dir).sort(), ['PostToolUse.py', 'PreToolUse']);
    assert.equal(readFileSync(join(dir, 'PreToolUse'), 'utf8'), '#!/bin/sh\necho mine\n');
  });

  it('refuses a same-named file that is not Beacon\'s, writing nothing; --force replaces it', () => {
    const h = fakeHome();
    const dir = join(h.home, '.cline', 'hooks');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'TaskStart.bash'), 'echo mine\n');
    const r = beaconIn(h, ['install', 'cline']);
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /refusing to replace .*TaskStart\.bash/);
    assert.deepEqual(readdirSync(dir), ['TaskStart.bash'], 'nothing written');
    assert.equal(beaconIn(h, ['install', 'cline', '--force']).status, 0);
    assert.match(readFileSync(join(dir, 'TaskStart.bash'), 'utf8'), /--platform 'cline'/);
  });

  it('an edited Beacon file is refused by uninstall, every file kept; $CLINE_DIR and the project scope move them', () => {
    const h = fakeHome({ CLINE_DIR: '' });
    assert.equal(beaconIn(h, ['install', 'cline']).status, 0);
    const file = join(h.home, '.cline', 'hooks', 'PostToolUse.bash');
    writeFileSync(file, `${readFileSync(file, 'utf8')}# mine\n`);
    const u = beaconIn(h, ['uninstall', 'cline']);
    assert.notEqual(u.status, 0);
    assert.match(u.stderr, /refusing to remove .*PostToolUse\.bash/);
    assert.deepEqual(readdirSync(join(h.home, '.cline', 'hooks')).sort(), BEACON_FILES, 'nothing removed');

    const moved = fakeHome();
    const clineDir = join(moved.home, 'elsewhere');
    assert.equal(beaconIn(moved, ['install', 'cline'], { CLINE_DIR: clineDir }).status, 0);
    assert.deepEqual(readdirSync(join(clineDir, 'hooks')).sort(), BEACON_FILES);
    assert.equal(beaconIn(moved, ['install', 'cline', '--scope', 'project']).status, 0);
    assert.deepEqual(readdirSync(join(moved.cwd, '.clinerules', 'hooks')).sort(), BEACON_FILES);
    assert.equal(beaconIn(moved, ['uninstall', 'cline', '--scope', 'project']).status, 0);
    assert.equal(existsSync(join(moved.cwd, '.clinerules')), false, 'the directories install made, gone with it');
  });
});
