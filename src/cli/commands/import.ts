import { homedir } from 'node:os';
import { resolveEventLogPath } from '../../config/paths';
import { escapeControls } from '../../model/terminal';
import { DirectLogSink } from '../../ingest/direct-sink';
import { toRows, type Rows } from '../../ingest/rows';
import type { EventRow } from '../../ingest/sink';
import { SESSION_STORES, sessionStoreNamed, type SessionStore } from '../../sources/store-registry';
import { readSessionFile, sessionFiles, type SessionFile } from '../../sources/store-scan';
import { expectPositional, parseCommand, type CommandIO, type CommandSpec } from '../args';
import { configOption } from '../config-flags';
import { plural } from '../format';
import { openLogForReading, timeRange } from '../log-access';

const AGENT_WORDS = SESSION_STORES.flatMap((s) => s.names);

export const spec = {
  name: 'beacon import',
  summary: "read the agents' own session stores into the event log, counted once with what OTLP recorded",
  usage: '[<agent>…] [--log PATH] [--from DIR] [--since T] [--dry-run]',
  description: `Reads the session files each agent keeps on its own (${SESSION_STORES.map((s) => s.harness).join(', ')}; all of them
unless agents are named) and records their model calls (tokens, model, response id, time), prompts and
tool calls (command line, file, result, exit code) in the event log, collection method "poll". Claude
Code: $CLAUDE_CONFIG_DIR, else ~/.claude, /projects/*/*.jsonl. Codex: $CODEX_HOME, else ~/.codex,
/sessions/YYYY/MM/DD/rollout-*.jsonl. Gemini CLI: $GEMINI_CLI_HOME, else ~, /.gemini/tmp/*/chats/
session-*.jsonl (and the older *.json). Qwen Code: $QWEN_RUNTIME_DIR, else $QWEN_HOME, else ~/.qwen,
/projects/*/chats/*.jsonl. Copilot CLI: $COPILOT_HOME, else ~/.copilot, /session-state/*/events.jsonl.
--from DIR reads the stores under DIR as a home instead (the agents' override variables are then not
read). A call or prompt the log already holds — imported
before, or recorded by OTLP (same session, same tokens or text, within a minute) — adds nothing: the
two records are merged into one. The files are only read (no lock the agent could wait on); a
symlink, a file another user may write, a malformed, overlong (>32 MiB) or non-UTF-8 line is skipped
with a warning on stderr. --since T skips what happened before T (T as in beacon events). --dry-run
writes nothing and says what would be added, per agent and month.`,
  options: {
    log: configOption('log'),
    from: { type: 'string', arg: 'DIR', help: "a home to read the agents' stores under (default: yours, and their override variables)" },
    since: { type: 'string', arg: 'T', help: 'only what happened at or after T' },
    'dry-run': { type: 'boolean', help: 'write nothing: say what would be added, per agent and month' },
    utc: { type: 'boolean', help: 'read --since and count months in UTC instead of the local zone' },
  },
  examples: ['beacon import', 'beacon import claude-code --since 30d', 'beacon import codex --dry-run', 'beacon import --from /mnt/old-laptop/home/me'],
  positionals: AGENT_WORDS,
  manyPositionals: true,
} as const satisfies CommandSpec;

/** What one agent's import came to in one month. */
interface Tally {
  added: number;
  present: number;
  byAction: Map<string, number>;
}

export async function run(argv: string[], io: Pick<CommandIO, 'env' | 'out' | 'stderr'>): Promise<number> {
  const parsed = parseCommand(spec, argv, io.out);
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  const stores = chosenStores(positionals);
  const { sinceNs } = timeRange(values.since, undefined, values.utc === true);
  const warn = (m: string) => io.stderr(`beacon import: ${escapeControls(m)}\n`);
  const logPath = resolveEventLogPath(values.log, io.env);
  const dryRun = values['dry-run'] === true;
  const target = dryRun ? new DryRunTarget(logPath) : new LogTarget(logPath);
  const progress = new Progress(process.stderr.isTTY === true && !io.env.CI);
  try {
    for (const store of stores) {
      const root = values.from !== undefined ? store.root(values.from) : store.root(io.env.HOME || homedir(), io.env);
      const files = sessionFiles(store, root, warn).filter((f) => sinceNs === undefined || BigInt(Math.floor(f.mtimeMs)) * 1_000_000n >= sinceNs);
      const tallies = new Map<string, Tally>();
      let bytes = 0;
      const total = files.reduce((n, f) => n + f.size, 0);
      for (const file of files) {
        progress.show(`${store.harness}: ${plural(files.indexOf(file) + 1, 'file')} of ${files.length}, ${Math.round((bytes / Math.max(total, 1)) * 100)}%`);
        const rows = rowsOf(store, file, sinceNs, warn);
        const held = target.record(rows.rows);
        rows.rows.forEach((row, i) => count(tallies, row, held[i]!, values.utc === true));
        bytes += file.size;
      }
      progress.clear();
      report(io.out, store, root, files.length, tallies, dryRun);
    }
    const spooled = target.finish();
    if (spooled > 0) io.out(`${plural(spooled, 'event')} waited for the log's lock too long and went to its spool: the collector (or the next writer) commits them`);
  } finally {
    progress.clear();
    target.close();
  }
  return 0;
}

function chosenStores(words: string[]): SessionStore[] {
  if (words.length === 0) return [...SESSION_STORES];
  const chosen = words.map((w) => sessionStoreNamed(w) ?? sessionStoreNamed(expectPositional(spec, w, 'agent'))!);
  return SESSION_STORES.filter((s) => chosen.includes(s));
}

/** One file's events as rows, through the ingest path every source takes (redaction and limits included). */
function rowsOf(store: SessionStore, file: SessionFile, sinceNs: bigint | undefined, warn: (m: string) => void): Rows {
  const { events } = readSessionFile(store, file, warn);
  const kept = sinceNs === undefined ? events : events.filter((e) => e.timeUnixNano >= sinceNs);
  const rows = toRows(kept);
  for (const r of rows.rejected) warn(`${file.path}: an event ${r.action} not recorded: ${r.reason}`);
  return rows;
}

const KINDS = ['prompt', 'model call', 'tool call'];

function count(tallies: Map<string, Tally>, row: EventRow, held: boolean, utc: boolean): void {
  const d = new Date(Number(row.tsNs / 1_000_000n));
  const month = utc ? d.toISOString().slice(0, 7) : `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}`;
  let t = tallies.get(month);
  if (!t) tallies.set(month, (t = { added: 0, present: 0, byAction: new Map() }));
  if (held) t.present++;
  else {
    t.added++;
    const kind = row.action === 'model.invoked' ? 'model call' : row.action === 'prompt.submitted' ? 'prompt' : 'tool call';
    t.byAction.set(kind, (t.byAction.get(kind) ?? 0) + 1);
  }
}

function report(out: (s: string) => void, store: SessionStore, root: string, files: number, tallies: Map<string, Tally>, dryRun: boolean): void {
  if (files === 0) {
    out(`${store.harness}: no session files under ${root}`);
    return;
  }
  out(`${store.harness}: ${plural(files, 'session file')} under ${root}`);
  for (const [month, t] of [...tallies].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const kinds = KINDS.filter((k) => t.byAction.has(k)).map((k) => plural(t.byAction.get(k)!, k)).join(', ');
    out(`  ${month}: ${dryRun ? 'would add' : 'added'} ${plural(t.added, 'event')}${kinds ? ` (${kinds})` : ''}, ${t.present.toLocaleString('en-US')} already recorded`);
  }
}

/** Where an import's rows go: for each row, whether the log held it already. */
interface Target {
  record(rows: EventRow[]): boolean[];
  /** rows spooled rather than committed */
  finish(): number;
  close(): void;
}

/** The log itself, through the sink hooks and the stream adapter use (its lock budget, then the spool). */
class LogTarget implements Target {
  private readonly sink: DirectLogSink;
  private spooled = 0;

  constructor(path: string) {
    this.sink = new DirectLogSink(path).open();
  }

  record(rows: EventRow[]): boolean[] {
    if (rows.length === 0) return [];
    // which rows are new is asked before the append (it merges those that are not): the same question --dry-run asks
    const held = this.sink.eventLog().holds(rows);
    for (let i = 0; i < rows.length; i += BATCH) this.spooled += this.sink.appendSync(rows.slice(i, i + BATCH)).spooled;
    return held;
  }

  finish(): number {
    return this.spooled;
  }

  close(): void {
    this.sink.close();
  }
}

/** A file's rows in one transaction at most this many: a long import never holds the lock for long. */
const BATCH = 2000;

/** Nothing written: the log read only (a missing log holds nothing). */
class DryRunTarget implements Target {
  private readonly log;

  constructor(path: string) {
    this.log = openLogForReading(path);
  }

  record(rows: EventRow[]): boolean[] {
    return this.log ? this.log.holds(rows) : rows.map(() => false);
  }

  finish(): number {
    return 0;
  }

  close(): void {
    this.log?.close();
  }
}

/** One line on a terminal's stderr, rewritten in place; nothing when stderr is not a terminal. */
class Progress {
  private shown = false;
  private last = 0;

  constructor(private readonly enabled: boolean) {}

  show(text: string): void {
    if (!this.enabled || Date.now() - this.last < 100) return;
    this.last = Date.now();
    process.stderr.write(`\r\x1b[2K${escapeControls(text)}`);
    this.shown = true;
  }

  clear(): void {
    if (this.shown) process.stderr.write('\r\x1b[2K');
    this.shown = false;
  }
}
