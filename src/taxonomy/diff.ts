import { createHash } from 'node:crypto';
import { basename } from 'node:path';

export interface FileDiff {
  diff: string;
  diff_hash: string;
  diff_bytes: number;
}

/**
 * The lines of a text as a unified diff counts them: a final newline ends the last line (it is not
 * an empty line after it); a text that stops without one says so on the marker line diff and patch
 * read (`\ No newline at end of file`).
 */
function diffLines(s: string, sign: '-' | '+', eofMarker: boolean): { body: string[]; count: number } {
  if (s === '') return { body: [], count: 0 };
  const all = s.split('\n');
  const complete = all[all.length - 1] === '';
  const ls = complete ? all.slice(0, -1) : all;
  const body = ls.map((l) => `${sign}${l}`);
  if (!complete && eofMarker) body.push('\\ No newline at end of file');
  return { body, count: ls.length };
}

/** A hunk range as diff writes it: `start,count`, the count left out when it is 1, the start the line before when it is 0. */
const range = (start: number, count: number) => (count === 1 ? `${start}` : `${count === 0 ? start - 1 : start},${count}`);

function finish(diff: string): FileDiff {
  return { diff, diff_hash: createHash('sha256').update(diff, 'utf8').digest('hex'), diff_bytes: Buffer.byteLength(diff, 'utf8') };
}

/** goose `edit` replaces one exact fragment: a pseudo-unified diff of the fragments, no context lines.
 *  Identical fragments changed nothing: no diff. */
export function fragmentDiff(path: string, before: string, after: string): FileDiff | undefined {
  if (before === after) return undefined;
  const name = basename(path);
  // A fragment is not the file's end: a fragment without a final newline gets no marker.
  const old = diffLines(before, '-', false);
  const neu = diffLines(after, '+', false);
  return finish([`--- a/${name}`, `+++ b/${name}`, `@@ -${range(1, old.count)} +${range(1, neu.count)} @@`, ...old.body, ...neu.body].join('\n'));
}

/** goose `write` replaces the whole file: every line added. */
export function wholeContentDiff(path: string, content: string): FileDiff {
  const name = basename(path);
  const neu = diffLines(content, '+', true);
  // An empty new file has no hunk at all (as git shows it): only the two names.
  const hunk = neu.count === 0 ? [] : [`@@ -0,0 +${range(1, neu.count)} @@`, ...neu.body];
  return finish([`--- a/${name}`, `+++ b/${name}`, ...hunk].join('\n'));
}
