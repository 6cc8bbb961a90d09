import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { findOnPath } from '../../src/model/executables';
import { tempDir } from '../helpers/paths';

describe('finding a program on PATH (doctor, the pager, the policy provider)', () => {
  it('the first folder holding it as an executable file; directories, non-executables, empty and relative entries skipped', () => {
    const [a, b, c, d] = [tempDir(), tempDir(), tempDir(), tempDir()];
    mkdirSync(join(a, 'tool')); // a directory of that name
    writeFileSync(join(b, 'tool'), '#!/bin/sh\n'); // not executable
    writeFileSync(join(c, 'tool'), '#!/bin/sh\n');
    chmodSync(join(c, 'tool'), 0o755);
    writeFileSync(join(d, 'tool'), '#!/bin/sh\n');
    chmodSync(join(d, 'tool'), 0o755);
    assert.equal(findOnPath('tool', ['', relative(process.cwd(), d), a, b, c, d].join(':')), join(c, 'tool'));
    assert.equal(findOnPath('tool', `${a}:${b}`), undefined);
    assert.equal(findOnPath('tool', undefined), undefined);
  });
});
