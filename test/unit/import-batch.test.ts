/**
 * The one-shot `beacon import` commits the rows of several session files, and their cursors, in one
 * transaction (LogTarget's batchFiles, issue 31 item 4: a commit per file wrote a WAL three times the
 * log's size). Held until the import yields to the event loop or ends, never longer.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { importFile, STEP_BYTES } from '../../src/importer/file-import';
import { importStore } from '../../src/importer/import-store';
import { LogTarget, type ImportTarget } from '../../src/importer/target';
import { claudeCodeStore } from '../../src/sources/claude-code/store-claude-code';
import { sessionFiles } from '../../src/sources/store-scan';
import { EventLog } from '../../src/store/log/event-log';
import { tempDir } from '../helpers/paths';

const line = (o: unknown) => `${JSON.stringify(o)}\n`;
const at = (session: string, s: number) => ({ sessionId: session, version: '2.1.197', cwd: '/home/alice/proj', timestamp: new Date(Date.UTC(2026, 10, 20, 10, 0, s)).toISOString() });
const prompt = (session: string, s: number, text: string) => line({ ...at(session, s), type: 'user', uuid: `u-${session}-${s}`, message: { role: 'user', content: text } });
const answer = (session: string, s: number, input: number) =>
  line({ ...at(session, s), type: 'assistant', uuid: `a-${session}-${s}`, message: { id: `msg_${session}_${s}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', usage: { input_tokens: input, output_tokens: 7, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } } });

/** A Claude Code store of `sessions` files, each a prompt and an answer. */
function store(sessions: number, body?: (session: string) => string) {
  const home = tempDir('import-batch-home-');
  const dir = join(home, '.claude', 'projects', '-work');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (let i = 0; i < sessions; i++) {
    const session = `0000000${i}-2a57-4c3e-9f43-1d2b9e0c7a11`;
    writeFileSync(join(dir, `${session}.jsonl`), body ? body(session) : prompt(session, 0, `question ${i}`) + answer(session, 1, 100 + i), { mode: 0o600 });
  }
  return { root: claudeCodeStore.root(home), log: join(tempDir('import-batch-log-'), 'events.db') };
}

/** What another connection sees: committed events and cursors. */
function committed(log: string): { events: number; cursors: number } {
  const other = EventLog.open(log, { readonly: true });
  try {
    return { events: other.count(), cursors: (other.db.prepare('SELECT count(*) AS n FROM import_cursors').get() as { n: number }).n };
  } finally {
    other.close();
  }
}

describe('beacon import: several files in one transaction', () => {
  it("holds the rows and cursors of several files in one transaction until it is flushed; without batchFiles each file's commits at once", async () => {
    const s = store(3);
    const files = sessionFiles(claudeCodeStore, s.root, assert.fail);
    for (const batchFiles of [true, false]) {
      const log = join(tempDir('import-batch-log-'), 'events.db');
      const target = new LogTarget(log, { batchFiles });
      try {
        for (const file of files.slice(0, 2)) await importFile(claudeCodeStore, file, { target, warn: assert.fail, finished: true });
        assert.deepEqual(committed(log), batchFiles ? { events: 0, cursors: 0 } : { events: 4, cursors: 2 });
        await importFile(claudeCodeStore, files[2]!, { target, warn: assert.fail, finished: true });
        target.flush?.();
        assert.deepEqual(committed(log), { events: 6, cursors: 3 });
      } finally {
        target.close();
      }
    }
  });

  it('an imported store is committed when importStore returns (the target still open), and a second import adds nothing', async () => {
    const s = store(5);
    for (const expected of [10, 0]) {
      const target = new LogTarget(s.log, { batchFiles: true });
      try {
        const r = await importStore(claudeCodeStore, s.root, { target, warn: assert.fail, utc: true });
        assert.equal([...r.tallies.values()].reduce((n, t) => n + t.added, 0), expected);
        assert.deepEqual(committed(s.log), { events: 10, cursors: 5 });
      } finally {
        target.close();
      }
    }
  });

  it('a file read in several steps is committed before each yield to the event loop', async () => {
    const big = 'x'.repeat(200_000);
    const s = store(1, (session) => Array.from({ length: Math.ceil((STEP_BYTES * 1.5) / big.length) }, (_, i) => prompt(session, i, `${i} ${big}`)).join(''));
    const real = new LogTarget(s.log, { batchFiles: true });
    const calls: string[] = [];
    const spy: ImportTarget = {
      cursors: { get: (p) => real.cursors.get(p), put: (c) => (calls.push('cursor'), real.cursors.put(c)) },
      record: (rows) => (calls.push('record'), real.record(rows)),
      flush: () => (calls.push('flush'), real.flush()),
      spooled: () => real.spooled(),
      close: () => real.close(),
    };
    try {
      const [file] = sessionFiles(claudeCodeStore, s.root, assert.fail);
      await importFile(claudeCodeStore, file!, { target: spy, warn: assert.fail, finished: true });
      assert.deepEqual(calls, ['record', 'cursor', 'flush', 'record', 'cursor']);
    } finally {
      spy.close();
    }
    assert.equal(committed(s.log).cursors, 1);
  });
});
