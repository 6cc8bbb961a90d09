import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { EventLog } from '../../src/store/log/event-log';
import type { EventRow } from '../../src/store/log/row';
import { FAILED_SHELL_SQL, NAMES_REPOSITORY_SQL, STORE_SCHEMA_VERSION } from '../../src/store/log/schema';
import { listSessions } from '../../src/store/queries/sessions';
import { beaconRows } from '../helpers/beacon-rows';
import { tempDir } from '../helpers/paths';

const NOW = BigInt(Date.now()) * 1_000_000n;

/** An event of `session` whose record is `extra` merged into a full Beacon record. */
function event(id: string, session: string, i: number, action: string, extra: Record<string, unknown>, toolCallId: string | null = null): EventRow {
  const [base] = beaconRows(1, id, () => NOW - 1_000_000_000n * BigInt(100 - i));
  const record = { ...(JSON.parse(base!.record) as Record<string, unknown>), session: { id: session }, event: { kind: 'agent_runtime', action, id }, ...extra };
  return { ...base!, id, sessionId: session, action, toolCallId, method: 'otlp', record: JSON.stringify(record) };
}

/**
 * goose's OTLP spans never name a repository: 60 of them; a hook session names one from its second
 * event on (a branch too); a failed shell call (tool.failed with a command) and a failed edit.
 */
function rows(): EventRow[] {
  // beaconRows' records carry a command: a model call or edit here names none (undefined: JSON.stringify drops it).
  const goose = Array.from({ length: 60 }, (_, i) => event(`g-${i}`, 'goose-otlp', i, i % 2 ? 'model.invoked' : 'file.modified', { command: undefined }, i % 2 ? null : `call_${i}`));
  return [
    ...goose,
    event('g-shell', 'goose-otlp', 61, 'tool.failed', { command: { command: 'cargo test' } }, 'call_shell'),
    event('g-edit', 'goose-otlp', 62, 'tool.failed', { tool: { name: 'edit' }, command: undefined }, 'call_edit'),
    event('h-0', 'hook-session', 0, 'prompt.submitted', {}),
    event('h-1', 'hook-session', 1, 'command.executed', { repository: '/home/u/src/app', branch: 'main' }, 'call_h1'),
    event('h-2', 'hook-session', 2, 'command.executed', { repository: '/home/u/src/other' }, 'call_h2'),
    event('h-3', 'hook-session', 3, 'note', { note: 'the word "repository" in a value' }),
  ];
}

describe('where a session ran, from an index of the events that name it (schema v8, issue 33)', () => {
  it('migrating a v7 log indexes its old events; sessions answers as it did from the records, by one seek', () => {
    const path = join(tempDir('origin-index-'), 'events.db');
    const log = EventLog.open(path);
    log.append(rows());
    log.close();
    // As a v7 Beacon left it: without the two indexes.
    const db = new Database(path);
    db.exec('DROP INDEX events_origin; DROP INDEX events_failed_shell; PRAGMA user_version = 7');
    db.close();

    const old = EventLog.open(path, { readonly: true });
    const fromRecords = listSessions(old.db, {});
    old.close();
    const bySession = new Map(fromRecords.sessions.map((s) => [s.id, s]));
    assert.equal(bySession.get('hook-session')?.repository, '/home/u/src/app');
    assert.equal(bySession.get('hook-session')?.branch, 'main');
    assert.equal(bySession.get('goose-otlp')?.repository, null);
    assert.equal(bySession.get('goose-otlp')?.harness, 'goose');
    assert.equal(bySession.get('goose-otlp')?.detail?.failedCommands, 1);
    assert.equal(bySession.get('goose-otlp')?.detail?.failedCalls, 2);

    const migrated = EventLog.open(path);
    assert.equal(migrated.db.pragma('user_version', { simple: true }), STORE_SCHEMA_VERSION);
    const held = (index: string, where: string) => migrated.db.prepare(`SELECT id FROM events INDEXED BY ${index} WHERE session_id IS NOT NULL AND ${where} ORDER BY id`).pluck().all();
    assert.deepEqual(held('events_origin', NAMES_REPOSITORY_SQL), ['h-1', 'h-2']);
    assert.deepEqual(held('events_failed_shell', FAILED_SHELL_SQL), ['g-shell']);
    const plan = (sql: string) => (migrated.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all('x') as { detail: string }[]).map((p) => p.detail).join(' | ');
    assert.match(plan(`SELECT json_extract(record, '$.repository') FROM events INDEXED BY events_origin WHERE session_id = ? AND ${NAMES_REPOSITORY_SQL} ORDER BY ts_ns LIMIT 1`), /INDEX events_origin \(session_id=\?\)/);
    assert.match(plan(`SELECT seq FROM events INDEXED BY events_failed_shell WHERE session_id = ? AND ${FAILED_SHELL_SQL}`), /INDEX events_failed_shell \(session_id=\?\)/);
    // The index is kept by every insert: a new session's first repository is found too.
    migrated.append([event('n-0', 'new-session', 0, 'command.executed', { repository: '/home/u/src/new' })]);
    const fromIndex = listSessions(migrated.db, {});
    migrated.close();
    assert.equal(fromIndex.sessions.find((s) => s.id === 'new-session')?.repository, '/home/u/src/new');
    assert.deepEqual(fromIndex.sessions.filter((s) => s.id !== 'new-session'), fromRecords.sessions);
  });
});
