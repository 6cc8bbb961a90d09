import { readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The checked-out branch of the repository holding `dir`, read from .git/HEAD (no git process). */
export function gitBranch(dir: string, env: NodeJS.ProcessEnv): string | undefined {
  if (/^(1|true|yes)$/i.test(env.BEACON_DISABLE_GIT_METADATA ?? '')) return undefined;
  let d = resolve(dir);
  for (let i = 0; i < 40; i++) {
    const head = headOf(join(d, '.git'));
    if (head !== undefined) {
      const m = /^ref:\s*refs\/heads\/(.+)$/.exec(head.trim());
      return m ? m[1] : undefined; // a detached HEAD has no branch
    }
    const up = dirname(d);
    if (up === d) return undefined;
    d = up;
  }
  return undefined;
}

function headOf(gitPath: string): string | undefined {
  try {
    const st = statSync(gitPath);
    if (st.isDirectory()) return readFileSync(join(gitPath, 'HEAD'), 'utf8');
    // a worktree or submodule: ".git" is a file "gitdir: <path>"
    const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(gitPath, 'utf8'));
    return m ? readFileSync(join(resolve(dirname(gitPath), m[1]!.trim()), 'HEAD'), 'utf8') : undefined;
  } catch {
    return undefined;
  }
}
