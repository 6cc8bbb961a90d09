import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { jsonl, runBeacon } from '../helpers/daemon';
import { BEACON_BIN, repoRoot, tempDir } from '../helpers/paths';

const FIXTURE = join(repoRoot(), 'test', 'fixtures', 'goose-stream.jsonl');

/** As a user runs it: goose's output piped into `beacon stream goose`. */
function pipe(args: string[], input = readFileSync(FIXTURE)) {
  return spawnSync('sh', ['-c', `"${process.execPath}" "${BEACON_BIN}" stream goose ${args.map((a) => `'${a}'`).join(' ')}`], { input, encoding: 'utf8' });
}

describe('beacon stream goose', () => {
  it('prints harness events and records them with collection method stream', () => {
    const log = join(tempDir(), 'e.db');
    const r = pipe(['--log', log]);
    assert.equal(r.status, 0, r.stderr);
    // goose's MCP notification is an unknown harness event, verbatim (the spec), with no Beacon record;
    // the line that is not JSON is unknown too
    assert.deepEqual(jsonl(r.stdout).map((e) => e.type), ['reasoning', 'agent', 'unknown', 'command', 'unknown']);
    assert.deepEqual(jsonl(r.stdout)[2].raw, { type: 'notification', extension_id: 'developer', log: { message: 'running' } });
    assert.deepEqual(jsonl(r.stdout)[3], { timestamp: '2026-08-21T08:30:04.000Z', type: 'command', command: 'cargo test', exitCode: 101, isSuccess: false });
    const evs = jsonl(runBeacon(['events', '--log', log, '--json']).stdout);
    assert.ok(evs.every((e) => e.harness.collection_method === 'stream' && e.harness.name === 'goose'));
    const tool = evs.find((e) => e.gen_ai?.tool?.call?.id === 'toolu_01AbC');
    assert.equal(tool.event.action, 'tool.failed');
    assert.equal(tool.command.exit_code, 101);
    const usage = evs.find((e) => e.event.action === 'usage.reported');
    assert.deepEqual(usage.gen_ai.usage, { input_tokens: 14550 - 11200 - 1500, output_tokens: 710, cache_read: { input_tokens: 11200 }, cache_creation: { input_tokens: 1500 }, cost_usd: 0.0241 });
    assert.equal(usage.raw.usage_scope, 'session_cumulative');
    assert.equal(usage.model, 'claude-sonnet-4-5');
    assert.equal(evs.find((e) => e.event.action === 'agent.reasoning').reasoning.text, 'Run the tests first.');
    assert.ok(evs.every((e) => e.session === undefined), 'goose prints no session id');
  });

  it('a stream replayed with the same --session adds no tool or message events again', () => {
    const log = join(tempDir(), 'e.db');
    pipe(['--log', log, '--session', 'replayed']);
    pipe(['--log', log, '--session', 'replayed']);
    const evs = jsonl(runBeacon(['events', '--log', log, '--json']).stdout);
    assert.equal(evs.filter((e) => e.event.action === 'tool.failed').length, 1);
    assert.equal(evs.filter((e) => e.event.action === 'agent.message').length, 1);
  });

  it('two runs without --session never merge, even when goose reuses a tool call id (the second rm -rf is kept)', () => {
    const log = join(tempDir(), 'e.db');
    const run = Buffer.from(
      [
        { type: 'message', message: { id: 'm1', role: 'assistant', created: 1787301001, content: [{ type: 'toolRequest', id: 'call_1', toolCall: { status: 'success', value: { name: 'shell', arguments: { command: 'rm -rf build' } } } }], metadata: {} } },
        { type: 'message', message: { id: 'm2', role: 'user', created: 1787301002, content: [{ type: 'toolResponse', id: 'call_1', toolResult: { status: 'success', value: { content: [], isError: false } } }], metadata: {} } },
        { type: 'message', message: { id: 'm3', role: 'assistant', created: 1787301003, content: [{ type: 'text', text: 'done' }], metadata: {} } },
      ].map((l) => JSON.stringify(l)).join('\n') + '\n',
    );
    assert.equal(pipe(['--log', log], run).status, 0);
    assert.equal(pipe(['--log', log], run).status, 0);
    const evs = jsonl(runBeacon(['events', '--log', log, '--json']).stdout);
    assert.equal(evs.filter((e) => e.command?.command === 'rm -rf build').length, 2);
    assert.equal(evs.filter((e) => e.event.action === 'agent.message').length, 2);
  });

  it('survives any input line: a "created" past the end of time is a line like another, and --tee passes everything through', () => {
    const log = join(tempDir(), 'e.db');
    const lines = [
      JSON.stringify({ type: 'message', message: { id: 'm1', role: 'assistant', created: 1e17, content: [{ type: 'text', text: 'from the far future' }], metadata: {} } }),
      JSON.stringify({ type: 'message', message: { id: 'm2', role: 'assistant', created: -1e300, content: [{ type: 'toolRequest', id: 'c1', toolCall: { status: 'success', value: { name: 'shell', arguments: { command: 'make' } } } }], metadata: {} } }),
      JSON.stringify({ type: 'message', message: { id: 'm3', role: 'user', created: Number.MAX_VALUE, content: [{ type: 'toolResponse', id: 'c1', toolResult: { status: 'success', value: { content: [], isError: false } } }], metadata: {} } }),
      `${'['.repeat(100_000)}${']'.repeat(100_000)}`, // deeper than any recursive walk
      JSON.stringify({ type: 'message', message: { id: 'm4', role: 'assistant', created: 1787301004, content: [{ type: 'text', text: 'after' }], metadata: {} } }),
    ];
    const input = Buffer.from(lines.join('\n') + '\n');
    const tee = pipe(['--log', log, '--tee'], input);
    assert.equal(tee.status, 0, tee.stderr);
    assert.equal(tee.stdout, input.toString());
    const evs = jsonl(runBeacon(['events', '--log', log, '--json']).stdout);
    // issue 22 item 14: the deep line is no longer skipped but kept as an unknown line, cut and marked
    assert.deepEqual(evs.map((e) => e.event.action).sort(), ['agent.message', 'agent.message', 'agent.unknown', 'command.executed']);
    const printed = pipe(['--no-log'], input);
    assert.equal(printed.status, 0, printed.stderr);
    assert.doesNotMatch(printed.stderr, /skipped/);
    const shown = jsonl(printed.stdout);
    assert.deepEqual(shown.map((e) => e.type), ['agent', 'command', 'unknown', 'agent']);
    assert.match(JSON.stringify(shown[2].raw), /\.\.\.\[truncated: nested too deep\]/);
  });

  it('--tee passes goose\'s lines through byte for byte and only records', () => {
    const log = join(tempDir(), 'e.db');
    const r = pipe(['--log', log, '--tee', '--session', 'tee-1']);
    assert.equal(r.stdout, readFileSync(FIXTURE, 'utf8'));
    const evs = jsonl(runBeacon(['events', '--log', log, '--json', '--session', 'tee-1']).stdout);
    assert.equal(evs.length, 5);
  });

  it('--format beacon prints the stored records; --no-log writes nothing', () => {
    const dir = tempDir();
    const r = pipe(['--format', 'beacon', '--no-log', '--log', join(dir, 'e.db')]);
    assert.equal(r.status, 0);
    assert.ok(jsonl(r.stdout).every((e) => e.schema_version === '1.0'));
    assert.equal(runBeacon(['events', '--log', join(dir, 'e.db')]).stdout.includes('does not exist'), true);
  });

  it('a stream cut mid-line without complete: the partial line is reported, pending work flushed, exit 0', () => {
    const log = join(tempDir(), 'e.db');
    const cut = Buffer.from(
      `${JSON.stringify({ type: 'message', message: { id: 'm', role: 'assistant', created: 1787301001, content: [{ type: 'text', text: 'working' }, { type: 'toolRequest', id: 'x1', toolCall: { status: 'success', value: { name: 'shell', arguments: { command: 'make' } } } }], metadata: {} } })}\n{"type":"message","mess`,
    );
    const r = pipe(['--log', log], cut);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(jsonl(r.stdout).map((e) => e.type), ['agent', 'unknown', 'command']);
  });

  it('an unusable log: the stream still flows, the error is reported, exit 1', () => {
    const r = pipe(['--log', '/dev/null/e.db']);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /not recording/);
    assert.equal(jsonl(r.stdout).length, 5);
  });
});

describe('beacon stream goose: goose run without -q', () => {
  // goose prints its banner to stdout before the JSON unless -q (session/output.rs), styled when it
  // takes stdout for a terminal: the session id and working directory name the run; no line is stored.
  const banner = [
    '\u001b[2mstarting session |\u001b[0m \u001b[2mprovider:\u001b[0m \u001b[36manthropic\u001b[0m \u001b[2mmodel:\u001b[0m \u001b[36mclaude-sonnet-4-5\u001b[0m',
    '    session id: 20261201_7',
    '    working directory: /home/alice/src/app',
  ].join('\n');

  it("takes the session id and working directory from goose's banner for the run's records, and stores no banner line", () => {
    const log = join(tempDir(), 'e.db');
    const r = pipe(['--log', log], Buffer.concat([Buffer.from(`${banner}\n`), readFileSync(FIXTURE)]));
    assert.equal(r.status, 0, r.stderr);
    const printed = jsonl(r.stdout);
    assert.ok(!printed.some((e) => JSON.stringify(e).includes('starting session') || JSON.stringify(e).includes('20261201_7')), 'no banner line printed as an event');
    const evs = jsonl(runBeacon(['events', '--log', log, '--json']).stdout);
    assert.ok(evs.length > 0);
    assert.ok(evs.every((e) => e.session?.id === '20261201_7'), 'every record in the banner\'s session');
    assert.ok(evs.every((e) => e.session?.working_directory === '/home/alice/src/app'));
    assert.ok(!evs.some((e) => JSON.stringify(e).includes('starting session')), 'no banner line stored');
    assert.equal(evs.filter((e) => e.event.action === 'agent.unknown').length, 1, 'only the fixture\'s own non-JSON line');
  });

  it("goose 1.51's banner (display_session_info: an empty line, the goose art with the session): the same session and directory, no line stored", () => {
    // as goose 1.51 prints it on a pipe (real runs: ollama, openrouter); styled on a terminal
    const banner151 = ['', '    __( O)>  \u25cf new session \u00b7 ollama qwen3-coder:30b', '   \\____)    20261202_9 \u00b7 /home/alice/src/my app \u00b7 v2', '     L L     goose is ready'].join('\n');
    for (const text of [banner151, banner151.replace('20261202_9', '\u001b[2m20261202_9\u001b[0m').replace('goose is ready', '\u001b[1mgoose is ready\u001b[0m')]) {
      const log = join(tempDir(), 'e.db');
      const r = pipe(['--log', log], Buffer.concat([Buffer.from(`${text}\n`), readFileSync(FIXTURE)]));
      assert.equal(r.status, 0, r.stderr);
      const evs = jsonl(runBeacon(['events', '--log', log, '--json']).stdout);
      assert.ok(evs.length > 0);
      assert.ok(evs.every((e) => e.session?.id === '20261202_9'), JSON.stringify(evs.map((e) => e.session?.id)));
      assert.ok(evs.every((e) => e.session?.working_directory === '/home/alice/src/my app \u00b7 v2'));
      assert.ok(!evs.some((e) => /goose is ready|new session|____/.test(JSON.stringify(e))), 'no banner line stored');
      assert.equal(evs.filter((e) => e.event.action === 'agent.unknown').length, 1, 'only the fixture\'s own non-JSON line');
    }
  });

  it('--session wins over the banner; a banner-like line after the first record is an ordinary unknown line', () => {
    const log = join(tempDir(), 'e.db');
    const late = Buffer.concat([readFileSync(FIXTURE), Buffer.from('    session id: forged\n')]);
    const r = pipe(['--log', log, '--session', 'mine'], Buffer.concat([Buffer.from(`${banner}\n`), late]));
    assert.equal(r.status, 0, r.stderr);
    const evs = jsonl(runBeacon(['events', '--log', log, '--json']).stdout);
    assert.ok(evs.every((e) => e.session?.id === 'mine'));
    assert.equal(evs.filter((e) => e.event.action === 'agent.unknown').length, 2);
  });
});
