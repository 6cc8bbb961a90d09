/**
 * `x.toLocaleString('en-US')` without ICU: its first call builds a NumberFormat, ~25 ms of every
 * short command that prints a number (measured on Node 20, issue 33). Integers and decimals of at
 * most three fraction digits (what toLocaleString prints unrounded) are grouped here, byte for byte
 * the same; anything else (-0, exponents, more digits, NaN) is left to toLocaleString.
 */
export function groupDigits(x: number): string {
  const text = String(x);
  const m = /^(-?)(\d+)(\.\d{1,3})?$/.exec(text);
  if (!m || Object.is(x, -0)) return x.toLocaleString('en-US');
  return `${m[1]}${m[2]!.replace(/\B(?=(\d{3})+$)/g, ',')}${m[3] ?? ''}`;
}

/**
 * Code-unit order where it equals `localeCompare`'s (ICU's collator costs ~13 ms to build): two
 * strings of the same shape that differ first in a digit, as calendar and block labels do. Any other
 * pair is compared by `localeCompare`, so the order is the one it gave.
 */
export function compareLabels(a: string, b: string): number {
  if (a === b) return 0;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const digit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
  if (digit(a[i]) && digit(b[i]) && a.length === b.length) return a < b ? -1 : 1;
  return a.localeCompare(b);
}
