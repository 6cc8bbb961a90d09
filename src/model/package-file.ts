import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * A file shipped at the package root (tsc copies no non-TS files): found by walking up from this
 * module, so it works from src/ under tests and from dist/src/ when installed.
 */
export function packageFile(...parts: string[]): string {
  for (let dir = __dirname, i = 0; i < 6; i++, dir = dirname(dir)) {
    const candidate = join(dir, ...parts);
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`${join(...parts)} not found next to the Beacon package`);
}
