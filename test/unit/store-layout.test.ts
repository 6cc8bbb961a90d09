import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '../helpers/paths';

/**
 * Inside the store, one direction too: `log/` (the table, schema, append) is the bottom; the writer
 * threads and the read models build on it; maintenance (retention, export, forward cursors) runs
 * its worker under the writer's thread supervision. The read models never reach the writer side.
 */
const RANK: Record<string, number> = { log: 0, writer: 1, queries: 1, maintenance: 2 };

const storeDir = join(repoRoot(), 'src', 'store');
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? files(join(dir, n)) : n.endsWith('.ts') ? [join(dir, n)] : []));
const partOf = (file: string) => {
  const parts = relative(storeDir, file).split(sep);
  return parts.length > 1 ? parts[0]! : undefined;
};

describe('store layout', () => {
  it('every file under src/store/ is in a known part', () => {
    const stray = files(storeDir).filter((f) => { const p = partOf(f); return p === undefined || !(p in RANK); });
    assert.deepEqual(stray.map((f) => relative(storeDir, f)), []);
  });

  it('a part imports only parts below it', () => {
    const violations: string[] = [];
    for (const f of files(storeDir)) {
      const from = partOf(f);
      if (from === undefined) continue;
      for (const m of readFileSync(f, 'utf8').matchAll(/(?:from|import\(|require\()\s*'(\.{1,2}\/[^']+)'/g)) {
        const target = resolve(dirname(f), m[1]!);
        if (!target.startsWith(storeDir + sep)) continue;
        const to = partOf(target + '.ts');
        if (to !== from && !(to !== undefined && RANK[to]! < RANK[from]!)) violations.push(`${relative(storeDir, f)} → ${to ?? relative(storeDir, target)}`);
      }
    }
    assert.deepEqual(violations, []);
  });
});
