#!/usr/bin/env node
// goose waits for this process on every tool call and turn: it loads only the hook path
// (no fastify, protobufjs or pino) and always exits 0.
import { fstatSync, readFileSync, writeSync } from 'node:fs';
import { runHook } from '../hooks/main';

/** goose writes the event and closes stdin. Read synchronously: `process.stdin` would load the
 *  whole stream and net stack (~3 ms) for one small JSON document. A terminal gives no payload. */
async function readStdin(): Promise<string> {
  try {
    if (fstatSync(0).isCharacterDevice()) return '';
    return readFileSync(0, 'utf8');
  } catch {
    return '';
  }
}

runHook(process.argv.slice(2), {
  stdin: readStdin,
  stdout: (s) => writeSync(1, s),
  stderr: (s) => writeSync(2, s),
  env: process.env,
}).then(
  () => {
    process.exitCode = 0;
  },
  () => {
    process.exitCode = 0;
  },
);
