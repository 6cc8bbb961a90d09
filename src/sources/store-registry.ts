import type { NormalizedEvent } from '../model/record';
import { claudeCodeStore } from './claude-code/store-claude-code';
import { clineStore } from './cline/store-cline';
import { codexStore } from './codex/store-codex';
import { copilotCliStore } from './copilot-cli/store-copilot-cli';
import { geminiCliStore } from './gemini-cli/store-gemini-cli';
import { piStore } from './pi/store-pi';
import { qwenCodeStore } from './qwen-code/store-qwen-code';

/**
 * One agent's own session store as `beacon import` reads it: where it is, which of its files are
 * sessions, and what each line of one becomes. The files are JSONL the agent appends to while it
 * runs: they are read, never locked or written (store-scan.ts opens them read-only, line by line).
 * Adding an agent is one module under its folder exporting one of these, and one line below.
 */
export interface SessionStore {
  /** Beacon's harness name for the agent (the same as its OTLP source's) */
  readonly harness: string;
  /** the words `beacon import <agent>` accepts for it */
  readonly names: readonly string[];
  /**
   * the store's directory: the agent's own override variable when `env` is given and sets it, else
   * its default place under `home` (`--from DIR` passes the home and no environment)
   */
  root(home: string, env?: NodeJS.ProcessEnv): string;
  /** how deep under the root session files lie (Codex: sessions/YYYY/MM/DD/rollout-….jsonl is 5) */
  readonly depth: number;
  /** is this path (relative to the root, `/`-separated) one of its session files? */
  isSessionFile(relative: string): boolean;
  /**
   * a reader for one session file; `context` is what `StoreFileReader.context()` gave at the point
   * the read resumes from (absent: the file is read from its start)
   */
  reader(file: string, context?: ReaderContext): StoreFileReader;
  /**
   * is this session file one JSON document rather than JSON lines (rewritten whole each turn)? It
   * is then read as one line, bounded by the same cap, given to `line` once; any change reads it
   * again from its start (the merge makes what it held before add nothing). Otherwise the file is
   * JSON lines only ever appended to: a grown file is read from where the last read stopped.
   */
  isJsonDocument?(file: string): boolean;
}

/** A reader's state a read resuming mid-file needs: small, content-free values (ids, a model name, flags), never a line's text. */
export type ReaderContext = Record<string, string | number | boolean>;

/**
 * Reads one session file: each JSON line in order (or its one document), then the end. Events may come only at the end
 * (a tool call is complete when its result's line has been read; a model call once its last line).
 * A line it cannot make sense of throws: that line is skipped and counted, the file goes on.
 */
export interface StoreFileReader {
  line(value: Record<string, unknown>): NormalizedEvent[];
  end(): NormalizedEvent[];
  /**
   * Optional, for cursors and follow (store-scan.ts): the events no later line can change, taken out
   * of the reader (each returned once; `end()` returns the rest). Without it, events come at `end()`.
   */
  settled?(): NormalizedEvent[];
  /**
   * Optional: true when nothing the reader holds waits for a later line (every call it has seen is
   * complete and taken by `settled()`). Only there can a later read resume without re-reading what
   * came before; a reader without it is read again from the start whenever its file grows.
   */
  idle?(): boolean;
  /** Optional: the context a reader resumed after this point needs (`SessionStore.reader`'s second argument) */
  context?(): ReaderContext | undefined;
}

export const SESSION_STORES: readonly SessionStore[] = [claudeCodeStore, codexStore, geminiCliStore, qwenCodeStore, copilotCliStore, clineStore, piStore];

/** The store a word names (`claude`, `claude-code`, `codex`), if any. */
export function sessionStoreNamed(word: string): SessionStore | undefined {
  const w = word.trim().toLowerCase();
  return SESSION_STORES.find((s) => s.names.includes(w));
}
