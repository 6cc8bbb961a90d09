import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import { EventLog } from '../../src/store/log/event-log';
import { EventLogWriter } from '../../src/store/writer/event-log-writer';
import type { EventRow } from '../../src/store/log/row';
import { searchEvents } from '../../src/store/queries/event-search';
import { joinToolCalls, type StoredActivity } from '../../src/store/queries/tool-calls';
import { queryUsage } from '../../src/store/queries/usage';
import { buildCollectorHttp } from '../../src/collector/http';
import { runBeacon } from '../helpers/daemon';
import { comparable, rawUsage } from '../helpers/raw-usage';
import { tempDir } from '../helpers/paths';

const T0 = BigInt(Date.now() - 3_600_000) * 1_000_000n;
const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>javascript:alert(3)\u001b[31m';

function row(i: number, over: Partial<EventRow> & { rec?: Record<string, unknown> }): EventRow {
  const action = over.action ?? 'command.executed';
  const record = JSON.stringify({ timestamp: 'x', event: { action, id: `e${i}` }, harness: { name: 'goose', collection_method: over.method ?? 'hook' }, session: { id: over.sessionId ?? 's1' }, ...over.rec });
  return {
    id: `e${i}`, tsNs: T0 + BigInt(i) * 1_000_000_000n, harness: 'goose', method: 'hook', action, sessionId: 's1', traceId: null, spanId: null, parentSpanId: null, toolCallId: null,
    model: null, provider: null, inputTokens: null, outputTokens: null, cacheReadTokens: null, cacheCreationTokens: null, reasoningTokens: null, costUsd: null, dropIfChatChildStored: false,
    ...over, record,
  };
}

async function app(log: string, extra: { token?: string; allowedHosts?: string[] } = {}): Promise<{ app: FastifyInstance; writer: EventLogWriter }> {
  const writer = await EventLogWriter.start({ path: log, busyTimeoutMs: 1000 });
  const r = buildCollectorHttp({
    sink: writer, logger: pino({ level: 'silent' }), maxBodyBytes: 1 << 20, maxPendingExports: 16, maxItemsPerExport: 10_000, maxBytesInFlight: 64 << 20, allowedHosts: extra.allowedHosts,
    dashboard: { logPath: log, token: extra.token, retention: { maxAgeDays: 90, maxBytes: 0 }, env: { HOME: tempDir() } },
  });
  return { app: r.app, writer };
}

describe('dashboard routes (fastify inject)', () => {
  const log = join(tempDir('dash-'), 'events.db');
  let server: FastifyInstance;
  let writer: EventLogWriter;
  before(async () => {
    const l = EventLog.open(log);
    const rows: EventRow[] = [];
    for (let i = 0; i < 120; i++) rows.push(row(i, { rec: { command: { command: `make step${i}`, exit_code: i === 7 ? 2 : 0 } } }));
    rows.push(row(200, { action: 'prompt.submitted', rec: { prompt: { text: HOSTILE }, repository: `/home/a/${HOSTILE}` } }));
    rows.push(row(201, { action: 'tool.invoked', toolCallId: 'c1', rec: { command: { command: HOSTILE } } }));
    rows.push(row(202, { action: 'approval.denied', toolCallId: 'c1', rec: { policy: { decision: 'deny', reason: HOSTILE } } }));
    rows.push(row(203, { action: 'file.modified', method: 'otlp', sessionId: 's2', rec: { file: { path: `a/${HOSTILE}`, diff: `--- a\n+++ b\n@@ -1 +1 @@\n-x\n+${HOSTILE}\n` } } }));
    rows.push(row(204, { action: 'model.invoked', method: 'otlp', sessionId: 's2', model: 'gpt-5.4', provider: 'openai', inputTokens: 1000, outputTokens: 10, rec: { model: 'gpt-5.4' } }));
    // goose's stream-json `complete` for s2: 1,510 tokens, 500 more than its one recorded call (compaction has no span)
    rows.push(row(206, { action: 'usage.reported', method: 'stream', sessionId: 's2', rec: { gen_ai: { usage: { input_tokens: 1500, output_tokens: 10 } } } }));
    rows.push(row(205, { action: 'model.invoked', method: 'otlp', harness: 'claude-code', sessionId: 's3', model: 'claude-sonnet-4-5', provider: 'anthropic', inputTokens: 1200, outputTokens: 40, costUsd: 0.0044775, rec: { model: 'claude-sonnet-4-5', harness: { name: 'claude-code', collection_method: 'otlp' } } }));
    l.append(rows);
    l.close();
    ({ app: server, writer } = await app(log));
  });
  after(async () => {
    await server.close();
    await writer.close();
  });

  const get = (url: string, headers: Record<string, string> = {}) => server.inject({ method: 'GET', url, headers: { host: '127.0.0.1:4318', accept: 'text/html', ...headers } });

  it('a foreign Host is refused on every route — OTLP, health, dashboard — with a 403 naming the setting', async () => {
    for (const [method, url] of [['POST', '/v1/traces'], ['POST', '/v1/logs'], ['GET', '/health'], ['GET', '/'], ['GET', '/events'], ['GET', '/assets/app.js']] as const) {
      const r = await server.inject({ method, url, headers: { host: 'evil.example:4318', 'content-type': 'application/json' }, payload: method === 'POST' ? '{}' : undefined });
      assert.equal(r.statusCode, 403, `${method} ${url}`);
      assert.match(r.body, /allowedHosts/);
    }
    // A rebinding page posting spans stores nothing.
    const before = EventLog.open(log, { readonly: true });
    const n = before.count();
    const spans = { resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', name: 'chat', startTimeUnixNano: '1', endTimeUnixNano: '2', attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'chat' } }] }] }] }] };
    const r = await server.inject({ method: 'POST', url: '/v1/traces', headers: { host: 'evil.example', 'content-type': 'application/json' }, payload: JSON.stringify(spans) });
    assert.equal(r.statusCode, 403);
    assert.equal(before.count(), n);
    before.close();
    assert.equal(JSON.parse((await get('/health')).body).host_refused, 7, 'refusals are counted in /health');
  });

  it('loopback names and configured hosts are accepted', async () => {
    for (const host of ['127.0.0.1:4318', 'localhost:4318', 'LOCALHOST', '[::1]:4318', 'beacon.localhost:4318', '127.0.0.2']) {
      assert.equal((await get('/health', { host })).statusCode, 200, host);
    }
    const other = await app(join(tempDir('dash-'), 'events.db'), { allowedHosts: ['devbox.lan'] });
    assert.equal((await other.app.inject({ url: '/health', headers: { host: 'devbox.lan:4318' } })).statusCode, 200);
    assert.equal((await other.app.inject({ url: '/health', headers: { host: 'devbox.lan.evil.example' } })).statusCode, 403);
    await other.app.close();
    await other.writer.close();
  });

  it('every page: 200, strict CSP without upgrade-insecure-requests, no CORS, nosniff, no inline script', async () => {
    for (const url of ['/', '/sessions', '/session?id=s1', '/events', '/tokens', '/assets/app.js', '/assets/app.css', '/api/changes?since=0']) {
      const r = await get(url, { origin: 'http://evil.example' });
      assert.equal(r.statusCode, 200, url);
      const csp = String(r.headers['content-security-policy']);
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.doesNotMatch(csp, /upgrade-insecure-requests|unsafe-inline|unsafe-eval|https?:/);
      assert.equal(r.headers['access-control-allow-origin'], undefined);
      assert.equal(r.headers['x-content-type-options'], 'nosniff');
      if (String(r.headers['content-type']).startsWith('text/html')) {
        assert.deepEqual([...r.body.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]), ['<script type="module" src="/assets/app.js">'], url);
        const tags = [...r.body.matchAll(/<[a-z][^>]*>/gi)].map((m) => m[0]);
        assert.deepEqual(tags.filter((t) => /\s(style|on[a-z]+)=/i.test(t)), [], url);
      }
    }
  });

  it('recorded strings are escaped: markup inert, terminal escapes visible', async () => {
    for (const url of ['/session?id=s1', '/session?id=s2', '/events', '/sessions?since=all', '/events?q=alert']) {
      const r = await get(url);
      assert.doesNotMatch(r.body, /<script>alert|<img src=x|\u001b/, url);
      assert.match(r.body, /&lt;script&gt;alert\(1\)&lt;\/script&gt;&quot;&gt;&lt;img src=x onerror=alert\(2\)&gt;javascript:alert\(3\)␛\[31m/, url);
    }
  });

  it('the timeline joins a call: the pre-tool observation and the policy verdict in one denied row', async () => {
    const r = await get('/session?id=s1');
    assert.equal([...r.body.matchAll(/data-call-id="c1"/g)].length, 1);
    assert.match(r.body, /Denied by policy/);
  });

  it('events: newest first, 50 a page, the cursor continues without overlap or gap', async () => {
    const seen: string[] = [];
    let url = '/events?action=command.executed';
    for (let page = 0; page < 5 && url; page++) {
      const r = await get(url);
      seen.push(...[...r.body.matchAll(/<code>make step(\d+)<\/code>/g)].map((m) => m[1]!));
      const next = /href="(\/events\?[^"]*before=[^"]*)" rel="next"/.exec(r.body);
      url = next ? next[1]!.replace(/&amp;/g, '&') : '';
    }
    assert.deepEqual(seen, Array.from({ length: 120 }, (_, i) => String(119 - i)));
  });

  it('filters from the URL: action, text, collection path, session, sessions by repository and model', async () => {
    const denied = await get('/events?action=approval.denied');
    assert.equal([...denied.body.matchAll(/<tr data-seq=/g)].length, 1);
    const q = await get('/events?q=STEP11');
    assert.deepEqual([...q.body.matchAll(/<code>make (step\d+)<\/code>/g)].map((m) => m[1]), ['step119', 'step118', 'step117', 'step116', 'step115', 'step114', 'step113', 'step112', 'step111', 'step110', 'step11']);
    const otlp = await get('/events?method=otlp');
    assert.equal([...otlp.body.matchAll(/<tr data-seq=/g)].length, 3, "s2's two records and claude-code's model call");
    const s2 = await get('/events?session=s2');
    assert.equal([...s2.body.matchAll(/<tr data-seq=/g)].length, 3, 'its two records and its stream usage report');
    const byModel = await get('/sessions?since=all&model=gpt-5.4');
    assert.deepEqual([...byModel.body.matchAll(/<tr data-session="([^"]+)"/g)].map((m) => m[1]), ['s2']);
    const byRepo = await get(`/sessions?since=all&repository=${encodeURIComponent(`/home/a/${HOSTILE}`)}`);
    assert.deepEqual([...byRepo.body.matchAll(/<tr data-session="([^"]+)"/g)].map((m) => m[1]), ['s1']);
    // issue 33: the Sessions page's agent filter (aliases as on the CLI), and every agent offered, Cline and Pi too
    const all = await get('/sessions?since=all');
    for (const agent of ['goose', 'claude-code', 'cline', 'pi']) assert.match(all.body, new RegExp(`<option value="${agent}">${agent}</option>`));
    const everyRow = [...all.body.matchAll(/<tr data-session="([^"]+)"/g)].map((m) => m[1]);
    const byAgent = await get('/sessions?since=all&harness=claude');
    const claudeRows = [...byAgent.body.matchAll(/<tr data-session="([^"]+)"/g)].map((m) => m[1]);
    assert.ok(claudeRows.length > 0 && claudeRows.length < everyRow.length, `${claudeRows.length} of ${everyRow.length}`);
    assert.match(byAgent.body, /<option value="claude-code" selected>/);
    assert.equal((await get('/sessions?since=all&harness=goose')).body.match(/<tr data-session="/g)?.length, everyRow.length - claudeRows.length);
    const bad = await get('/events?since=last%20tuesday'); // yesterday is a time word (issue 24 item 8)
    assert.equal(bad.statusCode, 400);
  });

  it("a session's page shows goose's own total beside its per-call sums and names the difference (issue 23 item 6)", async () => {
    const r = await get('/session?id=s2');
    assert.equal(r.statusCode, 200);
    assert.match(r.body, /<dd id="session-total">[^<]*reported; difference [^<]*: the difference is in calls without a span, e\.g\. compaction<\/dd>/);
    assert.doesNotMatch((await get('/session?id=s1')).body, /id="session-total"/, 'no stream report, no line');
  });

  it('the agent everywhere: an events filter and column, tokens filtered and grouped by agent', async () => {
    const claude = await get('/events?harness=claude-code');
    assert.equal([...claude.body.matchAll(/<tr data-seq=/g)].length, 1);
    assert.match(claude.body, /<option value="claude-code" selected>claude-code<\/option>/);
    const all = await get('/events?action=model.invoked');
    assert.deepEqual([...all.body.matchAll(/<td><a href="\/events\?[^"]*harness=[^"]*">([^<]+)<\/a><\/td>/g)].map((m) => m[1]), ['claude-code', 'goose']);
    const tokens = await get('/tokens?since=all');
    const byAgent = /<table class="usage" data-by="By agent">(.*?)<\/table>/s.exec(tokens.body)?.[1] ?? '';
    assert.match(byAgent, /claude-code/);
    assert.match(byAgent, /goose/);
    const onlyClaude = await get('/tokens?since=all&harness=claude-code');
    assert.match(onlyClaude.body, /<div class="big" id="total-tokens">1\.24 k<\/div>/);
    assert.doesNotMatch(/<table class="usage" data-by="By agent">(.*?)<\/table>/s.exec(onlyClaude.body)?.[1] ?? '', /goose/);
  });

  it('the JSONL download holds exactly the filtered events, as runtime.jsonl lines', async () => {
    const r = await get('/events.jsonl?action=command.executed&q=step1');
    assert.match(String(r.headers['content-disposition']), /attachment/);
    const lines = r.body.trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(lines.length, 31); // step1, step10–19, step100–119
    assert.ok(lines.every((l) => typeof l.sequence === 'number' && l.event.action === 'command.executed'));
  });

  it('read-only: other methods get 405; an unknown page is a 404 page with the same headers', async () => {
    for (const method of ['POST', 'PUT', 'DELETE'] as const) assert.equal((await server.inject({ method, url: '/sessions', headers: { host: 'localhost' } })).statusCode, 405);
    const r = await get('/nope');
    assert.equal(r.statusCode, 404);
    assert.match(String(r.headers['content-security-policy']), /default-src 'none'/);
  });

  // Issue 25: without the query thread, the pages (and their queries) ran on this thread, the one
  // that decodes exports, and an idle collector loaded them and Fastify's schema compilers.
  it('pages render on the query thread: this thread never loads a page, the price catalog or ajv; every page of pages.ts is routed', async () => {
    for (const path of ['/', '/sessions', '/events', '/tokens', '/session?id=s1']) assert.equal((await server.inject({ method: 'GET', url: path, headers: { host: '127.0.0.1' } })).statusCode, 200, path);
    const loaded = Object.keys(require.cache);
    for (const mod of ['/dashboard/pages.js', '/dashboard/pages/tokens.js', '/pricing/catalog.js', '/node_modules/ajv/']) assert.ok(!loaded.some((k) => k.includes(mod)), `${mod} was loaded on the main thread`);
    const { PAGES } = require('../../src/dashboard/pages') as typeof import('../../src/dashboard/pages');
    const { PAGE_PATHS } = require('../../src/dashboard/page-routes') as typeof import('../../src/dashboard/page-routes');
    assert.deepEqual([...PAGE_PATHS].sort(), PAGES.map((p) => p.path).sort(), 'page-routes.ts must list every page of pages.ts');
  });

  it('a typed error from the query thread keeps its status (a bad download window is a 400), and the change poll counts there', async () => {
    const bad = await server.inject({ method: 'GET', url: '/events.jsonl?since=yesterday-ish', headers: { host: '127.0.0.1' } });
    assert.equal(bad.statusCode, 400, bad.body);
    const changes = await server.inject({ method: 'GET', url: '/api/changes?since=0', headers: { host: '127.0.0.1' } });
    assert.equal(changes.statusCode, 200);
    assert.ok((changes.json() as { newEvents: number }).newEvents > 0);
  });

  // issue 22 item 16: the cookie was the token itself (sent to every port of 127.0.0.1); now it names a session
  it('with a token: refused without it, ?token= once sets an HttpOnly SameSite=Strict session cookie that is not the token', async () => {
    const t = await app(log, { token: 'sekrit-123' });
    const h = { host: 'localhost:4318' };
    assert.equal((await t.app.inject({ url: '/sessions', headers: h })).statusCode, 403);
    assert.equal((await t.app.inject({ url: '/sessions?token=wrong', headers: h })).statusCode, 403);
    const r = await t.app.inject({ url: '/sessions?since=7d&token=sekrit-123', headers: h });
    assert.equal(r.statusCode, 303);
    assert.equal(r.headers.location, '/sessions?since=7d');
    const m = /^beacon_dashboard=([\w.-]{40,}); Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/.exec(String(r.headers['set-cookie']));
    assert.ok(m, String(r.headers['set-cookie']));
    assert.ok(!m[1]!.includes('sekrit'));
    assert.equal((await t.app.inject({ url: '/sessions', headers: { ...h, cookie: 'beacon_dashboard=sekrit-123' } })).statusCode, 403, 'the token is no cookie');
    // a page load replaces the session id; API calls keep it
    const api = await t.app.inject({ url: '/api/changes', headers: { ...h, cookie: `beacon_dashboard=${m[1]}` } });
    assert.equal(api.statusCode, 200);
    assert.equal(api.headers['set-cookie'], undefined);
    const page = await t.app.inject({ url: '/sessions', headers: { ...h, cookie: `beacon_dashboard=${m[1]}` } });
    assert.equal(page.statusCode, 200);
    const next = /^beacon_dashboard=([\w.-]+);/.exec(String(page.headers['set-cookie']))![1]!;
    assert.notEqual(next, m[1]);
    assert.equal((await t.app.inject({ url: '/sessions', headers: { ...h, cookie: `beacon_dashboard=${next}` } })).statusCode, 200);
    assert.equal((await t.app.inject({ url: '/api/changes', headers: { ...h, authorization: 'Bearer sekrit-123' } })).statusCode, 200);
    assert.equal((await t.app.inject({ url: '/api/changes', headers: h })).statusCode, 403);
    await t.app.close();
    await t.writer.close();
  });

  it('without its token a page is a page that says how to open the dashboard, not an OTLP Status body (issue 33)', async () => {
    const t = await app(log, { token: 'sekrit-123' });
    const h = { host: 'localhost:4318', accept: 'text/html' };
    const page = await t.app.inject({ url: '/sessions?x=<script>', headers: h });
    assert.equal(page.statusCode, 403);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(page.body, /beacon dashboard --open/);
    assert.doesNotMatch(page.body, /"code":|<script>/);
    assert.equal(page.headers['content-security-policy'] !== undefined, true, 'the refusal carries the security headers');
    // the API and the download stay machine-readable
    const api = await t.app.inject({ url: '/api/changes', headers: h });
    assert.equal(api.statusCode, 403);
    assert.doesNotMatch(String(api.headers['content-type']), /^text\/html/);
    await t.app.close();
    await t.writer.close();
  });

  it('a login code: given for the token (never to a page), posted to /login by a file page (Origin: null), good once', async () => {
    const t = await app(log, { token: 'sekrit-123' });
    const h = { host: 'localhost:4318' };
    const bearer = { ...h, authorization: 'Bearer sekrit-123' };
    assert.equal((await t.app.inject({ method: 'POST', url: '/api/login-code', headers: h })).statusCode, 403);
    assert.equal((await t.app.inject({ method: 'POST', url: '/api/login-code', headers: { ...bearer, origin: 'http://localhost:4318' } })).statusCode, 403);
    const r = await t.app.inject({ method: 'POST', url: '/api/login-code', headers: bearer });
    assert.equal(r.statusCode, 200);
    const { code, expiresInSeconds } = r.json() as { code: string; expiresInSeconds: number };
    assert.equal(expiresInSeconds, 60);
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const state = async () => (await t.app.inject({ method: 'POST', url: '/api/login-code/state', headers: { ...bearer, ...form }, payload: `code=${code}` })).json().state;
    assert.equal(await state(), 'pending');
    assert.equal((await t.app.inject({ method: 'POST', url: '/api/login-code/state', headers: { ...h, ...form }, payload: `code=${code}` })).statusCode, 403, 'the state is told to the token only');

    assert.equal((await t.app.inject({ url: `/?code=${code}`, headers: h })).statusCode, 403, 'a code in a URL logs nobody in');
    const post = (headers: Record<string, string>) => t.app.inject({ method: 'POST', url: '/login', headers: { ...h, ...form, ...headers }, payload: `code=${code}` });
    assert.equal((await post({ origin: 'http://evil.example' })).statusCode, 403, 'a web page never posts a login');
    assert.equal((await post({ origin: 'http://127.0.0.1:9999' })).statusCode, 403, 'nor another port\'s page');
    assert.equal((await t.app.inject({ method: 'POST', url: '/login', headers: { host: 'evil.example', ...form, origin: 'null' }, payload: `code=${code}` })).statusCode, 403, 'the Host guard first');
    assert.equal(await state(), 'pending', 'the refused posts spent nothing');
    const first = await post({ origin: 'null' });
    assert.equal(first.statusCode, 200);
    assert.match(first.body, /<meta http-equiv="refresh" content="0; url=\/">/);
    assert.equal(first.headers['content-security-policy'] !== undefined, true);
    const id = /^beacon_dashboard=([\w.-]{40,}); Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/.exec(String(first.headers['set-cookie']))?.[1];
    assert.ok(id, String(first.headers['set-cookie']));
    assert.equal((await t.app.inject({ url: '/sessions', headers: { ...h, cookie: `beacon_dashboard=${id}` } })).statusCode, 200);
    assert.equal(await state(), 'gone');
    assert.equal((await post({ origin: 'null' })).statusCode, 403, 'used once');
    await t.app.close();
    await t.writer.close();
  });

  // issue 29 item 8: a copier's replay rotated the id and kept the session while the owner got 403
  it('a replaced session id that comes back after the grace ends the session for every holder', async () => {
    const t = await app(log, { token: 'sekrit-123' });
    const h = { host: 'localhost:4318' };
    const login = await t.app.inject({ url: '/?token=sekrit-123', headers: h });
    const id = /^beacon_dashboard=([\w.-]+);/.exec(String(login.headers['set-cookie']))![1]!;
    const page = (cookie: string, url = '/sessions') => t.app.inject({ url, headers: { ...h, cookie: `beacon_dashboard=${cookie}` } });
    const copy = await page(id);
    const next = /^beacon_dashboard=([\w.-]+);/.exec(String(copy.headers['set-cookie']))![1]!;
    // inside the grace the replaced id is honoured (a second tab, a request in flight), and handed nothing
    const tab = await page(id, '/api/changes');
    assert.equal(tab.statusCode, 200);
    assert.equal(tab.headers['set-cookie'], undefined);
    await new Promise((r) => setTimeout(r, 5_100));
    const back = await page(id);
    assert.equal(back.statusCode, 403);
    assert.match(back.body, /session was ended because a replaced cookie of it came back/);
    assert.equal((await page(next)).statusCode, 403, 'the other holder is out too');
    assert.equal((await page(next, '/api/changes')).statusCode, 403);
    await t.app.close();
    await t.writer.close();
  });
  // review of issue 29 item 8: a copier polling inside the grace was handed each new id and rode the session unseen
  it('a copy replayed inside the grace after every page load of the owner never learns the owner\'s next id', async () => {
    const t = await app(log, { token: 'sekrit-123' });
    const h = { host: 'localhost:4318' };
    const cookieOf = (r: { headers: Record<string, unknown> }) => /^beacon_dashboard=([\w.-]+);/.exec(String(r.headers['set-cookie'] ?? ''))?.[1];
    const page = (cookie: string, url = '/sessions') => t.app.inject({ url, headers: { ...h, cookie: `beacon_dashboard=${cookie}` } });
    let owner = cookieOf(await t.app.inject({ url: '/?token=sekrit-123', headers: h }))!;
    let copy = owner; // captured once, by a server on another port of 127.0.0.1
    for (let i = 0; i < 3; i++) {
      owner = cookieOf(await page(owner))!; // the owner loads a page: the id is replaced
      const poll = await page(copy, '/api/changes'); // the copier polls at once, inside the grace
      assert.equal(poll.statusCode, 200, 'inside the grace the replaced id still answers');
      copy = cookieOf(poll) ?? copy; // whatever it is handed, it keeps
    }
    assert.notEqual(copy, owner, 'the copier never held the owner\'s current id');
    await new Promise((r) => setTimeout(r, 5_100));
    assert.equal((await page(copy, '/api/changes')).statusCode, 403, 'past the grace the copy ends the session');
    assert.equal((await page(owner)).statusCode, 403, 'and the owner is told to sign in again');
    await t.app.close();
    await t.writer.close();
  });
});

describe('activity query layer', () => {
  const ev = (seq: number, method: string, action: string, callId: string | null): StoredActivity => ({ seq: BigInt(seq), tsNs: BigInt(seq), method, action, sessionId: 's', harness: 'goose', toolCallId: callId, record: '{}' });

  it('joins observations by call id into one row at the first, naming who saw it, and flags a pre-tool with no result', () => {
    const items = joinToolCalls([
      ev(1, 'hook', 'prompt.submitted', null), ev(2, 'hook', 'tool.invoked', 'a'), ev(3, 'otlp', 'command.executed', 'a'), ev(4, 'hook', 'command.executed', 'a'),
      ev(5, 'hook', 'tool.invoked', 'b'), ev(6, 'stream', 'file.read', 'c'),
    ]);
    assert.deepEqual(items.map((i) => (i.kind === 'tool_call' ? `${i.callId}:${i.seenBy.join('+')}:${i.unfinished}` : i.event.action)), [
      'prompt.submitted', 'a:pre-tool+otlp+post-tool:false', 'b:pre-tool:true', 'c:stream:false',
    ]);
  });

  it('a search under a row budget stops, says so, and continues from where it stopped', () => {
    const l = EventLog.open(join(tempDir('dash-'), 'events.db'));
    l.append(Array.from({ length: 300 }, (_, i) => row(i, { action: i === 5 ? 'approval.denied' : 'command.executed' })));
    const first = searchEvents(l.db, { action: 'approval.denied' }, { budget: 100 });
    assert.deepEqual([first.events.length, first.scanned, first.budgetExhausted], [0, 100, true]);
    const rest = searchEvents(l.db, { action: 'approval.denied' }, { before: first.next, budget: 1000 });
    assert.deepEqual(rest.events.map((e) => e.seq), [6n]);
    assert.equal(rest.next, undefined);
    l.close();
  });

  it('a search by model (exact or prefix) finds the model\'s events (the page\'s model field)', () => {
    const l = EventLog.open(join(tempDir('dash-'), 'events.db'));
    l.append([row(1, { action: 'model.invoked', method: 'otlp', model: 'gpt-5.4' }), row(2, { action: 'model.invoked', method: 'otlp', model: 'claude-sonnet-4-5' }), row(3, {})]);
    assert.deepEqual(searchEvents(l.db, { model: 'gpt' }).events.map((e) => e.seq), [1n]);
    assert.deepEqual(searchEvents(l.db, { model: 'claude-sonnet-4-5' }).events.map((e) => e.seq), [2n]);
    l.close();
  });
});

describe('usage rollup', () => {
  it('the dashboard\'s reader (a read-only connection, as the query thread opens) answers the exact aggregate, after appends and after retention removed the oldest events', () => {
    const l = EventLog.open(join(tempDir('dash-'), 'events.db'));
    const HOUR = 3_600_000_000_000n;
    const call = (i: number) => row(1000 + i, {
      action: 'model.invoked', method: 'otlp', sessionId: `s${i % 3}`, model: ['gpt-5.4', 'claude-sonnet-4-5-20250929'][i % 2]!, provider: ['openai', 'anthropic'][i % 2]!,
      tsNs: T0 - 48n * HOUR + BigInt(i) * HOUR / 3n, inputTokens: 100 + i, outputTokens: 10, cacheReadTokens: i % 2 ? 250_000 : 5, cacheCreationTokens: 1, costUsd: i % 5 === 0 ? 0.01 : null,
    });
    l.append(Array.from({ length: 60 }, (_, i) => call(i)));
    const reader = EventLog.open(l.path, { readonly: true });
    const same = (what: string) => {
      for (const by of ['session', 'model', 'provider', 'day', 'hour'] as const) {
        for (const f of [{}, { sinceNs: (T0 / HOUR - 24n) * HOUR }, { sinceNs: T0 - 24n * HOUR + 7n } /* inside a quarter hour: exact too */, { sessionId: 's1' }, { model: 'gpt' }]) {
          assert.deepEqual(comparable(queryUsage(reader.db, f, by)), rawUsage(l.db, f, by), `${what} ${by} ${JSON.stringify(f, (_k, v) => (typeof v === 'bigint' ? String(v) : v))}`);
        }
      }
    };
    same('built');
    l.append(Array.from({ length: 30 }, (_, i) => call(60 + i)));
    same('after appends');
    l.db.prepare('DELETE FROM events WHERE seq <= 10').run();
    same('after retention');
    reader.close();
    l.close();
  });
});

describe('beacon dashboard', () => {
  it('says when no collector answers there, and prints no URL then', () => {
    const r = runBeacon(['dashboard', '--port', '1', '--config', '/dev/null/none'], { HOME: tempDir() });
    assert.notEqual(r.status, 0); // a named config file that cannot be read fails, naming it
    assert.match(r.stderr, /\/dev\/null\/none/);
    const s = runBeacon(['dashboard', '--port', '9'], { HOME: tempDir(), BEACON_DASHBOARD_TOKEN: 'a b' });
    assert.equal(s.stdout, '', 'no URL is printed that does not work (issue 24 item 10)');
    assert.match(s.stderr, /no collector answers at http:\/\/127\.0\.0\.1:9/);
    assert.equal(s.status, 1);
  });
});
