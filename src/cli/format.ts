/** Readable one-line summaries of stored records, for `beacon events`. */
import { formatDisplayTime } from '../model/time';

type Rec = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const TABLE_HEADER = ['TIME', 'HARNESS', 'METHOD', 'ACTION', 'SESSION', 'WHAT', 'TOKENS in/out/cache r/w'];
/** the columns that give way, in this order, when a row is wider than the terminal: WHAT, then SESSION */
const SHRINKABLE = [5, 4];
/** --follow cannot measure rows it has not seen: fixed widths (time with offset, goose, stream, …). */
export const FOLLOW_WIDTHS = [29, 7, 6, 17, 36, 60, 0];

export function summaryRow(r: Rec, tsNs: bigint, utc: boolean): string[] {
  const u = r.gen_ai?.usage;
  const tokens = u
    ? [u.input_tokens ?? '-', u.output_tokens ?? '-', u.cache_read?.input_tokens ?? '-', u.cache_creation?.input_tokens ?? '-'].join('/')
    : '';
  return [
    formatDisplayTime(tsNs, utc),
    r.harness?.name ?? '',
    r.harness?.collection_method ?? '',
    r.event?.action ?? '',
    r.session?.id ?? '',
    what(r),
    tokens,
  ];
}

function what(r: Rec): string {
  if (r.event?.action === 'model.invoked') {
    const provider = r.gen_ai?.provider?.name;
    return [provider, r.model].filter(Boolean).join(' ');
  }
  const s = r.command?.command ?? r.file?.path ?? (r.mcp ? `${r.mcp.server}/${r.mcp.tool}` : undefined) ?? r.tool?.name ?? r.prompt?.text ?? r.message ?? '';
  return oneLine(String(s), 60);
}

function oneLine(s: string, max: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return cut(flat, max);
}

const cut = (s: string, max: number) => (s.length > max ? `${s.slice(0, Math.max(0, max - 1))}…` : s);

/** The terminal's width when stdout is one (or $COLUMNS says so); undefined for a pipe or file: no cutting. */
export function terminalWidth(env: NodeJS.ProcessEnv, stream: { isTTY?: boolean; columns?: number } = process.stdout): number | undefined {
  if (stream.isTTY && stream.columns) return stream.columns;
  const c = Number(env.COLUMNS);
  return Number.isInteger(c) && c > 0 ? c : undefined;
}

/**
 * Column widths for `rows` (header first) that fit in `maxWidth`: the shrinkable columns give up
 * characters (down to a few) until the widest row fits.
 */
export function fitWidths(rows: string[][], maxWidth?: number, shrinkable = SHRINKABLE, fixed?: number[]): number[] {
  const widths = fixed ? [...fixed] : rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  if (maxWidth === undefined) return widths;
  const total = () => widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1);
  for (const i of shrinkable) {
    const min = Math.min(widths[i]!, 8);
    const over = total() - maxWidth;
    if (over <= 0) break;
    widths[i] = Math.max(min, widths[i]! - over);
  }
  return widths;
}

/**
 * One row in the given widths (the last column unpadded); cells wider than their column are cut
 * with …, and so is a line still wider than `maxWidth` once every shrinkable column gave way.
 */
export function formatRow(r: string[], widths: number[], maxWidth?: number): string {
  const line = r
    .map((c, i) => {
      const w = widths[i]!;
      if (i === r.length - 1) return w > 0 ? cut(c, w) : c;
      return cut(c, w).padEnd(w);
    })
    .join('  ')
    .trimEnd();
  return maxWidth !== undefined ? cut(line, maxWidth) : line;
}

export function formatTable(rows: string[][], maxWidth?: number): string {
  const widths = fitWidths(rows, maxWidth);
  return rows.map((r) => formatRow(r, widths, maxWidth)).join('\n');
}
