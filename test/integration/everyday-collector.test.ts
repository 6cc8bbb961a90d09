/**
 * Issue 24, everyday use of the collector in a terminal: Ctrl-C on `npm start` (item 2).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot, tempDir } from '../helpers/paths';

describe('Ctrl-C on npm start (issue 24 item 2)', () => {
  // Fails on main: the collector listened with process.once, and npm forwards a second SIGINT
  // after the terminal's, which killed it mid-stop (no "collector stopped", the address file left).
  it('prints "collector stopped" and removes the address file when the whole process group gets SIGINT', async () => {
    const log = join(tempDir(), 'events.db');
    // detached: its own process group, as a terminal's foreground job is; Ctrl-C signals the group
    const npm = spawn('npm', ['start', '--silent', '--', '--port', '0', '--log', log], {
      cwd: repoRoot(),
      detached: true,
      env: { ...process.env, HOME: tempDir('beacon-home-') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    npm.stdout.on('data', (d) => (out += d));
    npm.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => npm.on('exit', (code) => resolve(code)));
    const deadline = Date.now() + 20_000;
    while (!out.includes('collector ready') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok(out.includes('collector ready'), out);
    assert.ok(existsSync(`${log}.collector-url`), 'the address file is written once it listens');
    process.kill(-npm.pid!, 'SIGINT');
    await exited;
    await new Promise((r) => setTimeout(r, 300)); // npm exits as soon as its child does; let the pipe drain
    assert.match(out, /collector stopped/, out);
    assert.equal(existsSync(`${log}.collector-url`), false, 'the address file is removed');
  });
});

describe('the ready line on a terminal (issue 33)', () => {
  /** The collector in a pseudo-terminal (util-linux `script`), as a person starts it; its output until it stops. */
  async function inTerminal(extra: string[]): Promise<string> {
    const log = join(tempDir(), 'events.db');
    const cmd = [process.execPath, join(repoRoot(), 'dist', 'src', 'bin', 'beacon.js'), 'collector', '--port', '0', '--grpc-port', '0', '--log', log, ...extra].map((a) => `'${a}'`).join(' ');
    const term = spawn('script', ['-qfec', cmd, '/dev/null'], { detached: true, env: { ...process.env, HOME: tempDir('beacon-home-') }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    term.stdout.on('data', (d) => (out += d));
    term.stderr.on('data', (d) => (out += d));
    const exited = new Promise<void>((resolve) => term.on('exit', () => resolve()));
    const deadline = Date.now() + 20_000;
    while (!out.includes('collector ready') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    process.kill(-term.pid!, 'SIGTERM');
    await exited;
    return out.replace(/\r/g, '');
  }

  it('one sentence a person reads when stdout is a terminal; the JSON record with --json (and on a pipe, as the other tests read it)', async (t) => {
    if (spawn('script', ['--version']).pid === undefined) return t.skip('no util-linux script(1) for a pseudo-terminal');
    const human = await inTerminal([]);
    assert.match(human, /^collector ready: OTLP\/HTTP http:\/\/127\.0\.0\.1:\d+, OTLP\/gRPC off, writing \/\S+events\.db \(Ctrl-C stops it/m, human);
    assert.ok(!human.includes('"msg":"collector ready"'), human);
    const json = await inTerminal(['--json']);
    const ready = json.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)).find((j) => j.msg === 'collector ready');
    assert.ok(ready?.address, json);
  });
});
