import assert from 'node:assert/strict';
import { Readable, Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { run as runStream } from '../../src/cli/commands/stream';

/** goose's output as a pull stream that counts how much the adapter has taken. */
function gooseOutput(lines: number) {
  let pulled = 0;
  const stdin = new Readable({
    highWaterMark: 1,
    read() {
      if (pulled === lines) return void this.push(null);
      const i = pulled++;
      this.push(`${JSON.stringify({ type: 'message', message: { id: `m${i}`, role: 'assistant', created: 1787301001, content: [{ type: 'text', text: `line ${i} `.repeat(20) }], metadata: {} } })}\n`);
    },
  });
  return { stdin, pulled: () => pulled };
}

/** A reader that takes nothing until released (a paused `| less`). */
function stuckReader() {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let bytes = 0;
  const stdout = new Writable({
    highWaterMark: 4096,
    write(chunk: Buffer, _enc, cb) {
      bytes += chunk.length;
      void released.then(() => cb());
    },
  });
  return { stdout, release, bytes: () => bytes };
}

describe('beacon stream honours stdout backpressure', () => {
  for (const args of [['--no-log'], ['--no-log', '--tee'], ['--no-log', '--format', 'beacon']]) {
    it(`${args.join(' ')}: a reader that does not read stops the input instead of growing memory`, async () => {
      const input = gooseOutput(5000);
      const out = stuckReader();
      const done = runStream(['goose', ...args], { stdin: input.stdin, stdout: out.stdout, stderr: () => {}, env: {} });
      await new Promise((r) => setTimeout(r, 300));
      assert.ok(input.pulled() < 100, `took ${input.pulled()} of 5000 lines while stdout was full`);
      out.release();
      assert.equal(await done, 0);
      assert.equal(input.pulled(), 5000);
    });
  }
});
