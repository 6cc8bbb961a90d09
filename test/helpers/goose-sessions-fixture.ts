/**
 * A goose home whose sessions.db holds one session of the mock's two calls (MOCK_USAGE step1, step2),
 * as goose 1.47.0 writes it (schema version 16, docs/goose-sessions-db.md): a `usage_ledger` row per
 * call and the session's running totals in `sessions`. goose is not installable in the lab, so this
 * stands in for a run. The `sessions` table is schema 16's column for column: ccusage 20 reads its
 * `accumulated_*` totals (one entry per session), Beacon the ledger (one event per call).
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { MOCK_USAGE } from './mock-model';
import { tempDir } from './paths';

export const GOOSE_FIXTURE_MODEL = 'gpt-4.1';

/** one goose call: its `Usage` counts input with both cache buckets inside, output with reasoning inside */
const CALLS = [MOCK_USAGE.step1, MOCK_USAGE.step2].map((u) => ({ input: u.input + u.cacheCreation, output: u.output, cacheRead: u.cached, cacheWrite: u.cacheCreation }));

/** Beacon's disjoint buckets for the fixture's calls (input without either cache bucket). */
export function gooseFixtureTruth(): { input: number; output: number; cacheRead: number; cacheCreation: number } {
  const t = { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 };
  for (const c of CALLS) {
    t.input += c.input - c.cacheRead - c.cacheWrite;
    t.output += c.output;
    t.cacheRead += c.cacheRead;
    t.cacheCreation += c.cacheWrite;
  }
  return t;
}

const SCHEMA_16 = `
  CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
  INSERT INTO schema_version (version) VALUES (16);
  CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '',
    user_set_name BOOLEAN DEFAULT FALSE, session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, extension_data TEXT DEFAULT '{}',
    total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER, cache_read_tokens INTEGER, cache_write_tokens INTEGER,
    accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER,
    accumulated_cache_read_tokens INTEGER, accumulated_cache_write_tokens INTEGER, accumulated_cost REAL,
    schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT, provider_name TEXT, model_config_json TEXT,
    goose_mode TEXT NOT NULL DEFAULT 'auto', archived_at TIMESTAMP, project_id TEXT, parent_session_id TEXT);
  CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT, session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL,
    content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL, timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER, metadata_json TEXT);
  CREATE TABLE usage_ledger (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    created_timestamp INTEGER NOT NULL, model TEXT, input_tokens INTEGER, output_tokens INTEGER, total_tokens INTEGER,
    cache_read_tokens INTEGER, cache_write_tokens INTEGER, cost REAL, cost_source TEXT, is_compaction INTEGER DEFAULT 0);
`;

/** The home (`~/.local/share/goose/sessions/sessions.db` under it), its session created and its calls made a few seconds ago. */
export function gooseFixtureHome(): string {
  const home = tempDir('goose-ccusage-home-');
  const dir = join(home, '.local', 'share', 'goose', 'sessions');
  mkdirSync(dir, { recursive: true });
  const db = new Database(join(dir, 'sessions.db'));
  db.exec(SCHEMA_16);
  const t = Math.floor(Date.now() / 1000) - 5;
  const sum = (k: 'input' | 'output' | 'cacheRead' | 'cacheWrite') => CALLS.reduce((s, c) => s + c[k], 0);
  const last = CALLS[CALLS.length - 1]!;
  // the plain columns are the last call's (the context now), the accumulated ones the session's sums
  db.prepare(`INSERT INTO sessions (id, working_dir, created_at, total_tokens, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
    accumulated_total_tokens, accumulated_input_tokens, accumulated_output_tokens, accumulated_cache_read_tokens, accumulated_cache_write_tokens,
    provider_name, model_config_json) VALUES ('20261202_1', '/tmp/goose-lab', datetime(?, 'unixepoch'), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'openai', ?)`).run(
    t, last.input + last.output, last.input, last.output, last.cacheRead, last.cacheWrite,
    sum('input') + sum('output'), sum('input'), sum('output'), sum('cacheRead'), sum('cacheWrite'),
    JSON.stringify({ model_name: GOOSE_FIXTURE_MODEL }), // goose's ModelConfig: only the field ccusage reads
  );
  const call = db.prepare(`INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, output_tokens, total_tokens, cache_read_tokens, cache_write_tokens, cost, cost_source)
    VALUES ('20261202_1', ?, ?, ?, ?, ?, ?, ?, NULL, 'estimated')`);
  CALLS.forEach((c, i) => call.run(t + 1 + i, GOOSE_FIXTURE_MODEL, c.input, c.output, c.input + c.output, c.cacheRead, c.cacheWrite));
  db.close();
  return home;
}
