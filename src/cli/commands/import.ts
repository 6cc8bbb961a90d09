import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolveEventLogPath } from '../../config/paths';
import { escapeControls } from '../../model/terminal';
import { KINDS, type StoreImported } from '../../importer/import-store';
import { ReadingThreads, type ParallelOptions } from '../../importer/parallel-import';
import { DryRunTarget, LogTarget } from '../../importer/target';
import { StoreFollower, type FollowedStore } from '../../importer/follow';
import type { WholeSource } from '../../importer/whole-import';
import { BeaconError } from '../../model/errors';
import { SESSION_STORES, sessionStoreNamed, type SessionStore } from '../../sources/store-registry';
import { DATABASE_STORES, databaseStoreNamed } from '../../sources/store-db-registry';
import type { DatabaseStore } from '../../sources/store-db';
import { databaseSource } from '../../importer/database-import';
import { importWhole } from '../../importer/whole-import';
import { tallyInto, type Tally } from '../../importer/import-store';
import { expectPositional, parseCommand, type CommandIO, type CommandSpec } from '../args';
import { configOption } from '../config-flags';
import { plural } from '../format';
import { openLogForReading, timeRange } from '../log-access';

const AGENT_WORDS = [...SESSION_STORES, ...DATABASE_STORES].flatMap((s) => s.names);

export const spec = {
  name: 'beacon import',
  summary: "read the agents' own session stores into the event log, counted once with what OTLP recorded",
  usage: '[<agent>…] [--log PATH] [--from DIR] [--since T] [--dry-run] [--follow]',
  description: `Reads the session files each agent keeps on its own (${[...SESSION_STORES, ...DATABASE_STORES].map((s) => s.harness).join(', ')}; all of them
unless agents are named) and records their model calls (tokens, model, response id, time), prompts and
tool calls (command line, file, result, exit code) in the event log, collection method "poll". Claude
Code: $CLAUDE_CONFIG_DIR, else ~/.claude, /projects/*/*.jsonl. Codex: $CODEX_HOME, else ~/.codex,
/sessions/YYYY/MM/DD/rollout-*.jsonl. Gemini CLI: $GEMINI_CLI_HOME, else ~, /.gemini/tmp/*/chats/
session-*.jsonl (and the older *.json). Qwen Code: $QWEN_RUNTIME_DIR, else $QWEN_HOME, else ~/.qwen,
/projects/*/chats/*.jsonl. Copilot CLI: $COPILOT_HOME, else ~/.copilot, /session-state/*/events.jsonl.
Cline: $CLINE_SESSION_DATA_DIR, else $CLINE_DATA_DIR/sessions, else ~/.cline/data/sessions, /<id>/<id>.messages.json.
Pi: $PI_CODING_AGENT_SESSION_DIR, else $PI_CODING_AGENT_DIR (else ~/.pi/agent) /sessions/*/*.jsonl.
opencode: $OPENCODE_DB, else $XDG_DATA_HOME (else ~/.local/share) /opencode/opencode.db. goose:
$GOOSE_PATH_ROOT/data, else $XDG_DATA_HOME/goose (else ~/.local/share/goose), /sessions/sessions.db;
a database is copied with its -wal into a private 0700 temporary directory and the copy read.
--from DIR reads the stores under DIR as a home instead (the agents' override variables are then not
read). A call or prompt the log already holds — imported
before, or recorded by OTLP (same session, same tokens or text, within a minute) — adds nothing: the
two records are merged into one. The files are only read (no lock the agent could wait on); a
symlink, a file another user may write, a malformed, overlong (>32 MiB) or non-UTF-8 line is skipped
with a warning on stderr. --since T skips what happened before T (T as in beacon events). --dry-run
writes nothing and says what would be added, per agent and month. The log remembers how far each
file was read: a file unchanged since reads nothing, a grown one is read from where it stopped, a
replaced or shorter one from its start; a last line without its newline waits for it. --follow
keeps going until Ctrl-C / SIGTERM, reading new and grown session files as the agents write them
(a line per file it added events from); the collector does the same with importFollow set.`,
  options: {
    log: configOption('log'),
    from: { type: 'string', arg: 'DIR', help: "a home to read the agents' stores under (default: yours, and their override variables)" },
    since: { type: 'string', arg: 'T', help: 'only what happened at or after T' },
    'dry-run': { type: 'boolean', help: 'write nothing: say what would be added, per agent and month' },
    utc: { type: 'boolean', help: 'read --since and count months in UTC instead of the local zone' },
    follow: { type: 'boolean', help: 'keep reading new and grown session files as the agents write them, until Ctrl-C' },
  },
  examples: ['beacon import', 'beacon import --follow', 'beacon import claude-code --since 30d', 'beacon import codex --dry-run', 'beacon import --from /mnt/old-laptop/home/me'],
  positionals: AGENT_WORDS,
  manyPositionals: true,
} as const satisfies CommandSpec;

export async function run(argv: string[], io: Pick<CommandIO, 'env' | 'out' | 'stderr'>): Promise<number> {
  const parsed = parseCommand(spec, argv, io.out);
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  const stores = chosenStores(positionals);
  const databases = chosenDatabases(positionals);
  const { sinceNs } = timeRange(values.since, undefined, values.utc === true);
  const warn = (m: string) => io.stderr(`beacon import: ${escapeControls(m)}\n`);
  const logPath = resolveEventLogPath(values.log, io.env);
  const dryRun = values['dry-run'] === true;
  const rootOf = (store: SessionStore) => (values.from !== undefined ? store.root(values.from) : store.root(io.env.HOME || homedir(), io.env));
  const pathOf = (store: DatabaseStore) => (values.from !== undefined ? store.path(values.from) : store.path(io.env.HOME || homedir(), io.env));
  if (values.follow === true) {
    if (dryRun || sinceNs !== undefined) throw new BeaconError('usage', '--follow records everything from where each file was read: it takes no --dry-run or --since');
    return follow(stores.map((store) => ({ store, root: rootOf(store) })), databases.map((d) => databaseSource(d, pathOf(d))), new LogTarget(logPath), warn, io);
  }
  const readers = new ReadingThreads(readingThreads(io.env));
  const target = dryRun ? new DryRunTarget(openLogForReading(logPath)) : new LogTarget(logPath, { batchFiles: true });
  const progress = new Progress(process.stderr.isTTY === true && !io.env.CI);
  try {
    for (const store of stores) {
      const root = rootOf(store);
      const r = await readers.importStore(store, root, {
        target, warn, utc: values.utc === true, ...(sinceNs !== undefined ? { sinceNs } : {}),
        progress: (file, files, share) => progress.show(`${store.harness}: ${plural(file, 'file')} of ${files}, ${Math.round(share * 100)}%`),
      });
      progress.clear();
      report(io.out, store, root, r, dryRun);
    }
    for (const store of databases) {
      const path = pathOf(store);
      const tallies = new Map<string, Tally>();
      const r = await importWhole(databaseSource(store, path), { target, warn, onRows: tallyInto(tallies, values.utc === true), ...(sinceNs !== undefined ? { sinceNs } : {}) });
      if (!r.read && !existsSync(path)) io.out(`${store.harness}: no database at ${path}`);
      else io.out(`${store.harness}: database ${path}: ${r.read ? 'read (a private copy)' : 'unchanged since the last import, not read'}`);
      reportTallies(io.out, tallies, dryRun);
    }
    const spooled = target.spooled();
    if (spooled > 0) io.out(`${plural(spooled, 'event')} waited for the log's lock too long and went to its spool: the collector (or the next writer) commits them`);
  } finally {
    progress.clear();
    await readers.close();
    target.close();
  }
  return 0;
}

/** `--follow`: until SIGINT or SIGTERM, a line per file a pass added events from. */
async function follow(stores: FollowedStore[], wholes: WholeSource[], target: LogTarget, warn: (m: string) => void, io: Pick<CommandIO, 'out' | 'stderr'>): Promise<number> {
  const follower = new StoreFollower({
    stores, wholes, target, warn,
    onBatch: (b) => b.added > 0 && io.out(`${b.harness}: added ${plural(b.added, 'event')} from ${escapeControls(b.path)}`),
  });
  const signalled = new Promise<void>((resolve) => {
    for (const s of ['SIGINT', 'SIGTERM'] as const) process.once(s, () => resolve());
  });
  io.stderr(`beacon import: following ${[...stores.map((s) => s.root), ...wholes.map((w) => w.path)].map((p) => escapeControls(p)).join(', ')} (Ctrl-C stops)\n`);
  follower.start();
  const alive = setInterval(() => {}, 1 << 30); // the follower's timers are unref'd (the collector's must not hold its exit): this one holds the command's
  try {
    await signalled;
    await follower.stop();
  } finally {
    clearInterval(alive);
    target.close();
  }
  const spooled = target.spooled();
  if (spooled > 0) io.out(`${plural(spooled, 'event')} waited for the log's lock too long and went to its spool: the collector (or the next writer) commits them`);
  return 0;
}

/** BEACON_IMPORT_THREADS: how many reading threads (0: none, the import in one thread); unset, one per core. */
function readingThreads(env: NodeJS.ProcessEnv): ParallelOptions {
  const v = env.BEACON_IMPORT_THREADS;
  if (v === undefined || v === '') return {};
  if (!/^\d{1,2}$/.test(v)) throw new BeaconError('usage', `BEACON_IMPORT_THREADS=${escapeControls(v)}: a number of threads (0 reads in one thread) was expected`);
  return { threads: Number(v) };
}

function chosenStores(words: string[]): SessionStore[] {
  if (words.length === 0) return [...SESSION_STORES];
  const chosen = words.map((w) => sessionStoreNamed(w) ?? (databaseStoreNamed(w) ? undefined : sessionStoreNamed(expectPositional(spec, w, 'agent'))));
  return SESSION_STORES.filter((s) => chosen.includes(s));
}

function chosenDatabases(words: string[]): DatabaseStore[] {
  if (words.length === 0) return [...DATABASE_STORES];
  return DATABASE_STORES.filter((d) => words.some((w) => databaseStoreNamed(w) === d));
}

function report(out: (s: string) => void, store: SessionStore, root: string, r: StoreImported, dryRun: boolean): void {
  if (r.files === 0) {
    out(`${store.harness}: no session files under ${root}`);
    return;
  }
  // the bytes read say what a re-import costs: a file unchanged since its cursor is not read at all
  const unchanged = r.unchanged > 0 ? `, ${plural(r.unchanged, 'file')} unchanged since the last import` : '';
  const threads = r.threads ? ` (${plural(r.threads, 'reading thread')})` : '';
  out(`${store.harness}: ${plural(r.files, 'session file')} under ${root}: read ${plural(r.bytes, 'byte')}${threads}${unchanged}`);
  reportTallies(out, r.tallies, dryRun);
}

function reportTallies(out: (s: string) => void, tallies: Map<string, Tally>, dryRun: boolean): void {
  for (const [month, t] of [...tallies].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const kinds = KINDS.filter((k) => t.byKind.has(k)).map((k) => plural(t.byKind.get(k)!, k)).join(', ');
    out(`  ${month}: ${dryRun ? 'would add' : 'added'} ${plural(t.added, 'event')}${kinds ? ` (${kinds})` : ''}, ${t.present.toLocaleString('en-US')} already recorded`);
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
