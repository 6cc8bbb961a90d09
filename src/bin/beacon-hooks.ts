#!/usr/bin/env node
/**
 * `beacon-hooks`: the agent waits for this process on every tool call and turn, and when no collector
 * runs it is the whole hook (issue 25: ≤ 1.3× a bare `node -e 0`). It only starts the adapter
 * bundle beside it (src/bin/hooks-adapter.ts), compiled from V8's code cache when a cache made by
 * this Node.js for this very bundle lies beside it: parsing and compiling ~180 KB of JavaScript, and
 * the functions the hook path then compiles lazily, cost ~8 ms of every hook otherwise. No cache, a
 * cache of another bundle, or one this Node.js rejects (another version or flags): the bundle is
 * compiled as usual and, where the folder is writable, a fresh cache is written as the process exits.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';

const ADAPTER = join(__dirname, 'beacon-hooks-adapter.js');
/** The cache file: the SHA-1 of the bundle it was made from (V8 itself compares only the length), then V8's data. */
const CODE_CACHE = `${ADAPTER}.cache`;
const DIGEST_BYTES = 20;

function readCache(digest: Buffer): Buffer | undefined {
  try {
    const file = readFileSync(CODE_CACHE);
    return file.length > DIGEST_BYTES && file.subarray(0, DIGEST_BYTES).equals(digest) ? file.subarray(DIGEST_BYTES) : undefined;
  } catch {
    return undefined;
  }
}

/** Written whole under a temporary name, then renamed: hooks run side by side, and none may read half a cache. */
function writeCache(script: Script, digest: Buffer): void {
  const tmp = `${CODE_CACHE}.${process.pid}.tmp`;
  let fd: number | undefined;
  try {
    fd = openSync(tmp, 'wx', 0o644); // first: a read-only install fails here, before V8 serializes anything
    writeSync(fd, digest);
    writeSync(fd, script.createCachedData());
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, CODE_CACHE);
  } catch {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      // never created
    }
  }
}

const bytes = readFileSync(ADAPTER);
// hashed as read: hashing the decoded string would encode it back to UTF-8 first (0.5 ms, not 0.1)
const digest = createHash('sha1').update(bytes).digest();
const source = bytes.toString('utf8');
const cachedData = readCache(digest);
const script = new Script(Module.wrap(source), { filename: ADAPTER, ...(cachedData ? { cachedData } : {}) });
if (!cachedData || script.cachedDataRejected) process.once('exit', () => writeCache(script, digest));
// Run as the CommonJS module it is: its own require (better-sqlite3's addon resolves from its folder).
const adapter = { exports: {}, filename: ADAPTER, id: ADAPTER };
(script.runInThisContext() as (...a: unknown[]) => void).call(adapter.exports, adapter.exports, createRequire(ADAPTER), adapter, ADAPTER, dirname(ADAPTER));
