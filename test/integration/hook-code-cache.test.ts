import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { runHookSync } from '../helpers/hooks';
import { HOOKS_BIN, tempDir } from '../helpers/paths';

// beacon-hooks starts its adapter bundle from V8's code cache (src/bin/beacon-hooks.ts, issue 25).
const ADAPTER = join(dirname(HOOKS_BIN), 'beacon-hooks-adapter.js');
const CACHE = `${ADAPTER}.cache`;
const sha1 = (b: Buffer | string) => createHash('sha1').update(b).digest();

/** The launcher and its adapter copied into a folder of their own, so a test can spoil the cache. */
function copyInstall(adapterSource?: string): { bin: string; cache: string; adapter: string } {
  const dir = tempDir('hook-cache-');
  const bin = join(dir, 'beacon-hooks.js');
  const adapter = join(dir, 'beacon-hooks-adapter.js');
  copyFileSync(HOOKS_BIN, bin);
  if (adapterSource === undefined) copyFileSync(ADAPTER, adapter);
  else writeFileSync(adapter, adapterSource);
  return { bin, cache: `${adapter}.cache`, adapter };
}

const version = (bin: string) => spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8' });

describe('beacon-hooks code cache', () => {
  it('the build ships a cache this Node.js accepts: a hook runs from it and leaves it as it was', () => {
    const before = statSync(CACHE);
    assert.ok(readFileSync(CACHE).subarray(0, 20).equals(sha1(readFileSync(ADAPTER))), 'made from the bundle beside it');
    const log = join(tempDir('hook-cache-log-'), 'events.db');
    const r = runHookSync(log, 'pre-tool', { event: 'PreToolUse', session_id: 's1', tool_call_id: 'c1', tool_name: 'developer__shell', tool_input: { command: 'ls' }, working_dir: '/tmp' });
    assert.deepEqual([r.status, r.stdout, r.stderr], [0, '{"decision":"allow"}', '']);
    const after = statSync(CACHE);
    // a rejected cache would have been rewritten (a new file renamed over it: another inode)
    assert.deepEqual([after.ino, after.mtimeMs], [before.ino, before.mtimeMs]);
  });

  it('no cache: the adapter still answers, and leaves a cache of its bundle for the next hook', () => {
    const c = copyInstall();
    const r = version(c.bin);
    assert.deepEqual([r.status, r.stdout.startsWith('beacon-hooks '), r.stderr], [0, true, '']);
    const cache = readFileSync(c.cache);
    assert.ok(cache.subarray(0, 20).equals(sha1(readFileSync(c.adapter))));
    assert.ok(cache.length > 1000, 'holds V8 data after the digest');
    assert.deepEqual(readdirSync(dirname(c.bin)).filter((f) => f.endsWith('.tmp')), [], 'no temporary file left');
  });

  it('a cache made from another bundle is not used: the bundle on disk runs, and the cache is remade from it', () => {
    // Same length as the shipped bundle (V8 itself would take a cache of equal length): one letter of a message changed.
    const original = readFileSync(ADAPTER, 'utf8');
    const changed = original.replace('print the version', 'print the versioN');
    assert.notEqual(changed, original);
    const c = copyInstall(changed);
    copyFileSync(CACHE, c.cache); // the cache of the original bundle
    const help = spawnSync(process.execPath, [c.bin, '--help'], { encoding: 'utf8' });
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /print the versioN/);
    assert.ok(readFileSync(c.cache).subarray(0, 20).equals(sha1(changed)), 'remade for the bundle on disk');
  });

  it('a cache this Node.js rejects (spoiled data) is compiled around and rewritten', () => {
    const c = copyInstall();
    const digest = sha1(readFileSync(c.adapter));
    writeFileSync(c.cache, Buffer.concat([digest, Buffer.alloc(4096, 7)]));
    const r = version(c.bin);
    assert.deepEqual([r.status, r.stdout.startsWith('beacon-hooks '), r.stderr], [0, true, '']);
    const cache = readFileSync(c.cache);
    assert.ok(cache.subarray(0, 20).equals(digest));
    assert.ok(!cache.subarray(20).equals(Buffer.alloc(4096, 7)), 'rewritten');
  });
});
