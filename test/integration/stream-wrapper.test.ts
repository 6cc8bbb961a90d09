/**
 * `beacon stream <agent> -- <agent command…>` around a fake agent (a script that prints a stream,
 * says what argv it got, and exits or dies as told): the exit statuses and signals a pipe member
 * gives, the stream flags added from the adapter's mode, the stdout passed through byte for byte.
 * The real CLI's run through the wrapper is in stream-real-wrapper.test.ts.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { jsonl, runBeacon } from '../helpers/daemon';
import { BEACON_BIN, tempDir } from '../helpers/paths';
import { SAME_INTERRUPTION_MS } from '../../src/stream/agent-process';

const SESSION = '3f1e0c52-8d7a-4b7e-9a51-0c6f3f0e2b11';
/** Claude's stream shape, a line that is no JSON, bytes that are no UTF-8, and a last line without its newline. */
const STREAM = Buffer.concat([
  Buffer.from(`${JSON.stringify({ type: 'system', subtype: 'init', session_id: SESSION, cwd: '/w', model: 'claude-sonnet-4-5' })}\n`),
  Buffer.from(`${JSON.stringify({ type: 'assistant', message: { id: 'msg_1', role: 'assistant', content: [{ type: 'text', text: 'Done.' }] }, session_id: SESSION })}\n`),
  Buffer.from('progress: 50%\r\n'),
  Buffer.from([0xff, 0xfe, 0x0a]),
  Buffer.from(JSON.stringify({ type: 'result', subtype: 'success', session_id: SESSION, usage: { input_tokens: 10, output_tokens: 5 } })),
]);

/**
 * The fake agent: FAKE_ARGV gets its argv; it prints FAKE_STREAM's bytes, then exits FAKE_EXIT, or
 * with FAKE_SIGNALS waits for a signal (noted in that file; FAKE_SHUTDOWN_MS: it takes that long to
 * exit after a SIGINT). FAKE_HOLD: it first starts a `sleep` that inherits its stdout (a tool process
 * holding the pipe after the agent is gone), its pid written to that file.
 */
function fakeAgent(dir: string): string {
  const path = join(dir, 'claude');
  writeFileSync(path, `#!${process.execPath}
const fs = require('fs');
fs.writeFileSync(process.env.FAKE_ARGV, JSON.stringify(process.argv.slice(2)));
if (process.env.FAKE_HOLD) {
  const holder = require('child_process').spawn('sleep', ['30'], { stdio: ['ignore', 'inherit', 'ignore'] });
  holder.unref();
  fs.writeFileSync(process.env.FAKE_HOLD, String(holder.pid));
}
process.stdout.write(fs.readFileSync(process.env.FAKE_STREAM));
const noted = process.env.FAKE_SIGNALS;
if (noted) {
  // SIGTERM: noted, then the default death by it; SIGINT: noted (each one), then exit 5 (an agent's own choice)
  process.on('SIGTERM', () => { fs.appendFileSync(noted, 'SIGTERM\\n'); process.removeAllListeners('SIGTERM'); process.kill(process.pid, 'SIGTERM'); });
  let shuttingDown = false;
  process.on('SIGINT', () => {
    fs.appendFileSync(noted, 'SIGINT\\n');
    if (!shuttingDown) setTimeout(() => process.exit(5), Number(process.env.FAKE_SHUTDOWN_MS ?? 0));
    shuttingDown = true;
  });
  fs.appendFileSync(noted, 'ready\\n');
  setInterval(() => {}, 1000);
} else process.exitCode = Number(process.env.FAKE_EXIT ?? 0);
`);
  chmodSync(path, 0o755);
  return path;
}

function setup() {
  const dir = tempDir('stream-wrap-');
  const stream = join(dir, 'stream.bin');
  writeFileSync(stream, STREAM);
  return { dir, agent: fakeAgent(dir), log: join(dir, 'e.db'), argvFile: join(dir, 'argv.json'), env: { ...process.env, FAKE_ARGV: join(dir, 'argv.json'), FAKE_STREAM: stream } };
}

function wrap(platform: string, beaconArgs: string[], command: string[], env: NodeJS.ProcessEnv) {
  return spawnSync(process.execPath, [BEACON_BIN, 'stream', platform, ...beaconArgs, '--', ...command], { env });
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (const until = Date.now() + 10_000; !check(); await new Promise((r) => setTimeout(r, 50))) if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
}

describe('beacon stream <agent> -- <agent command…>', () => {
  it('passes the agent\'s stdout through byte for byte, records its stream, and exits with its exit code', () => {
    const s = setup();
    for (const code of [0, 3]) {
      const r = wrap('claude-code', ['--log', s.log], [s.agent, '-p', 'fix the tests'], { ...s.env, FAKE_EXIT: String(code) });
      assert.equal(r.status, code, r.stderr.toString());
      assert.ok(r.stdout.equals(STREAM), `stdout byte for byte: ${JSON.stringify(r.stdout.toString('latin1'))}`);
    }
    const evs = jsonl(runBeacon(['events', '--log', s.log, '--json', '--session', SESSION]).stdout);
    assert.ok(evs.some((e) => e.event.action === 'agent.message' && e.harness.collection_method === 'stream'), 'the stream is recorded');
    assert.ok(evs.some((e) => e.event.action === 'usage.reported'), 'with its run report');
  });

  it('adds the stream flags the command lacks, from the agent\'s stream mode, and none it has', () => {
    const s = setup();
    const argvOf = (platform: string, command: string[]) => {
      const r = wrap(platform, ['--no-log'], command, s.env);
      assert.equal(r.status, 0, r.stderr.toString());
      return JSON.parse(readFileSync(s.argvFile, 'utf8')) as string[];
    };
    assert.deepEqual(argvOf('claude-code', [s.agent, '-p', 'fix it']), ['--output-format', 'stream-json', '--verbose', '-p', 'fix it']);
    assert.deepEqual(argvOf('claude-code', [s.agent, '--print', '--output-format=stream-json', '--verbose', 'fix it']), ['--print', '--output-format=stream-json', '--verbose', 'fix it'], 'nothing twice');
    assert.deepEqual(argvOf('codex', [s.agent, 'fix it']), ['exec', '--json', 'fix it'], 'codex: its exec subcommand and --json');
    assert.deepEqual(argvOf('codex', [s.agent, '-m', 'gpt-5', 'exec', '--skip-git-repo-check', 'fix it']), ['-m', 'gpt-5', 'exec', '--json', '--skip-git-repo-check', 'fix it'], 'after the exec the command has');
    assert.deepEqual(argvOf('opencode', [s.agent, 'run', 'fix it']), ['run', '--format', 'json', 'fix it']);
    assert.deepEqual(argvOf('gemini-cli', [s.agent, '-p', 'fix it']), ['--output-format', 'stream-json', '-p', 'fix it']);
    assert.deepEqual(argvOf('gemini-cli', [s.agent, '-o', 'stream-json', '-p', '--output-format text']), ['-o', 'stream-json', '-p', '--output-format text']);
    assert.deepEqual(argvOf('goose', [s.agent, '-q', '--text', 'x', '--', '--output-format']), ['run', '--output-format', 'stream-json', '-q', '--text', 'x', '--', '--output-format'], 'after the command\'s own -- nothing is an option');
  });

  it('refuses a stream flag given another value, and names a command that is not there (127, as a shell does)', () => {
    const s = setup();
    const other = wrap('claude-code', [], [s.agent, '-p', '--output-format', 'text', 'x'], s.env);
    assert.equal(other.status, 2);
    assert.match(other.stderr.toString(), /--output-format text.*--output-format stream-json/);
    assert.ok(!existsSync(s.argvFile), 'the agent was not run');
    const none = wrap('claude-code', ['--no-log'], [join(s.dir, 'no-such-agent'), '-p', 'x'], s.env);
    assert.equal(none.status, 127);
    assert.match(none.stderr.toString(), /cannot run .*no-such-agent: not found/);
    const empty = wrap('claude-code', [], [], s.env);
    assert.equal(empty.status, 2);
    assert.match(empty.stderr.toString(), /which command after --/);
  });

  for (const [signal, status, agentSays] of [['SIGTERM', 128 + 15, 'SIGTERM'], ['SIGINT', 5, 'SIGINT']] as const) {
    it(`${signal} sent to Beacon alone reaches the agent; Beacon reads its stream to the end and exits as it did (${status})`, async () => {
      const w = await startWrapped({});
      try {
        // only Beacon's pid: were the agent in its own group, nothing but Beacon could tell it
        w.child.kill(signal);
        assert.equal((await w.exited).code, status);
      } finally {
        w.end();
      }
      assert.deepEqual(w.signalsSeen(), ['ready', agentSays]);
      assert.ok(w.stdout().equals(STREAM));
      assert.ok(w.recorded().some((e) => e.event.action === 'agent.message'), 'what the agent streamed before the signal is recorded');
    });
  }

  it('a second SIGINT while the agent is still shutting down stops it now: SIGKILL, not a second SIGINT; what it streamed recorded; exit 137, without waiting for a process that holds its stdout', async () => {
    // the agent takes 20 s to exit after a SIGINT, and a `sleep 30` it started holds its stdout
    const w = await startWrapped({ FAKE_SHUTDOWN_MS: '20000', hold: true });
    let stoppedIn = Infinity;
    try {
      w.child.kill('SIGINT');
      await waitFor(() => w.signalsSeen().includes('SIGINT'), 'the agent to get the first SIGINT');
      await new Promise((r) => setTimeout(r, SAME_INTERRUPTION_MS + 100));
      const again = Date.now();
      w.child.kill('SIGINT');
      const exit = await w.exited;
      stoppedIn = Date.now() - again;
      assert.deepEqual(exit, { code: 128 + 9, signal: null }, 'the agent\'s status: killed by SIGKILL');
    } finally {
      w.end();
    }
    assert.ok(stoppedIn < 5000, `stopped ${stoppedIn} ms after the second SIGINT`);
    assert.deepEqual(w.signalsSeen(), ['ready', 'SIGINT'], 'the second one was no SIGINT for the agent');
    assert.match(w.stderr(), /SIGINT passed on to the agent; send it again to stop the agent now/);
    assert.match(w.stderr(), /SIGINT again: stopping the agent now \(SIGKILL\)/);
    assert.ok(w.stdout().equals(STREAM), 'what the agent wrote, passed through');
    assert.ok(w.recorded().some((e) => e.event.action === 'agent.message'), 'and recorded');
  });

  it('the same Ctrl-C arriving twice within moments (from the terminal and from a parent that forwards it, as npm run does) is passed on once and is no stop-now', async () => {
    const w = await startWrapped({ FAKE_SHUTDOWN_MS: '1500' });
    try {
      w.child.kill('SIGINT');
      await new Promise((r) => setTimeout(r, 60));
      w.child.kill('SIGINT');
      assert.deepEqual(await w.exited, { code: 5, signal: null }, 'the agent shut down as it chose, not killed');
    } finally {
      w.end();
    }
    assert.deepEqual(w.signalsSeen(), ['ready', 'SIGINT']);
  });

  it('a signal after the agent exited, while a process it started still holds its stdout, stops the reading: the agent\'s status, the stream recorded', async () => {
    const w = await startWrapped({ hold: true, exitAt: 0 });
    try {
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(w.child.exitCode, null, 'Beacon waits for the held pipe\'s end, as a pipe reader does');
      w.child.kill('SIGINT');
      assert.deepEqual(await w.exited, { code: 0, signal: null });
    } finally {
      w.end();
    }
    assert.ok(w.stdout().equals(STREAM));
    assert.ok(w.recorded().some((e) => e.event.action === 'agent.message'));
  });
});

/**
 * `beacon stream claude-code -- <the fake agent>` running, its stream read: signal-mode (the agent
 * waits for a signal) unless `exitAt` (it exits with that code); `hold`: a `sleep` it started holds its stdout.
 */
async function startWrapped(o: { FAKE_SHUTDOWN_MS?: string; hold?: true; exitAt?: number }) {
  const s = setup();
  const noted = join(s.dir, 'signals');
  const hold = join(s.dir, 'hold.pid');
  const env: NodeJS.ProcessEnv = { ...s.env, ...(o.exitAt === undefined ? { FAKE_SIGNALS: noted } : { FAKE_EXIT: String(o.exitAt) }), ...(o.hold ? { FAKE_HOLD: hold } : {}), ...(o.FAKE_SHUTDOWN_MS ? { FAKE_SHUTDOWN_MS: o.FAKE_SHUTDOWN_MS } : {}) };
  const child = spawn(process.execPath, [BEACON_BIN, 'stream', 'claude-code', '--log', s.log, '--', s.agent, '-p', 'x'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  let err = '';
  child.stdout.on('data', (d: Buffer) => out.push(d));
  child.stderr.on('data', (d: Buffer) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const stdout = () => Buffer.concat(out);
  await waitFor(() => (o.exitAt !== undefined || existsSync(noted)) && stdout().length >= STREAM.length && (!o.hold || existsSync(hold)), 'the agent and its stream');
  return {
    child, exited, stdout, stderr: () => err,
    signalsSeen: () => readFileSync(noted, 'utf8').split('\n').filter(Boolean),
    recorded: () => jsonl(runBeacon(['events', '--log', s.log, '--json', '--session', SESSION]).stdout),
    end: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      if (existsSync(hold)) try { process.kill(Number(readFileSync(hold, 'utf8')), 'SIGKILL'); } catch { /* gone */ }
    },
  };
}
