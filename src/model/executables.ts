import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/**
 * Something this user may execute at `path` (a program, or an app bundle's directory). Most paths
 * asked about do not exist (every PATH folder, for every agent's binaries): `existsSync` answers
 * those without the exception `accessSync` throws, which was ~5 ms of a doctor run.
 */
export function isExecutable(path: string): boolean {
  if (!existsSync(path)) return false;
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** An executable regular file at `path`. */
export function isProgram(path: string): boolean {
  return isExecutable(path) && statSync(path).isFile();
}

/**
 * The program `name` as a shell finds it on `pathVar` ($PATH): the first folder that holds it as an
 * executable file. Empty and relative entries are skipped: they name whatever the current directory
 * is, and a hook runs in the project goose works on.
 */
export function findOnPath(name: string, pathVar: string | undefined): string | undefined {
  for (const dir of (pathVar ?? '').split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    if (isProgram(candidate)) return candidate;
  }
  return undefined;
}
