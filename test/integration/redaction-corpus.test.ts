/**
 * The redaction corpus through all three paths, as agents produce it: OTLP over a real socket, hooks
 * run through `sh -c`, goose's stream piped into `beacon stream goose`. No part of any secret may
 * appear in `beacon events --json`, in any byte of the db, WAL, SHM or export files, in any byte
 * forwarded (OTLP/HTTP and syslog over TCP), or in anything the collector, the hooks or the stream
 * adapter print; every near miss must be stored verbatim.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { jsonl, runBeacon, startCollector, type RunningCollector } from '../helpers/daemon';
import { waitCaughtUp } from '../helpers/forward';
import { runHookAsync, type HookRun } from '../helpers/hooks';
import { startFaultProxy, startMockReceiver, type FaultProxy, type MockReceiver } from '../helpers/otlp-receiver';
import { traceRequest, type SpanSpec } from '../helpers/otlp-json';
import { BEACON_BIN, tempDir } from '../helpers/paths';
import { leaks, NEAR_MISSES, SECRET_SHAPES, STRUCTURED_SHAPES } from '../helpers/secret-corpus';

/** Texts joined into chunks small enough that no limit cuts them (a cut would hide a leak). */
function chunks(texts: string[], max = 1500): string[] {
  const out: string[] = [];
  let cur = '';
  for (const t of texts) {
    if (cur && Buffer.byteLength(cur + t) + 2 > max) {
      out.push(cur);
      cur = '';
    }
    cur = cur ? `${cur}\n\n${t}` : t;
  }
  if (cur) out.push(cur);
  return out;
}

const SECRET_CHUNKS = chunks(SECRET_SHAPES.map((s) => s.text));
const NEAR_CHUNKS = chunks(NEAR_MISSES.map((n) => n.text));
const ALL = [...SECRET_CHUNKS, ...NEAR_CHUNKS];
/** structured arguments: secrets under secret-named keys, beside the text */
const structured = (text: string, i: number) => ({
  command: text,
  env: { API_KEY: SECRET_SHAPES[i % SECRET_SHAPES.length]!.secrets[0]!.slice(0, 60), HOME: '/home/alice' },
  db: { password: SECRET_SHAPES[(i + 7) % SECRET_SHAPES.length]!.secrets[0]!.slice(0, 60) },
  // issue 22 item 9: secrets that only the structure names (a token as a key, `sig`, `pin`…); every
  // shape is placed in some chunk however many there are of each
  options: Object.fromEntries(STRUCTURED_SHAPES.flatMap((s, k) => (k % ALL.length === i % ALL.length ? [[`shape${k}`, s.value]] : []))),
});
const STRUCTURED_SECRETS = [
  ...ALL.map((_, i) => ({ name: `structured ${i}`, text: '', secrets: [structured('', i).env.API_KEY, structured('', i).db.password] })),
  ...STRUCTURED_SHAPES.map((s) => ({ name: s.name, text: '', secrets: s.secrets })),
];
/** issue 22 item 9: a token in the agent's version (OTLP resource) and in the working directory (hooks) */
const PAT_IN_IDS = `ghp_${'Zq7'.repeat(12)}`;

const hex = (n: number, i: number) => (i.toString(16).padStart(4, '0') + 'ab'.repeat(n)).slice(0, n * 2);

function otlpSpans(): { spans: SpanSpec[]; resource: Record<string, string> } {
  const spans: SpanSpec[] = [];
  const t0 = 1787301000000000000n;
  ALL.forEach((text, i) => {
    const traceId = hex(16, i + 1);
    const common = { 'session.id': `otlp-${i}`, 'gen_ai.conversation.id': `otlp-${i}`, 'custom.note': text };
    spans.push({
      name: 'stream_response_from_provider', traceId, spanId: hex(8, 2 * i + 1), start: t0 + BigInt(i) * 1_000_000n, end: t0 + BigInt(i) * 1_000_000n + 500n,
      attributes: {
        ...common, 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'anthropic', 'gen_ai.request.model': 'claude-sonnet-4-5',
        'gen_ai.usage.input_tokens': 100, 'gen_ai.usage.output_tokens': 20,
        'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'reasoning', content: text }, { type: 'text', content: text }], finish_reason: 'stop' }]),
      },
    });
    spans.push({
      name: 'dispatch_tool_call', traceId, spanId: hex(8, 2 * i + 2), start: t0 + BigInt(i) * 1_000_000n + 600n, end: t0 + BigInt(i) * 1_000_000n + 900n,
      attributes: {
        ...common, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'shell', 'gen_ai.tool.call.id': `call_otlp_${i}`,
        'gen_ai.tool.call.arguments': JSON.stringify(structured(text, i)),
        'gen_ai.tool.call.result': JSON.stringify({ content: [{ type: 'text', text }], structuredContent: { stdout: text, stderr: '', exit_code: 0 }, isError: false }),
      },
    });
  });
  // user.name is the resource attribute Beacon stores (as user.name)
  return { spans, resource: { 'service.name': 'goose', 'service.version': `1.47.0+${PAT_IN_IDS}`, 'user.name': `alice ${SECRET_SHAPES.find((x) => x.name === 'postgres url')!.text}` } };
}

function hookRuns(log: string): Promise<HookRun>[] {
  const runs: [string, unknown][] = [];
  ALL.forEach((text, i) => {
    const session = `hook-${i}`;
    const tool = (name: string, input: unknown, n: number) => ({ event: 'PostToolUse', session_id: session, matcher_context: name, tool_call_id: `call_hook_${i}_${n}`, tool_name: name, tool_input: input, working_dir: `/home/alice/${PAT_IN_IDS}/proj` });
    runs.push(['prompt-submit', { event: 'UserPromptSubmit', session_id: session, matcher_context: text, message: text }]);
    runs.push(['post-tool', tool('shell', structured(text, i), 1)]);
    runs.push(['post-tool', tool('edit', { path: '/home/alice/proj/.env', before: text, after: `${text}\n# edited` }, 2)]);
    runs.push(['post-tool', tool('write', { path: '/home/alice/proj/config.yaml', content: text }, 3)]);
    runs.push(['post-tool', tool('github__create_issue', { title: 'leak check', body: text, token: SECRET_SHAPES[(i + 3) % SECRET_SHAPES.length]!.secrets[0]!.slice(0, 60) }, 4)]);
    runs.push(['stop', { event: 'Stop', session_id: session, last_assistant_message: text }]);
  });
  // two at a time: the machine is shared
  const results: Promise<HookRun>[] = [];
  let chain: Promise<unknown> = Promise.resolve();
  for (let k = 0; k < runs.length; k += 2) {
    const pair = runs.slice(k, k + 2).map(([sub, p]) => chain.then(() => runHookAsync(log, sub, p)));
    results.push(...pair);
    chain = Promise.all(pair);
  }
  return results;
}

function streamInput(): string {
  const lines: string[] = [];
  ALL.forEach((text, i) => {
    const created = 1787301000 + i;
    lines.push(JSON.stringify({ type: 'message', message: { id: `msg_t${i}`, role: 'assistant', created, content: [{ type: 'thinking', thinking: text }], metadata: {} } }));
    lines.push(JSON.stringify({ type: 'message', message: { id: `msg_a${i}`, role: 'assistant', created, content: [{ type: 'text', text }], metadata: {} } }));
    lines.push(JSON.stringify({ type: 'message', message: { id: `msg_r${i}`, role: 'assistant', created, content: [{ type: 'toolRequest', id: `toolu_s${i}`, toolCall: { status: 'success', value: { name: 'shell', arguments: structured(text, i) } } }], metadata: {} } }));
    lines.push(JSON.stringify({ type: 'message', message: { id: `msg_u${i}`, role: 'user', created, content: [{ type: 'toolResponse', id: `toolu_s${i}`, toolResult: { status: 'success', value: { content: [{ type: 'text', text }] } } }], metadata: {} } }));
  });
  lines.push(JSON.stringify({ type: 'complete', total_tokens: 10 }));
  return `${lines.join('\n')}\n`;
}

/** A plain-TCP syslog receiver that keeps every byte it is sent (what a SIEM would store). */
async function startByteSink(): Promise<{ port: number; bytes: () => Buffer; close: () => Promise<void> }> {
  const got: Buffer[] = [];
  const server: Server = createServer((socket) => socket.on('data', (b: Buffer) => got.push(b)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, bytes: () => Buffer.concat(got), close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const everyShape = [...SECRET_SHAPES, ...STRUCTURED_SECRETS, { name: 'token in version and working directory', text: '', secrets: [PAT_IN_IDS] }];

describe(`redaction corpus (${SECRET_SHAPES.length} secret shapes, ${NEAR_MISSES.length} near misses) through OTLP, hooks and stream`, () => {
  let dir: string;
  let log: string;
  let exportPath: string;
  let c: RunningCollector;
  let mock: MockReceiver;
  let proxy: FaultProxy;
  let sink: Awaited<ReturnType<typeof startByteSink>>;
  const printed: string[] = [];

  before(async () => {
    dir = tempDir('corpus-');
    log = join(dir, 'events.db');
    exportPath = join(dir, 'logs', 'runtime.jsonl');
    const cfg = join(dir, 'config.json');
    mock = await startMockReceiver();
    proxy = await startFaultProxy(mock.url, []); // no faults: it keeps the bodies Beacon forwards
    sink = await startByteSink();
    writeFileSync(cfg, JSON.stringify({ collector: { exportPath, forward: [
      { name: 'gateway', type: 'otlp', endpoint: proxy.url, from: 'start', batchDelayMs: 100, timeoutMs: 2000 },
      { name: 'siem', type: 'syslog', address: `127.0.0.1:${sink.port}`, tls: false, from: 'start', batchDelayMs: 100, timeoutMs: 3000 },
    ] } }));
    c = await startCollector({ log, args: ['--config', cfg], env: { BEACON_LOG_LEVEL: 'debug' } });

    const { spans, resource } = otlpSpans();
    const r = await fetch(`${c.url}/v1/traces`, { method: 'POST', body: JSON.stringify(traceRequest(spans, resource)), headers: { 'content-type': 'application/json' } });
    assert.equal(r.status, 200, await r.text());

    for (const h of await Promise.all(hookRuns(log))) {
      assert.equal(h.status, 0, h.stderr);
      printed.push(h.stdout, h.stderr);
    }

    const s = spawnSync('sh', ['-c', `"${process.execPath}" "${BEACON_BIN}" stream goose --log '${log}'`], { input: streamInput(), encoding: 'utf8' });
    assert.equal(s.status, 0, s.stderr);
    printed.push(s.stdout, s.stderr);
    await waitCaughtUp(c, log, 'every stored event forwarded to both destinations');
  });

  after(async () => {
    await c?.stop();
    await proxy?.close();
    await mock?.close();
    await sink?.close();
  });

  const stored = () => runBeacon(['events', '--log', log, '--json', '--since', '3650d']).stdout;

  it('stores events from all three paths', () => {
    const evs = jsonl(stored());
    for (const m of ['otlp', 'hook', 'stream']) assert.ok(evs.filter((e) => e.harness.collection_method === m).length >= ALL.length, `${m} events stored`);
    assert.ok(evs.some((e) => e.file?.diff), 'edit/write diffs stored');
    assert.ok(evs.some((e) => e.reasoning?.text), 'reasoning stored');
    const otlp = evs.filter((e) => e.harness.collection_method === 'otlp');
    assert.ok(otlp.some((e) => e.raw?.attributes?.['custom.note']), 'OTLP span attributes stored in raw');
    assert.ok(otlp.some((e) => e.user?.name?.startsWith('alice DATABASE_URL=postgres://app:[REDACTED]@')), 'OTLP resource attribute stored, redacted');
    assert.ok(otlp.some((e) => e.gen_ai?.tool?.call?.arguments?.env && e.gen_ai.tool.call.result), 'OTLP tool arguments (parsed) and results stored');
    assert.ok(evs.some((e) => e.harness.collection_method === 'hook' && e.mcp && e.gen_ai?.tool?.call?.arguments?.body), 'MCP arguments stored');
  });

  it('no part of any secret in beacon events --json', () => {
    assert.deepEqual(leaks(stored(), everyShape), []);
  });

  it('no part of any secret in what the hooks, the stream adapter and the collector print', () => {
    assert.deepEqual(leaks(printed.join('\n'), everyShape), []);
    assert.deepEqual(leaks(c.lines.join('\n'), everyShape), []);
  });

  it('every near miss is stored verbatim, on every path', () => {
    const evs = jsonl(stored());
    for (const m of ['otlp', 'hook', 'stream']) {
      const text = JSON.stringify(evs.filter((e) => e.harness.collection_method === m));
      const missing = NEAR_MISSES.filter((n) => !text.includes(JSON.stringify(n.text).slice(1, -1))).map((n) => n.name);
      assert.deepEqual(missing, [], `${m}: near misses altered`);
    }
  });

  it('no part of any secret in any byte forwarded (OTLP/HTTP and syslog)', () => {
    const forwarded = { otlp: Buffer.concat(proxy.bodies), syslog: sink.bytes() };
    for (const [what, bytes] of Object.entries(forwarded)) {
      assert.ok(bytes.length > 0, `${what}: events were forwarded`);
      assert.deepEqual([...leaks(bytes.toString('latin1'), everyShape), ...leaks(bytes.toString('utf8'), everyShape)], [], what);
    }
  });

  it('no part of any secret in any byte of the db, WAL, SHM or export files', async () => {
    const files = () => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((f) => f.isFile()).map((f) => join(f.parentPath ?? (f as unknown as { path: string }).path, f.name));
    const scan = () => {
      const found: string[] = [];
      for (const f of files()) {
        if (f.endsWith('config.json')) continue;
        const bytes = readFileSync(f);
        for (const l of leaks(bytes.toString('latin1'), everyShape).concat(leaks(bytes.toString('utf8'), everyShape))) found.push(`${f}: ${l}`);
      }
      return found;
    };
    assert.ok(existsSync(`${log}-wal`), 'the WAL is there to scan while the collector runs');
    assert.deepEqual(scan(), []);
    await c.stop(); // drains the export
    assert.ok(existsSync(exportPath) && readFileSync(exportPath, 'utf8').length > 0, 'the export was written');
    assert.deepEqual(scan(), []);
  });
});
