import { groupDigits } from './digits';

/** A size for people: `512 B`, `1.5 KiB`, `20 MiB`, `2 GiB` (a whole number without `.0`), the CLI and the dashboard alike. */
export function formatBytes(n: number): string {
  const units: [number, string][] = [[2 ** 30, 'GiB'], [2 ** 20, 'MiB'], [2 ** 10, 'KiB']];
  for (const [size, unit] of units) if (n >= size) return `${groupDigits(Number((n / size).toFixed(1)))} ${unit}`;
  return `${n} B`;
}
