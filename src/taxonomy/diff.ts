import { createHash } from 'node:crypto';
import { basename } from 'node:path';

export interface FileDiff {
  diff: string;
  diff_hash: string;
  diff_bytes: number;
}

function lines(s: string): string[] {
  return s === '' ? [] : s.split('\n');
}

function finish(diff: string): FileDiff {
  return { diff, diff_hash: createHash('sha256').update(diff, 'utf8').digest('hex'), diff_bytes: Buffer.byteLength(diff, 'utf8') };
}

/** goose `edit` replaces one exact fragment: a pseudo-unified diff of the fragments, no context lines.
 *  Identical fragments changed nothing: no diff. */
export function fragmentDiff(path: string, before: string, after: string): FileDiff | undefined {
  if (before === after) return undefined;
  const name = basename(path);
  const oldLines = lines(before);
  const newLines = lines(after);
  const out = [`--- a/${name}`, `+++ b/${name}`, `@@ -1,${oldLines.length} +1,${newLines.length} @@`];
  for (const l of oldLines) out.push(`-${l}`);
  for (const l of newLines) out.push(`+${l}`);
  return finish(out.join('\n'));
}

/** goose `write` replaces the whole file: every line added. */
export function wholeContentDiff(path: string, content: string): FileDiff {
  const name = basename(path);
  const newLines = content.split('\n');
  const out = [`--- a/${name}`, `+++ b/${name}`, `@@ -0,0 +1,${newLines.length} @@`];
  for (const l of newLines) out.push(`+${l}`);
  return finish(out.join('\n'));
}
