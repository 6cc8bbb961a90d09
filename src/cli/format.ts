/** Readable one-line summaries of stored records, for `beacon events`. */
import { escapeControls } from '../model/terminal';
import { formatDisplayTime, formatDuration } from '../model/time';
import type { Observer, TimelineItem, ToolCallRow } from '../store/queries/tool-calls';
import { groupDigits } from '../model/digits';

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
  const cells = [
    formatDisplayTime(tsNs, utc),
    r.harness?.name ?? '',
    r.harness?.collection_method ?? '',
    r.event?.action ?? '',
    r.session?.id ?? '',
    what(r),
    tokens,
  ];
  return cells.map((c) => escapeControls(String(c))); // a cell is one line: no newline or tab either
}

/**
 * The default table (`beacon events` without --raw): one row per tool call, whichever paths saw it.
 * SEEN BY is the collection path of an event, or the observers of a call (pre-tool+post-tool+otlp);
 * RESULT is a call's outcome: ok, failed, denied, or unfinished (a pre-tool hook and no result).
 */
export const JOINED_HEADER = ['TIME', 'HARNESS', 'SEEN BY', 'ACTION', 'RESULT', 'SESSION', 'WHAT', 'TOKENS in/out/cache r/w'];
/** WHAT, then SESSION give way, as in the raw table */
export const JOINED_SHRINKABLE = [6, 5];

export function joinedRow(item: TimelineItem, utc: boolean): string[] {
  if (item.kind === 'event') {
    const [time, harness, method, action, session, what, tokens] = summaryRow(item.record, item.event.tsNs, utc);
    return [time!, harness!, seenBy(method!, item.record), action!, '', session!, what!, tokens!];
  }
  return callRow(item, utc);
}

/**
 * An event's own path and the paths whose records were joined into it (a prompt or a turn's end
 * its hook and its OTLP export both reported, an import merged into an export): `hook+otlp`. The
 * stored record keeps one `collection_method`; `event.merged_paths` says what it absorbed.
 */
function seenBy(method: string, r: Rec): string {
  const merged: unknown[] = Array.isArray(r.event?.merged_paths) ? r.event.merged_paths : [];
  const paths = [method, ...merged.filter((m): m is string => typeof m === 'string')];
  return escapeControls([...new Set(paths.filter((m) => m !== ''))].join('+'));
}

const OBSERVER_ORDER: readonly Observer[] = ['pre-tool', 'post-tool', 'otlp', 'stream', 'poll', 'policy'];
/** which view of a call describes it best: the post-tool hook's (exit code, path), then the span's, … */
const DETAIL_ORDER: readonly Observer[] = ['post-tool', 'otlp', 'stream', 'pre-tool', 'policy'];

function callRow(c: ToolCallRow, utc: boolean): string[] {
  const first = c.observations[0]!.record;
  const pick = (f: (r: Rec) => unknown): string | undefined => {
    for (const o of DETAIL_ORDER) {
      for (const ob of c.observations) {
        const v = ob.observer === o ? f(ob.record) : undefined;
        if (typeof v === 'string' && v !== '') return v;
      }
    }
    return undefined;
  };
  const mcp = pick((r) => (r.mcp ? `${r.mcp.server}/${r.mcp.tool}` : undefined));
  const detail = pick((r) => r.command?.command) ?? pick((r) => r.file?.path);
  const tool = c.toolName ?? pick((r) => r.tool?.name);
  // the id last, never cut: `beacon events --raw --tool-call ID` lists the call's records
  const call = c.callId !== null ? `(call ${oneLine(c.callId)})` : '';
  const took = pickNumber(c, (r) => r.gen_ai?.duration_ms ?? r.command?.duration_ms);
  const text = [mcp ?? (tool && detail ? `${tool}: ${detail}` : detail ?? tool ?? ''), took !== undefined ? `· ${tookText(took)}` : ''].filter(Boolean).join(' ');
  const cells = [
    formatDisplayTime(c.firstNs, utc),
    first.harness?.name ?? '',
    OBSERVER_ORDER.filter((o) => c.seenBy.includes(o)).join('+'),
    c.action ?? (c.denied ? 'approval.denied' : c.failed ? 'tool.failed' : 'tool.invoked'),
    c.denied ? 'denied' : c.failed ? 'failed' : c.unfinished ? 'unfinished' : 'ok',
    first.session?.id ?? '',
    [oneLine(text), call].filter(Boolean).join(' '),
    '',
  ];
  return cells.map((v) => escapeControls(String(v)));
}

/** How long a call took, from the first observation that says (the span's end, the hook's report). */
function pickNumber(c: ToolCallRow, f: (r: Rec) => unknown): number | undefined {
  for (const ob of c.observations) {
    const v = f(ob.record);
    if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return v;
  }
  return undefined;
}

/** `850 ms`, `4.2 s`: the CLI's and the dashboard's one duration format */
const tookText = (ms: number) => formatDuration(BigInt(Math.round(ms)) * 1_000_000n);

function what(r: Rec): string {
  if (r.event?.action === 'model.invoked') {
    const provider = r.gen_ai?.provider?.name;
    const took = typeof r.gen_ai?.duration_ms === 'number' ? `· ${tookText(r.gen_ai.duration_ms)}` : '';
    return [provider, r.model, took].filter(Boolean).join(' ');
  }
  // goose's security, egress and counter records: their message says what they found
  const call = r.gen_ai?.tool?.call?.id ? `(call ${r.gen_ai.tool.call.id})` : '';
  if (r.network?.destination) return oneLine([r.network.direction, r.network.destination, call].filter(Boolean).join(' '));
  if (r.security) return oneLine([r.approval?.decision ?? r.security.action, r.command?.command ?? r.file?.path ?? r.tool?.name, call].filter(Boolean).join(' '));
  if (r.metric) return oneLine(r.message ?? r.metric.name);
  const s = r.command?.command ?? r.file?.path ?? (r.mcp ? `${r.mcp.server}/${r.mcp.tool}` : undefined) ?? r.tool?.name ?? r.prompt?.text ?? r.message ?? '';
  return oneLine(String(s));
}

/**
 * WHAT on one line, never cut here: into a pipe the line is whole (a reviewer greps the command),
 * and on a terminal the table gives WHAT the room that is left (formatTable).
 */
function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** `… (call ID)` at the end of a WHAT cell: kept whole when the text before it is cut. */
const CALL_SUFFIX = / (\(call [^()]*\))$/;

/** A call id longer than this gives way (to its end) before the command line does. */
const LONG_CALL_ID = 20;

/**
 * `cut`, except that a trailing call id stays visible: `curl http://ev… (call toolu_01)`. A long id
 * (Gemini's `run_shell_command__call_…`) keeps only its end, which is what tells calls apart, rather
 * than leave the command unreadable: the command line is what a reviewer reads, and the whole id is
 * in `--json` and `--raw`.
 */
export function cutCell(s: string, max: number): string {
  if (s.length <= max) return s;
  const m = CALL_SUFFIX.exec(s);
  if (!m) return cut(s, max);
  const id = m[1]!.slice('(call '.length, -1);
  const call = id.length > LONG_CALL_ID ? `(call …${id.slice(-(LONG_CALL_ID - 8))})` : m[1]!;
  const text = s.slice(0, m.index);
  if (text.length + 1 + call.length <= max) return `${text} ${call}`;
  if (max - call.length - 1 >= 9) return `${cut(text, max - call.length - 1)} ${call}`;
  return cut(s, max);
}

/** `s` in at most `max` characters, the cut marked with … */
export const cut = (s: string, max: number) => (s.length > max ? `${s.slice(0, Math.max(0, max - 1))}…` : s);

/** `3 events`, `1 session` */
export const plural = (n: number, word: string) => `${groupDigits(n)} ${word}${n === 1 ? '' : 's'}`;

/** A cost in dollars (four decimals under $1); `-` when there is none. */
export const usd = (v: number | null) => (v === null ? '-' : `$${v.toFixed(v < 1 ? 4 : 2)}`);

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
export function fitWidths(rows: string[][], maxWidth?: number, shrinkable: readonly number[] = SHRINKABLE, fixed?: number[]): number[] {
  const widths = fixed ? [...fixed] : rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  if (maxWidth === undefined) return widths;
  // The last column is unpadded: on a terminal its header need not be wider than its cells (the
  // header then shows its first word, `TOKENS`), which leaves the room to WHAT and SESSION.
  const last = widths.length - 1;
  const total = () => widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1);
  if (!fixed && rows.length > 1 && total() > maxWidth) widths[last] = Math.max(rows[0]![last]!.split(' ')[0]!.length, ...rows.slice(1).map((r) => r[last]!.length));
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
      if (i === r.length - 1) return w > 0 ? cutCell(c.length > w && c.split(' ')[0]!.length <= w ? c.split(' ')[0]! : c, w) : c;
      return cutCell(c, w).padEnd(w);
    })
    .join('  ')
    .trimEnd();
  return maxWidth !== undefined ? cut(line, maxWidth) : line;
}

/**
 * A table for people. Every cell is recorded content, so hostile: a newline in a session id, a
 * repository or a model name would print a forged row. Cells pass through escapeControls (a no-op
 * on cells already escaped) before they are measured.
 */
export function formatTable(rawRows: string[][], maxWidth?: number, shrinkable: readonly number[] = SHRINKABLE, wrap?: WrapColumn, under?: UnderRows): string {
  const rows = safeCells(rawRows);
  const widths = fitWidths(rows, maxWidth, shrinkable);
  if (maxWidth !== undefined && wrap && widths[wrap.column]! < Math.min(wrap.minWidth, Math.max(...rows.slice(1).map((r) => r[wrap.column]!.length)))) {
    return wrapped(rows, maxWidth, shrinkable, wrap, under);
  }
  return rows.flatMap((r, i) => [formatRow(r, widths, maxWidth), ...underLines(under, i, maxWidth)]).join('\n');
}

/** Lines printed under a data row (its index among the rows after the header): a write's diff. */
export type UnderRows = ReadonlyArray<readonly string[] | undefined>;

/** The lines under row `i` (0: the header, none), escaped and cut to the width as every cell is. */
function underLines(under: UnderRows | undefined, i: number, maxWidth: number | undefined): string[] {
  const lines = i > 0 ? under?.[i - 1] : undefined;
  if (!lines) return [];
  return lines.map((l) => {
    const safe = escapeControls(l);
    return maxWidth !== undefined ? cut(safe, maxWidth) : safe;
  });
}

/** A column that moves to its own indented line under its row when the terminal leaves it too little room. */
export interface WrapColumn {
  column: number;
  minWidth: number;
}

const WRAP_INDENT = '    ';

/** The table without `wrap.column`, each row followed by that cell, indented, in the whole width. */
function wrapped(rows: string[][], maxWidth: number, shrinkable: readonly number[], wrap: WrapColumn, under?: UnderRows): string {
  const without = (r: string[]) => r.filter((_, i) => i !== wrap.column);
  const rest = rows.map(without);
  const widths = fitWidths(rest, maxWidth, shrinkable.filter((i) => i !== wrap.column).map((i) => (i > wrap.column ? i - 1 : i)));
  return rows
    .flatMap((r, i) => {
      const line = formatRow(rest[i]!, widths, maxWidth);
      const cell = r[wrap.column]!;
      const own = i === 0 || cell === '' ? [line] : [line, `${WRAP_INDENT}${cutCell(cell, maxWidth - WRAP_INDENT.length)}`];
      return [...own, ...underLines(under, i, maxWidth)];
    })
    .join('\n');
}

/** every cell on one line, its control characters escaped (src/model/terminal.ts) */
export const safeCells = (rows: string[][]): string[][] => rows.map((r) => r.map((c) => escapeControls(c)));

export { formatBytes } from '../model/size';
