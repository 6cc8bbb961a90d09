#!/usr/bin/env node
// Build step (after tsc): inlines the npm packages a compiled module requires into that module,
// leaving its own imports (relative paths, node: built-ins) as they are. A package of many files
// costs its resolution and reads on every load: `yaml` is ~80 files, 20-35 ms for `beacon doctor`
// and `beacon install` on this machine, ~5 ms as one file (issue 25); better-sqlite3's JavaScript ~3 ms. The source still says
// require('yaml'); only dist/ changes, and a lazy require stays lazy (esbuild wraps the package).
'use strict';
const { build } = require('esbuild');
const { join, resolve } = require('node:path');

const dist = join(__dirname, '..', 'dist');
/** compiled module → why it is inlined */
const MODULES = {
  'src/setup/goose-config.js': 'yaml, read by doctor, install and uninstall',
  // the addon stays a file: event-log.ts resolves its path by name and hands it to better-sqlite3
  'src/store/log/event-log.js': "better-sqlite3's dozen lib files, loaded by every command that reads the log",
};

async function inline(rel) {
  const file = resolve(dist, rel);
  await build({
    entryPoints: [file],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile: file,
    allowOverwrite: true,
    logLevel: 'warning',
    plugins: [{
      name: 'own-imports-stay',
      setup(b) {
        b.onResolve({ filter: /^\.\.?\// }, (a) => (a.importer === file ? { path: a.path, external: true } : undefined));
      },
    }],
  });
}

Promise.all(Object.keys(MODULES).map(inline)).catch((e) => {
  console.error(e.message);
  process.exit(1);
});
