import { escapeControls } from '../model/terminal';

/**
 * The reports' one table (token-usage, sessions; events' times and ids): a wide layout with every
 * column when the terminal has room, else a compact one that keeps the key column, the tokens and
 * the cost, as ccusage's compact mode does (its daily report at < 100 columns: date, models, input,
 * output, cost). Which layout is decided by the widest row, so one table never mixes the two.
 * A terminal's width comes from `tableWidth`: a pipe or file gets the wide layout, uncut (scripts
 * and grep read the whole id), unless COLUMNS says otherwise.
 */
export interface Column<R> {
  header: string;
  /** the header in the compact layout (defaults to `header`) */
  compactHeader?: string;
  cell: (row: R) => string;
  /** the cell in the compact layout (a shorter id or time); defaults to `cell` */
  compactCell?: (row: R) => string;
  align?: 'left' | 'right';
  /**
   * key: always shown, gives way (cut with …) when even the compact layout is too wide;
   * keep: always shown; wide: only in the wide layout; compact: only in the compact layout.
   */
  show: 'key' | 'keep' | 'wide' | 'compact';
}

export type Layout = 'wide' | 'compact';

/** The narrowest a key column is cut to before whole lines are cut instead. */
const KEY_MIN = 10;
const GAP = '  ';

/** The terminal's width when stdout is one, else $COLUMNS, else undefined (a pipe or file: wide and uncut). */
export function tableWidth(env: NodeJS.ProcessEnv, stream: { isTTY?: boolean; columns?: number } = process.stdout): number | undefined {
  if (stream.isTTY && stream.columns) return stream.columns;
  const c = Number(env.COLUMNS);
  return Number.isInteger(c) && c > 0 ? c : undefined;
}

/** `s` in at most `max` characters, the cut marked with … */
export const cutText = (s: string, max: number) => (s.length > max ? `${s.slice(0, Math.max(0, max - 1))}…` : s);

/**
 * An id for the compact layout: a UUID or any id longer than 13 characters keeps its first 8 and
 * an ellipsis (enough to tell sessions apart on one screen, as git's short hashes; `--json` has the
 * whole id, and `beacon events --session` takes it whole).
 */
export const shortId = (id: string) => (id.length > 13 ? `${id.slice(0, 8)}…` : id);

/** `2026-12-02 09:42:53.581+01:00` → `12-02 09:42` (the compact layout's times: the date and minute). */
export const shortTime = (display: string) => {
  const m = /^\d{4}-(\d\d-\d\d) (\d\d:\d\d)/.exec(display);
  return m ? `${m[1]} ${m[2]}` : display;
};

/** The columns of one layout, each with its cells (escaped: every cell is recorded content). */
function layoutOf<R>(columns: readonly Column<R>[], rows: readonly R[], layout: Layout): { cols: Column<R>[]; cells: string[][] } {
  const cols = columns.filter((c) => c.show === 'key' || c.show === 'keep' || c.show === layout);
  const head = cols.map((c) => (layout === 'compact' ? c.compactHeader ?? c.header : c.header));
  const body = rows.map((r) => cols.map((c) => escapeControls((layout === 'compact' && c.compactCell ? c.compactCell : c.cell)(r))));
  return { cols, cells: [head, ...body] };
}

const widthsOf = (cells: string[][]) => cells[0]!.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
const totalOf = (widths: number[]) => widths.reduce((a, b) => a + b, 0) + GAP.length * (widths.length - 1);

/** Which layout a table of these rows takes in `width` columns. */
export function chooseLayout<R>(columns: readonly Column<R>[], rows: readonly R[], width: number | undefined): Layout {
  if (width === undefined) return 'wide';
  return totalOf(widthsOf(layoutOf(columns, rows, 'wide').cells)) <= width ? 'wide' : 'compact';
}

/** The table as lines: numbers right-aligned, the key column cut first, any line still too wide cut with …. */
export function renderTable<R>(columns: readonly Column<R>[], rows: readonly R[], width: number | undefined, layout = chooseLayout(columns, rows, width)): string[] {
  const { cols, cells } = layoutOf(columns, rows, layout);
  const widths = widthsOf(cells);
  if (width !== undefined) {
    for (let i = 0; i < cols.length && totalOf(widths) > width; i++) {
      if (cols[i]!.show === 'key') widths[i] = Math.max(Math.min(widths[i]!, KEY_MIN), widths[i]! - (totalOf(widths) - width));
    }
  }
  return cells.map((r) => {
    const line = r
      .map((c, i) => (cols[i]!.align === 'right' ? cutText(c, widths[i]!).padStart(widths[i]!) : cutText(c, widths[i]!).padEnd(widths[i]!)))
      .join(GAP)
      .trimEnd();
    return width === undefined ? line : cutText(line, width);
  });
}

/** `text` in lines of at most `width` characters, broken at spaces, the next lines indented (a word longer than the width stays whole). */
export function wrapAtSpaces(text: string, width: number | undefined): string[] {
  if (width === undefined || text.length <= width) return [text];
  const out: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      out.push(line);
      line = `  ${word}`;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') out.push(line);
  return out;
}

/**
 * For tables laid out by their own rules (`beacon events`' shrinking WHAT): the compact layout's
 * shorter cells (`shortTime`, `shortId`) in the columns named, when the rows are wider than `width`.
 */
export function compactCells(rows: string[][], width: number | undefined, shorten: Record<number, (cell: string) => string>): string[][] {
  if (width === undefined || rows.length < 2 || totalOf(widthsOf(rows)) <= width) return rows;
  return rows.map((r, i) => (i === 0 ? r : r.map((c, j) => shorten[j]?.(c) ?? c)));
}
