/**
 * The dashboard over a log of one million events shaped like goose sessions (2,000 sessions of 500
 * events over the last 30 days: prompts, model calls over OTLP, tool calls seen by the pre-tool hook,
 * the post-tool hook and an OTLP span, edits with diffs, failures, denials). Each page is rendered
 * through the real routes (fastify inject: server time, no socket), and weighed as a browser gets it
 * (HTML + the client module + the stylesheet, gzipped). The baseline, measured in the same run, is
 * one full read of the log's records: what a page must never cost.
 */
import { existsSync, statSync, unlinkSync } from 'node:fs';
import { benchCacheDir } from './fixture';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import pino from 'pino';
import { EventLog } from '../src/store/log/event-log';
import { EventLogWriter } from '../src/store/writer/event-log-writer';
import type { EventRow } from '../src/store/log/row';
import { buildCollectorHttp } from '../src/collector/http';
import { tempDir } from '../test/helpers/paths';
import { median } from './measure';

const EVENTS = 1_000_000;
const SESSIONS = 2000;
const MODELS: [string, string][] = [['claude-sonnet-4-5-20250929', 'anthropic'], ['gpt-5.4', 'openai'], ['gemini-2.5-pro', 'google'], ['my-local-model', 'ollama']];
const DAY_MS = 86_400_000;

/** A goose-shaped log of `events` events in `sessions` sessions over the 30 days before `nowMs` (also the footprint bench's 40k-event log). */
export function buildLog(path: string, nowMs: number, events = EVENTS, sessions = SESSIONS): void {
  const PER_SESSION = events / sessions;
  const log = EventLog.open(path);
  const t0 = nowMs - 30 * DAY_MS;
  const span = (30 * DAY_MS) / sessions;
  let rows: EventRow[] = [];
  let n = 0;
  const push = (sid: string, tsMs: number, method: string, action: string, rec: Record<string, unknown>, extra: Partial<EventRow> = {}) => {
    const id = `d${n++}`;
    const record = JSON.stringify({
      timestamp: new Date(tsMs).toISOString(), vendor: 'beacon', product: 'endpoint-agent', schema_version: '1.0', event: { kind: 'agent_runtime', action, id },
      severity: 'info', endpoint: { hostname: 'devbox', os: 'linux' }, harness: { name: 'goose', collection_method: method }, session: { id: sid, working_directory: '/home/alice/proj' }, ...rec,
    });
    rows.push({
      id, tsNs: BigInt(Math.round(tsMs)) * 1_000_000n, harness: 'goose', method, action, sessionId: sid, traceId: null, spanId: null, parentSpanId: null, toolCallId: null,
      model: null, provider: null, inputTokens: null, outputTokens: null, cacheReadTokens: null, cacheCreationTokens: null, reasoningTokens: null, costUsd: null, record, dropIfChatChildStored: false, ...extra,
    });
    if (rows.length >= 10_000) {
      log.append(rows);
      rows = [];
    }
  };
  for (let s = 0; s < sessions; s++) {
    const sid = `2026${String(s).padStart(6, '0')}`;
    const repo = `/home/alice/proj${s % 25}`;
    let t = t0 + s * span;
    const [model, provider] = MODELS[s % 4]!;
    push(sid, t, 'hook', 'session.started', { repository: repo, branch: 'main', message: 'Agent session started' });
    let k = 1;
    let call = 0;
    while (k < PER_SESSION) {
      t += 1500;
      push(sid, t, 'hook', 'prompt.submitted', { repository: repo, prompt: { text: `please fix the failing test number ${k} in the parser module` } });
      push(sid, t + 100, 'otlp', 'model.invoked', { model, gen_ai: { usage: { input_tokens: 1200, output_tokens: 300 } } }, { model, provider, inputTokens: 1200, outputTokens: 300, cacheReadTokens: 20000 + (k % 5000), cacheCreationTokens: 800 });
      k += 2;
      for (let c = 0; c < 3 && k < PER_SESSION; c++) {
        const id = `toolu_${s}_${call++}`;
        const edit = c === 1;
        const fail = c === 2 && call % 7 === 0;
        const deny = c === 2 && call % 11 === 0;
        const rec = edit
          ? { file: { path: `src/module${call % 40}.rs`, operation: 'modify', diff: `--- a/src/m.rs\n+++ b/src/m.rs\n@@ -1,3 +1,3 @@\n fn a() {}\n-fn old() {}\n+fn new() {}\n fn b() {}\n` }, gen_ai: { tool: { name: 'edit', call: { id } } } }
          : { command: { command: `cargo test -p parser --quiet ${call}` }, gen_ai: { tool: { name: 'shell', call: { id } } } };
        push(sid, t + 200, 'hook', 'tool.invoked', { ...rec, repository: repo }, { toolCallId: id });
        k++;
        if (deny) {
          push(sid, t + 210, 'hook', 'approval.denied', { ...rec, approval: { decision: 'deny', reason: 'destructive' }, policy: { id: 'R-7', decision: 'deny' } }, { toolCallId: id });
          k++;
          continue;
        }
        if (k < PER_SESSION) push(sid, t + 600, 'hook', edit ? 'file.modified' : 'command.executed', rec, { toolCallId: id }), k++;
        if (k < PER_SESSION) push(sid, t + 200, 'otlp', edit ? 'file.modified' : 'command.executed', edit ? rec : { ...rec, command: { ...(rec as { command: object }).command, exit_code: fail ? 1 : 0 } }, { toolCallId: id }), k++;
        t += 800;
      }
    }
  }
  if (rows.length) log.append(rows);
  log.close();
}


export async function benchDashboard(): Promise<Record<string, number>> {
  const path = join(benchCacheDir(), '1m-dashboard-v1.db');
  // The windows (today, 7 and 30 days) are relative to now: a log built more than a day ago is rebuilt.
  if (existsSync(path) && Date.now() - statSync(path).mtimeMs > DAY_MS) for (const f of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(f)) unlinkSync(f);
  if (!existsSync(path)) {
    const t = performance.now();
    buildLog(path, Date.now());
    console.log(`built a ${EVENTS.toLocaleString()}-event goose-shaped log in ${((performance.now() - t) / 1000).toFixed(1)} s (${path}, reused for a day)`);
  }
  const baseline = (() => {
    const log = EventLog.open(path, { readonly: true });
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      log.db.prepare('SELECT sum(length(record)) FROM events').get();
      times.push(performance.now() - t);
    }
    log.close();
    return median(times);
  })();

  const writer = await EventLogWriter.start({ path, busyTimeoutMs: 5000 });
  const { app } = buildCollectorHttp({ sink: writer, logger: pino({ level: 'silent' }), maxBodyBytes: 1 << 20, maxPendingExports: 16, maxItemsPerExport: 10_000, maxBytesInFlight: 64 << 20, dashboard: { logPath: path, retention: { maxAgeDays: 90, maxBytes: 0 }, env: { HOME: tempDir() } } });
  const get = (url: string) => app.inject({ method: 'GET', url, headers: { host: '127.0.0.1', accept: 'text/html' } });
  const big = `2026${String(SESSIONS - 3).padStart(6, '0')}`;
  const pages: [string, string][] = [
    ['overview', '/'],
    ['sessions', '/sessions'],
    ['sessions 30d by tokens', '/sessions?since=30d&sort=tokens'],
    ['sessions by repository', '/sessions?since=30d&repository=/home/alice/proj3'],
    ['timeline (500 events)', `/session?id=${big}`],
    ['events', '/events'],
    ['events action filter', '/events?action=approval.denied'],
    ['events text search', '/events?q=module17.rs'],
    ['events rare text (budget)', '/events?q=no-such-text'],
    ['tokens 30d by day', '/tokens'],
    ['tokens 7d by hour', '/tokens?since=7d&bucket=hour'],
  ];
  const assets = (await get('/assets/app.js')).rawPayload.length + (await get('/assets/app.css')).rawPayload.length;
  const assetsGz = gzipSync((await get('/assets/app.js')).rawPayload).length + gzipSync((await get('/assets/app.css')).rawPayload).length;
  const results: Record<string, number> = { dashboardFullScanMs: baseline, dashboardAssetsGzBytes: assetsGz };
  const lines: string[] = [];
  let worstMs = 0;
  let worstKb = 0;
  for (const [name, url] of pages) {
    const t1 = performance.now();
    const first = await get(url);
    const cold = performance.now() - t1;
    if (first.statusCode !== 200) throw new Error(`${url}: ${first.statusCode} ${first.body.slice(0, 200)}`);
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      await get(url);
      times.push(performance.now() - t);
    }
    const ms = median(times);
    const gz = gzipSync(first.rawPayload).length + assetsGz;
    worstMs = Math.max(worstMs, ms);
    worstKb = Math.max(worstKb, gz / 1024);
    lines.push(`  ${name.padEnd(27)} ${ms.toFixed(0).padStart(5)} ms (${(ms / baseline).toFixed(2)}× a full read)  ${(gz / 1024).toFixed(1).padStart(6)} KB gz  (${(first.rawPayload.length / 1024).toFixed(0)} KB html; first request ${cold.toFixed(0)} ms)`);
  }
  await app.close();
  await writer.close();
  results.dashboardWorstPageMs = worstMs;
  results.dashboardWorstPageKbGz = worstKb;
  console.log(`dashboard over ${EVENTS.toLocaleString()} events (${SESSIONS} sessions), median of 5 server times via the real routes after a first request (the first page also opens the log on the query thread); weight = page + client module + stylesheet, gzipped (assets ${(assets / 1024).toFixed(1)} KB raw, ${(assetsGz / 1024).toFixed(1)} KB gz):`);
  console.log(`  baseline, one full read of the records: ${baseline.toFixed(0)} ms`);
  for (const l of lines) console.log(l);
  console.log(`  worst page ${worstMs.toFixed(0)} ms (${(worstMs / baseline).toFixed(2)}× a full read; budget 200 ms), heaviest ${worstKb.toFixed(1)} KB gz (budget 150 KB)`);
  return results;
}
