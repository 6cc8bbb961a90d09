import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gooseDefaultLoopTurn } from '../helpers/goose-spans';
import { startCollector } from '../helpers/daemon';
import { runHookAsync } from '../helpers/hooks';
import { traceRequest } from '../helpers/otlp-json';
import { BEACON_BIN, tempDir } from '../helpers/paths';

/** Runs `beacon events --follow --json` and collects what it prints. */
function follower(log: string, extra: string[] = []) {
  const child = spawn(process.execPath, [BEACON_BIN, 'events', '--follow', '--json', '--log', log, ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: any[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any
  createInterface({ input: child.stdout! }).on('line', (l) => lines.push(JSON.parse(l)));
  const until = async (pred: () => boolean, what: string) => {
    for (let i = 0; i < 200 && !pred(); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(pred(), `timed out waiting for ${what}; got ${lines.length} lines`);
  };
  const stop = () => new Promise<number | null>((r) => {
    child.once('exit', (code) => r(code));
    child.kill('SIGINT');
  });
  /** The follower has the log open (and so has taken its cursor): on a loaded machine start-up takes a while. */
  const ready = async () => {
    const opened = () => {
      try {
        return readdirSync(`/proc/${child.pid}/fd`).some((fd) => {
          try {
            return readlinkSync(`/proc/${child.pid}/fd/${fd}`) === log;
          } catch {
            return false;
          }
        });
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 200 && !opened(); i++) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300)); // the cursor read follows the open
  };
  return { lines, until, stop, ready };
}

describe('beacon events --follow', () => {
  it('prints new records as the collector, hooks and the stream adapter commit them — each once, nothing from before', async () => {
    const c = await startCollector();
    const post = (session: string) => fetch(`${c.url}/v1/traces`, { method: 'POST', body: JSON.stringify(traceRequest(gooseDefaultLoopTurn({ sessionId: session }).spans)), headers: { 'content-type': 'application/json' } });
    assert.equal((await post('before')).status, 200);
    const f = follower(c.log);
    await f.ready();
    assert.equal((await post('after')).status, 200);
    await Promise.all(Array.from({ length: 5 }, (_, i) => runHookAsync(c.log, 'pre-tool', { event: 'PreToolUse', session_id: 'after', tool_call_id: `h${i}`, tool_name: 'shell', tool_input: { command: 'ls' } })));
    const stream = spawn('sh', ['-c', `"${process.execPath}" "${BEACON_BIN}" stream goose --log '${c.log}' --session after > /dev/null`], { stdio: ['pipe', 'ignore', 'inherit'] });
    stream.stdin!.end(`${JSON.stringify({ type: 'message', message: { id: 'm1', role: 'assistant', created: 1787301001, content: [{ type: 'text', text: 'done' }], metadata: {} } })}\n`);
    await new Promise((r) => stream.on('close', r));
    await f.until(() => f.lines.length >= 10, '10 records');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await f.stop(), 0);
    await c.stop();
    assert.ok(f.lines.every((l) => l.session?.id === 'after'), 'nothing from before the follow started');
    const methods = f.lines.map((l) => l.harness.collection_method);
    assert.deepEqual([methods.filter((m) => m === 'otlp').length, methods.filter((m) => m === 'hook').length, methods.filter((m) => m === 'stream').length], [4, 5, 1]);
    assert.equal(new Set(f.lines.map((l) => l.event.id)).size, f.lines.length, 'each record once');
  });

  it('--since prints the backlog first, then follows; waits for a log that does not exist yet', async () => {
    const log = join(tempDir(), 'later.db');
    const f = follower(log, ['--since', '30d']);
    await new Promise((r) => setTimeout(r, 300));
    await runHookAsync(log, 'session-start', { event: 'SessionStart', session_id: 'x' });
    await f.until(() => f.lines.length === 1, 'the first record');
    await runHookAsync(log, 'session-end', { event: 'SessionEnd', session_id: 'x' });
    await f.until(() => f.lines.length === 2, 'the second record');
    assert.equal(await f.stop(), 0);
    const g = follower(log, ['--since', '30d']);
    await g.until(() => g.lines.length === 2, 'the backlog');
    await g.stop();
    assert.deepEqual(g.lines.map((l) => l.event.action), ['session.started', 'session.ended']);
  });
});
