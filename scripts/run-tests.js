#!/usr/bin/env node
// Runs every compiled test file with node's test runner. Node 20 neither expands globs nor finds
// .ts files by itself, and a run with no test files exits 0: this script refuses that.
'use strict';
const { readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');
const { spawnSync } = require('node:child_process');

const root = join(__dirname, '..', 'dist', 'test');
const filters = process.argv.slice(2);
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.test.js') && (filters.length === 0 || filters.some((f) => p.includes(f)))) files.push(p);
  }
})(root);
if (files.length === 0) {
  console.error(`no test files found under ${root}${filters.length ? ` matching ${filters.join(', ')}` : ''}`);
  process.exit(1);
}
files.sort();
const r = spawnSync(process.execPath, ['--test', '--test-timeout=180000', ...files], { stdio: 'inherit' });
process.exit(r.status ?? 1);
