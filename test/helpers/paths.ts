import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** The repository root, whether tests run compiled (dist/test) or from source. */
export function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('package.json not found');
    dir = up;
  }
  return dir;
}

export const BEACON_BIN = join(repoRoot(), 'dist', 'src', 'bin', 'beacon.js');
/** goose runs the single-file bundle (startup time matters: goose waits for every hook). */
export const HOOKS_BIN = join(repoRoot(), 'dist', 'beacon-hooks.js');

export function tempDir(prefix = 'beacon-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
