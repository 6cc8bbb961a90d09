/**
 * Recorded content cannot drive the user's terminal: every human-readable output escapes control
 * characters (ESC sequences, C1, bidi overrides) that an agent put into a prompt, a stream or a file.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runBeacon, startCollector } from '../helpers/daemon';
import { gooseDefaultLoopTurn } from '../helpers/goose-spans';
import { traceRequest } from '../helpers/otlp-json';
import { runHookSync } from '../helpers/hooks';
import { BEACON_BIN, tempDir } from '../helpers/paths';

const HOSTILE = 'fix \u001b[31mred\u001b[0m \u001b]52;c;ZXZpbA==\u0007 \u009b2J \u202eevil\u202c\nnext line';
/** no ESC, BEL, other C0 but \n, C1, or bidi control in what reaches the terminal */
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

function assertSafe(out: string, what: string) {
  const m = UNSAFE.exec(out);
  assert.equal(m, null, `${what} printed U+${m?.[0].charCodeAt(0).toString(16).padStart(4, '0')} raw`);
}

describe('terminal safety of recorded content', () => {
  const log = join(tempDir('tty-'), 'events.db');
  runHookSync(log, 'prompt-submit', { event: 'UserPromptSubmit', session_id: `s\u001b[2Jx`, message: HOSTILE });

  it('beacon events (table) escapes control characters and keeps one line per event', () => {
    const r = runBeacon(['events', '--log', log]);
    assert.equal(r.status, 0, r.stderr);
    assertSafe(r.stdout, 'events');
    assert.ok(r.stdout.includes('\\u001b[31mred'), r.stdout);
    assert.equal(r.stdout.trim().split('\n').length, 2, 'header and one row');
  });

  it('beacon events escapes a joined tool call line too: its call id and command', () => {
    const calls = join(tempDir('tty-call-'), 'events.db');
    const call = { event: 'PreToolUse', session_id: 'sc', tool_call_id: `id\u001b]52;c;ZXZpbA==\u0007\u202e`, tool_name: 'shell', tool_input: { command: HOSTILE } };
    runHookSync(calls, 'pre-tool', call);
    runHookSync(calls, 'post-tool', { ...call, event: 'PostToolUse' });
    const r = runBeacon(['events', '--log', calls]);
    assert.equal(r.status, 0, r.stderr);
    assertSafe(r.stdout, 'events (joined)');
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines.length, 2, `header and one line for the call: ${r.stdout}`);
    assert.match(lines[1]!, /pre-tool\+post-tool .*shell: fix \\u001b\[31mred.*\(call id\\u001b\]52;c;ZXZpbA==\\u0007\\u202e\)/);
  });

  it('beacon events --json stays valid JSON with the same values, escaped', () => {
    const r = runBeacon(['events', '--log', log, '--json']);
    assertSafe(r.stdout, 'events --json');
    assert.equal(JSON.parse(r.stdout.trim()).prompt.text, HOSTILE);
  });

  it('beacon events --follow (table and --json) escapes them too', async () => {
    for (const extra of [[], ['--json']]) {
      const child = spawn(process.execPath, [BEACON_BIN, 'events', '--follow', '--since', '30d', '--log', log, ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      for (let i = 0; i < 200 && !out.includes('red'); i++) await new Promise((r) => setTimeout(r, 50));
      child.kill('SIGINT');
      await new Promise((r) => child.once('exit', r));
      assert.ok(out.includes('\\u001b[31mred'), out);
      assertSafe(out, `events --follow ${extra.join(' ')}`);
    }
  });

  it('beacon stream goose prints harness events escaped (and redacted)', () => {
    const line = JSON.stringify({ type: 'message', message: { id: 'm1', role: 'assistant', created: 1787301001, content: [{ type: 'text', text: `${HOSTILE} token=abc123secret` }], metadata: {} } });
    const r = spawnSync('sh', ['-c', `"${process.execPath}" "${BEACON_BIN}" stream goose --no-log`], { input: `${line}\n`, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assertSafe(r.stdout, 'stream');
    assert.ok(!r.stdout.includes('abc123secret'), r.stdout);
    assert.ok(r.stdout.includes('\\u001b'), r.stdout);
  });

  it('beacon install names a foreign hook command escaped', () => {
    const home = tempDir('tty-home-');
    const file = join(home, '.agents', 'plugins', 'beacon-endpoint', 'hooks', 'hooks.json');
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: `evil \u001b]52;c;ZXZpbA==\u0007 \u202etxt.exe` }] }] } }));
    const r = runBeacon(['install', 'goose'], { HOME: home, GOOSE_PATH_ROOT: '', XDG_CONFIG_HOME: '', BEACON_SERVICE_NO_ACTIVATE: '1' });
    assert.notEqual(r.status, 0, 'a foreign hook is refused');
    assert.ok((r.stdout + r.stderr).includes('evil'), 'the command is named');
    assertSafe(r.stdout + r.stderr, 'install');
  });

  // Issue 22 item 15 (fails on main): sessions and token-usage printed recorded names raw, so a newline
  // in a session id, repository or model name printed a forged row.
  it('beacon sessions and token-usage keep a session id, repository or model name with a newline on its own row', async () => {
    const c = await startCollector();
    const forged = 'x\nFORGED  2026-01-01  ok\u001b[2J';
    const turn = gooseDefaultLoopTurn({ sessionId: `ses${forged}` });
    for (const span of turn.spans) {
      const a = span.attributes as Record<string, unknown>;
      if (a['gen_ai.request.model']) a['gen_ai.request.model'] = a['gen_ai.response.model'] = `m${forged}`;
    }
    const r = await fetch(`${c.url}/v1/traces`, { method: 'POST', body: JSON.stringify(traceRequest(turn.spans)), headers: { 'content-type': 'application/json' } });
    assert.equal(r.status, 200);
    runHookSync(c.log, 'prompt-submit', { event: 'UserPromptSubmit', session_id: `ses${forged}`, message: 'hi', working_dir: `/repo${forged}` });
    await c.stop();
    for (const args of [['sessions'], ['token-usage'], ['token-usage', '--by', 'session']]) {
      const out = runBeacon([...args, '--log', c.log], { COLUMNS: '400' });
      assert.equal(out.status, 0, out.stderr);
      assertSafe(out.stdout, args.join(' '));
      assert.ok(!/^\s*FORGED/m.test(out.stdout), `${args.join(' ')} printed a forged row:\n${out.stdout}`);
      assert.ok(out.stdout.includes('\\u000aFORGED'), `${args.join(' ')} shows the newline escaped:\n${out.stdout}`);
    }
  });
});
