import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GooseStreamParser } from '../../src/sources/goose/stream-json';
import type { HarnessEvent } from '../../src/model/harness-event';
import { LineSplitter } from '../../src/stream/lines';
import { streamRecord } from '../../src/sources/goose/stream-record';
import { shellEvent } from '../../src/sources/goose/stream-tools';

const NOW = new Date('2026-11-30T00:00:00.000Z');
const msg = (id: string, role: 'assistant' | 'user', content: unknown[], created = 1787301001, inference?: object) =>
  JSON.stringify({ type: 'message', message: { id, role, created, content, metadata: { userVisible: true, agentVisible: true, ...(inference ? { inference } : {}) } } });
const text = (t: string) => ({ type: 'text', text: t });
const thinking = (t: string) => ({ type: 'thinking', thinking: t, signature: 'sig' });
const req = (id: string, name: string, args: unknown) => ({ type: 'toolRequest', id, toolCall: { status: 'success', value: { name, arguments: args } } });
const res = (id: string, isError = false, structured?: object, status = 'success') =>
  ({ type: 'toolResponse', id, toolResult: status === 'success' ? { status, value: { content: [text('out')], ...(structured ? { structuredContent: structured } : {}), isError } } : { status, error: 'transport' } });

function run(lines: string[], sessionId?: string): HarnessEvent[] {
  const p = new GooseStreamParser({ now: () => NOW, sessionId });
  const out = lines.flatMap((l) => p.line(l));
  return [...out, ...p.end()].map((e) => e.harness).filter((h): h is HarnessEvent => h !== null);
}
const strip = (evs: HarnessEvent[]) => evs.map(({ timestamp: _t, ...rest }) => rest);

describe('goose stream-json → harness events', () => {
  it('accumulates cumulative and delta fragments per kind and id; reasoning flushes ahead of its agent text', () => {
    const evs = run([
      msg('m1', 'assistant', [thinking('Run the')]),
      msg('m1', 'assistant', [thinking('Run the tests')]), // cumulative: restates → replaces
      msg('m1', 'assistant', [thinking(' first.')]), // delta → appended
      msg('m1', 'assistant', [text('Running')]),
      msg('m1', 'assistant', [text(' now.')]),
      JSON.stringify({ type: 'complete', total_tokens: 10, input_tokens: 8, output_tokens: 2 }),
    ]);
    assert.deepEqual(strip(evs), [
      { type: 'reasoning', message: 'Run the tests first.' },
      { type: 'agent', message: 'Running now.' },
    ]);
  });

  it('an unknown record or block between two fragments of one message is surfaced where it stands; the fragments stay one span (goose\'s variant of the shared rules)', () => {
    const evs = run([
      msg('m1', 'assistant', [text('Running')]),
      JSON.stringify({ type: 'notification', extension_id: 'developer', log: { message: 'running' } }),
      'not json',
      msg('m1', 'assistant', [{ type: 'brandNewBlock' }, text(' now.')]),
    ]);
    assert.deepEqual(strip(evs).map((e) => e.type), ['unknown', 'unknown', 'unknown', 'agent']);
    assert.deepEqual(strip(evs)[3], { type: 'agent', message: 'Running now.' });
  });

  it('interleaved thinking/text/tool blocks across several message ids', () => {
    const evs = run([
      msg('a', 'assistant', [thinking('plan'), text('Let me look.')]),
      msg('b', 'assistant', [text('Checking'), req('t1', 'tree', { path: 'src' })]),
      msg('u', 'user', [res('t1')]),
      msg('c', 'assistant', [thinking('now edit'), req('t2', 'edit', { path: 'src/a.rs', before: 'x', after: 'y' })]),
      msg('u2', 'user', [res('t2', true)]),
      msg('c', 'assistant', [text('Edit failed; retrying.')]),
      JSON.stringify({ type: 'complete', total_tokens: 1 }),
    ]);
    assert.deepEqual(strip(evs), [
      { type: 'reasoning', message: 'plan' },
      { type: 'agent', message: 'Let me look.' },
      { type: 'agent', message: 'Checking' },
      { type: 'list', path: 'src', isSuccess: true },
      { type: 'reasoning', message: 'now edit' },
      { type: 'write', path: 'src/a.rs', isSuccess: false },
      { type: 'agent', message: 'Edit failed; retrying.' },
    ]);
  });

  it('tool success needs the transport status and isError; exit codes come from structuredContent', () => {
    const evs = strip(run([
      msg('a', 'assistant', [req('1', 'shell', { command: 'cargo test' }), req('2', 'developer__shell', { command: 'make' }), req('3', 'shell', { command: 'ls -la src' })]),
      msg('u', 'user', [res('1', true, { stdout: '', stderr: 'fail', exit_code: 101 }), res('2', false, undefined, 'error'), res('3', false, { stdout: 'x', stderr: '', exit_code: 0 })]),
    ]));
    assert.deepEqual(evs, [
      { type: 'command', command: 'cargo test', exitCode: 101, isSuccess: false },
      { type: 'command', command: 'make', isSuccess: false },
      { type: 'list', path: 'src', isSuccess: true },
    ]);
  });

  it('maps goose tool names per the table; todo is consumed; MCP and unknown tools are unknown', () => {
    const calls: [string, unknown][] = [
      ['read_image', { source: '/tmp/a.png' }], ['write', { path: 'w.txt', content: '' }], ['developer__text_editor', { command: 'view', path: 'v.py' }],
      ['developer__text_editor', { command: 'str_replace', path: 'v.py' }], ['developer__text_editor', { command: 'undo_edit', path: 'v.py' }],
      ['tree', { path: '.' }], ['load_skill', { name: 'pdf' }], ['todo__todo_write', {}], ['github__create_issue', { title: 'x' }], ['analyze', { path: 'x' }],
      // names goose never registers (older contracts listed them): unknown, as the taxonomy has them generic
      ['read', { path: 'r.txt' }], ['grep', { pattern: 'TODO', path: 'src' }], ['glob', { pattern: '*.ts' }],
      ['shell', { command: "sed -n '10,20p' src/lib.rs" }], ['shell', { command: 'rg foo src' }], ['shell', { command: 'cat README.md | head' }],
    ];
    const p = new GooseStreamParser({ now: () => NOW });
    const out = [
      ...p.line(msg('a', 'assistant', calls.map(([n, a], i) => req(`c${i}`, n, a)))),
      ...p.line(msg('u', 'user', calls.map((_, i) => res(`c${i}`)))),
    ].map((e) => e.harness!);
    assert.deepEqual(strip(out).map((e) => (e.type === 'unknown' ? 'unknown' : e)), [
      { type: 'read', path: '/tmp/a.png', isSuccess: true },
      { type: 'write', path: 'w.txt', isSuccess: true },
      { type: 'read', path: 'v.py', isSuccess: true },
      { type: 'write', path: 'v.py', isSuccess: true },
      { type: 'write', path: 'v.py', isSuccess: true },
      { type: 'list', path: '.', isSuccess: true },
      { type: 'skill', path: 'pdf', skillName: 'pdf', isSuccess: true },
      'unknown',
      'unknown',
      'unknown',
      'unknown',
      'unknown',
      { type: 'read', path: 'src/lib.rs', startLine: 10, endLine: 20, isSuccess: true },
      { type: 'search', query: 'foo', path: 'src', isSuccess: true },
      { type: 'command', command: 'cat README.md | head', isSuccess: true },
    ]);
  });

  it('user text, redactedThinking and image blocks are consumed; notifications and unknown records are unknown, verbatim (the spec); errors are errors', () => {
    const evs = strip(run([
      msg('u', 'user', [text('fix the failing test')]),
      msg('a', 'assistant', [{ type: 'redactedThinking', data: 'xxx' }, { type: 'image', data: 'AA==', mimeType: 'image/png' }]),
      JSON.stringify({ type: 'notification', extension_id: 'developer', log: { message: 'hi' } }),
      JSON.stringify({ type: 'notification', extension_id: 'computercontroller', progress: { progress: 0.5, total: 1, message: null } }),
      JSON.stringify({ type: 'notification', log: 'no extension id' }),
      JSON.stringify({ type: 'future_thing', x: 1 }),
      msg('a', 'assistant', [text('partial')]),
      JSON.stringify({ type: 'error', error: 'provider overloaded' }),
    ]));
    assert.deepEqual(evs.map((e) => e.type), ['unknown', 'unknown', 'unknown', 'unknown', 'agent', 'error']);
    assert.deepEqual(evs[0], { type: 'unknown', raw: { type: 'notification', extension_id: 'developer', log: { message: 'hi' } } });
    assert.deepEqual(evs[5], { type: 'error', message: 'provider overloaded' });
  });

  it("goose's documented blocks by shape: system notifications consumed (credits exhausted is an error), confirmations are approvals", () => {
    const p = new GooseStreamParser({ now: () => NOW });
    const out = [
      msg('a', 'assistant', [{ type: 'systemNotification', notificationType: 'thinkingMessage', msg: 'Thinking…' }, { type: 'systemNotification', notificationType: 'inlineMessage', msg: 'Loading extensions' }]),
      msg('a', 'assistant', [{ type: 'systemNotification', notificationType: 'creditsExhausted', msg: 'Out of credits', data: { url: 'https://x' } }]),
      msg('a', 'assistant', [{ type: 'toolConfirmationRequest', id: 'toolu_c1', toolName: 'shell', arguments: { command: 'rm -rf build' }, prompt: 'Allow?' }]),
      msg('a', 'assistant', [{ type: 'actionRequired', data: { actionType: 'toolConfirmation', id: 'toolu_c2', toolName: 'shell', arguments: { command: 'git push' }, prompt: null } }]),
      msg('u', 'user', [{ type: 'actionRequired', data: { actionType: 'toolConfirmationResponse', id: 'toolu_c2', permission: 'deny_once' } }]),
      msg('a', 'assistant', [{ type: 'actionRequired', data: { actionType: 'elicitation', id: 'e1', message: 'Your name?', requestedSchema: {} } }]),
      msg('a', 'assistant', [{ type: 'frontendToolRequest', id: 'fe1', toolCall: { status: 'success', value: { name: 'shell', arguments: { command: 'pwd' } } } }]),
      msg('u', 'user', [res('fe1')]),
    ].flatMap((l) => p.line(l));
    assert.deepEqual(out.filter((e) => e.harness).map((e) => e.harness!.type), ['error', 'command']);
    assert.deepEqual(strip(out.flatMap((e) => (e.harness ? [e.harness] : [])))[0], { type: 'error', message: 'Out of credits', code: 'credits_exhausted' });
    const approvals = out.filter((e) => e.detail.approval).map((e) => streamRecord(e, 's1')!.record);
    assert.deepEqual(approvals.map((r) => [r.event.action, r.gen_ai?.tool?.call?.id, r.approval?.decision]), [
      ['approval.requested', 'toolu_c1', undefined],
      ['approval.requested', 'toolu_c2', undefined],
      ['approval.denied', 'toolu_c2', 'deny_once'],
    ]);
    assert.equal(approvals[0]!.approval?.reason, 'Allow?');
    // goose reuses call ids across runs: two runs without --session confirm two calls, not one
    const ask = out.find((e) => e.detail.approval)!;
    assert.notEqual(streamRecord(ask, undefined, 'run-a')!.record.event.id, streamRecord(ask, undefined, 'run-b')!.record.event.id);
    assert.equal(approvals[0]!.harness.collection_method, 'stream');
    assert.ok(out.every((e) => e.harness?.type !== 'unknown'));
  });

  it('an unparseable request is unknown; a request never answered is still reported at the end; a response without request is unknown', () => {
    const evs = strip(run([
      msg('a', 'assistant', [{ type: 'toolRequest', id: 'bad', toolCall: { status: 'error', error: 'invalid json' } }, req('t9', 'shell', { command: 'sleep 100' })]),
      msg('u', 'user', [res('nobody')]),
    ]));
    assert.deepEqual(evs.map((e) => e.type), ['unknown', 'unknown', 'command']);
    assert.deepEqual(evs[2], { type: 'command', command: 'sleep 100' });
  });

  it('no session id unless given; complete supplies session-cumulative usage and no event of its own', () => {
    const p = new GooseStreamParser({ now: () => NOW });
    const out = p.line(JSON.stringify({ type: 'complete', total_tokens: 15260, input_tokens: 14550, output_tokens: 710, cache_read_input_tokens: 11200, cache_write_input_tokens: 1500, cost_usd: 0.0241 }));
    assert.equal(out.length, 1);
    assert.equal(out[0]!.harness, null);
    assert.deepEqual(out[0]!.detail.usageReport, {
      scope: 'session',
      usage: { input_tokens: 14550 - 11200 - 1500, output_tokens: 710, cache_read: { input_tokens: 11200 }, cache_creation: { input_tokens: 1500 }, cost_usd: 0.0241 },
      reported: { total_tokens: 15260, input_tokens: 14550, output_tokens: 710, cache_read_input_tokens: 11200, cache_write_input_tokens: 1500, cost_usd: 0.0241 },
    });
    assert.equal(run([msg('a', 'assistant', [text('x')])])[0]!.sessionId, undefined);
    assert.equal(run([msg('a', 'assistant', [text('x')])], 'sess-1')[0]!.sessionId, 'sess-1');
  });

  it('non-JSON, blank and over-long lines never crash; memory stays bounded', () => {
    const split = new LineSplitter(1024, 16);
    const lines = [...split.push(Buffer.from(`{"a":1}\n\n${'x'.repeat(5000)}\npartial`)), ...split.end()];
    assert.deepEqual(lines.map((l) => [l.truncated, l.text.length]), [[false, 7], [false, 0], [true, 16], [false, 7]]);
    const p = new GooseStreamParser({ now: () => NOW, maxPendingChars: 100, maxOpenTools: 2 });
    const out = lines.flatMap((l) => p.line(l)).map((e) => e.harness!.type);
    assert.deepEqual(out, ['unknown', 'unknown', 'unknown']);
    for (let i = 0; i < 50; i++) p.line(msg('m', 'assistant', [text(`<delta ${i}>`)]));
    const [agent] = p.end();
    assert.equal((agent!.harness as { message: string }).message.length, 100);
    const q = new GooseStreamParser({ now: () => NOW, maxOpenTools: 2 });
    const evicted = [1, 2, 3, 4].flatMap((i) => q.line(msg('a', 'assistant', [req(`r${i}`, 'shell', { command: `c${i}` })])));
    assert.deepEqual(evicted.map((e) => (e.harness as { command: string }).command), ['c1', 'c2']);
  });

  it('recognizes single-command file operations in shell and leaves compound commands alone', () => {
    assert.deepEqual(shellEvent('cat a.txt'), { type: 'read', path: 'a.txt' });
    assert.deepEqual(shellEvent('ls'), { type: 'list' });
    assert.deepEqual(shellEvent('cd src && ls'), { type: 'command', command: 'cd src && ls' });
  });
});
