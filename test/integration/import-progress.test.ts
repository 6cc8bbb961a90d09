/**
 * `beacon import`'s progress line (issue 31 item 1: a progress bar on a terminal for long imports),
 * seen through a real pseudo-terminal (python3's pty): rewritten in place on stderr while the files
 * are read, cleared before the summary; nothing of it when stderr is not a terminal.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runBeacon } from '../helpers/daemon';
import { BEACON_BIN, tempDir } from '../helpers/paths';

/** Runs argv with stderr on a pty and stdout on a pipe; prints the pty's bytes (hex) then a NUL line, then stdout. */
const PTY_RUN = `
import os, pty, subprocess, sys
master, slave = pty.openpty()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=slave)
os.close(slave)
seen = b''
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:
        break
    if not chunk:
        break
    seen += chunk
out = p.stdout.read()
p.wait()
sys.stdout.write(seen.hex() + '\\n' + str(p.returncode) + '\\n')
sys.stdout.buffer.write(out)
`;

const python = spawnSync('python3', ['-c', 'import pty'], { encoding: 'utf8' });

function home(): string {
  const h = tempDir('progress-home-');
  const dir = join(h, '.claude', 'projects', '-work');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const n of [1, 2, 3]) {
    const session = `0000000${n}-aaaa-4bbb-8ccc-dddddddddddd`;
    writeFileSync(join(dir, `${session}.jsonl`), `${JSON.stringify({ sessionId: session, timestamp: '2026-11-23T10:00:00.000Z', type: 'user', uuid: `u-${n}`, message: { role: 'user', content: `prompt ${n}` } })}\n`, { mode: 0o600 });
  }
  return h;
}

describe('beacon import: the progress line', () => {
  it('on a terminal: written in place on stderr, then cleared; the summary on stdout untouched', { skip: python.status === 0 ? false : 'python3 with pty is needed for a pseudo-terminal' }, () => {
    const env = { ...process.env };
    delete env.CI; // CI turns the progress line off
    const log = join(tempDir('progress-log-'), 'events.db');
    const r = spawnSync('python3', ['-c', PTY_RUN, process.execPath, BEACON_BIN, 'import', 'claude-code', '--from', home(), '--log', log], { encoding: 'utf8', env });
    assert.equal(r.status, 0, r.stderr);
    const [hex, status, ...stdout] = r.stdout.split('\n');
    assert.equal(status, '0');
    const terminal = Buffer.from(hex!, 'hex').toString('utf8');
    assert.match(terminal, /^\r\x1b\[2Kclaude-code: 1 file of 3, 0%/, 'the first frame, drawn in place');
    assert.ok(terminal.endsWith('\r\x1b[2K'), `the line is cleared at the end: ${JSON.stringify(terminal)}`);
    assert.match(stdout.join('\n'), /^claude-code: 3 session files under .*: read \d+ bytes\n  2026-11: added 3 events \(3 prompts\)/);
    assert.doesNotMatch(stdout.join('\n'), /\x1b/);
  });

  it('not on a terminal: no progress line at all', () => {
    const r = runBeacon(['import', 'claude-code', '--from', home(), '--log', join(tempDir('progress-log-'), 'events.db')], { CI: '' });
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /\x1b|file of/);
  });
});
