#!/usr/bin/env node
// Build step: makes dist/beacon-hooks-adapter.js.cache, the V8 code cache dist/beacon-hooks.js
// starts the adapter from (src/bin/beacon-hooks.ts). V8 adds to a script's cache the functions it
// compiled while running, so the cache is made by one real hook, a pre-tool event written into a
// throwaway log: the hook path's functions are then in it, not only the bundle's top level.
'use strict';
const { spawnSync } = require('node:child_process');
const { existsSync, mkdtempSync, rmSync, unlinkSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const dist = join(__dirname, '..', 'dist');
const cache = join(dist, 'beacon-hooks-adapter.js.cache');
if (existsSync(cache)) unlinkSync(cache);
const dir = mkdtempSync(join(tmpdir(), 'beacon-code-cache-'));
try {
  const payload = { event: 'PreToolUse', session_id: 'code-cache', tool_call_id: 'c1', tool_name: 'developer__shell', tool_input: { command: 'ls' }, working_dir: dir };
  const r = spawnSync(process.execPath, [join(dist, 'beacon-hooks.js'), '--platform', 'goose', '--log', join(dir, 'events.db'), '--config', join(dir, 'none.json'), 'pre-tool'], {
    input: JSON.stringify(payload),
    encoding: 'utf8',
    env: { ...process.env, BEACON_POLICY_PROVIDER: '' },
  });
  if (r.status !== 0 || r.stdout !== '{"decision":"allow"}' || r.stderr !== '') throw new Error(`the hook that makes the code cache failed (exit ${r.status}): ${r.stderr}`);
  if (!existsSync(cache)) throw new Error(`the hook ran but wrote no ${cache}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
