/** Edit distance (insertions, deletions, substitutions; an adjacent swap counts as one). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The known name a mistyped one most likely meant, or undefined when none is close: within a third
 * of the name's length (at least 1, at most 3 edits), or a prefix of it (`--sess` for `--session`).
 */
export function closest(name: string, known: readonly string[]): string | undefined {
  const n = name.toLowerCase();
  let best: string | undefined;
  let bestD = Infinity;
  for (const k of known) {
    const kl = k.toLowerCase();
    const d = kl.startsWith(n) && n.length >= 3 ? 0.5 : editDistance(n, kl);
    if (d < bestD) {
      best = k;
      bestD = d;
    }
  }
  const limit = Math.min(3, Math.max(1, Math.floor(n.length / 3)));
  return bestD <= limit ? best : undefined;
}

/** `; did you mean "x"?` when there is a likely candidate, else nothing. */
export function didYouMean(name: string, known: readonly string[], quote = (s: string) => `"${s}"`): string {
  const c = closest(name, known);
  return c === undefined ? '' : ` (did you mean ${quote(c)}?)`;
}
