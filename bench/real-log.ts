/**
 * A log shaped as agents write one (issue 33): four weeks of sessions of three agents (goose,
 * Claude Code, Codex) started in working hours, each a run of prompts, model calls and tool calls
 * seconds apart as the agents send them (commands, edits with diffs, failures, denials; unique call
 * ids), then a burst of real goose OTLP exports sent to a running collector in the current quarter
 * hour — the usage rollup's current bucket, and a dozen sessions each written by every export.
 */
import http from 'node:http';
import { EventLog } from '../src/store/log/event-log';
import type { EventRow } from '../src/store/log/row';
import { gooseExportTemplate, stampIds } from './fixture';

const DAY_MS = 86_400_000;
const AGENTS: { harness: string; method: string; models: [string, string][] }[] = [
  { harness: 'goose', method: 'otlp', models: [['claude-sonnet-4-5-20250929', 'anthropic'], ['gpt-5.4', 'openai']] },
  { harness: 'claude-code', method: 'otlp', models: [['claude-sonnet-4-5-20250929', 'anthropic'], ['claude-opus-4-1-20250805', 'anthropic'], ['claude-haiku-4-5-20251001', 'anthropic']] },
  { harness: 'codex', method: 'otlp', models: [['gpt-5.1-codex', 'openai'], ['gpt-5.1-codex-mini', 'openai']] },
];

/** A small deterministic generator: the same seed gives the same log. */
class Rng {
  constructor(private s: number) {}
  next(): number {
    this.s = (this.s * 48271) % 2147483647;
    return this.s / 2147483647;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
}

/** The history: `events` events over the `days` days before `nowMs`, in sessions of 40–400 events. */
export function writeHistory(path: string, nowMs: number, events: number, days = 28): { sessions: number } {
  const rng = new Rng(33);
  const log = EventLog.open(path);
  let rows: EventRow[] = [];
  let n = 0;
  let sessions = 0;
  const push = (agent: (typeof AGENTS)[number], sid: string, repo: string, tsMs: number, method: string, action: string, rec: Record<string, unknown>, extra: Partial<EventRow> = {}) => {
    const id = `r${n++}`;
    const record = JSON.stringify({
      timestamp: new Date(tsMs).toISOString(), vendor: 'beacon', product: 'endpoint-agent', schema_version: '1.0', event: { kind: 'agent_runtime', action, id },
      severity: 'info', endpoint: { hostname: 'devbox', os: 'linux' }, harness: { name: agent.harness, collection_method: method }, session: { id: sid, working_directory: repo }, repository: repo, ...rec,
    });
    rows.push({
      id, tsNs: BigInt(Math.round(tsMs)) * 1_000_000n, harness: agent.harness, method, action, sessionId: sid, traceId: null, spanId: null, parentSpanId: null, toolCallId: null,
      model: null, provider: null, inputTokens: null, outputTokens: null, cacheReadTokens: null, cacheCreationTokens: null, reasoningTokens: null, costUsd: null, record, dropIfChatChildStored: false, ...extra,
    });
    if (rows.length >= 5000) (log.append(rows), (rows = []));
  };
  while (n < events) {
    const agent = AGENTS[sessions % AGENTS.length]!;
    const sid = `${agent.harness}-${String(sessions++).padStart(5, '0')}`;
    const repo = `/home/alice/src/proj${rng.int(0, 11)}`;
    const [model, provider] = agent.models[rng.int(0, agent.models.length - 1)]!;
    // a working day's hour, on one of the last `days` days (never in the future)
    let t = Math.min(nowMs - 3_600_000, nowMs - rng.int(1, days) * DAY_MS + rng.int(-4 * 3600, 6 * 3600) * 1000);
    const size = rng.int(40, 400);
    for (let k = 0; k < size && n < events; ) {
      push(agent, sid, repo, t, 'hook', 'prompt.submitted', { prompt: { text: `please fix the failing test number ${k} in the parser module` } });
      k++;
      for (let step = rng.int(1, 6); step > 0 && k < size; step--) {
        t += rng.int(2000, 30_000); // a model call: seconds
        const input = rng.int(800, 9000);
        push(agent, sid, repo, t, agent.method, 'model.invoked', { model, gen_ai: { usage: { input_tokens: input, output_tokens: 300 }, duration_ms: rng.int(900, 20_000) } },
          { model, provider, inputTokens: input, outputTokens: rng.int(50, 2000), cacheReadTokens: rng.int(0, 60_000), cacheCreationTokens: rng.int(0, 4000), reasoningTokens: rng.int(0, 500) });
        k++;
        const callId = `call_${sid}_${k}`;
        const edit = rng.next() < 0.3;
        const rec = edit
          ? { file: { path: `src/module${k % 40}.rs`, operation: 'modify', diff: '--- a/src/m.rs\n+++ b/src/m.rs\n@@ -1,3 +1,3 @@\n fn a() {}\n-fn old() {}\n+fn new() {}\n fn b() {}\n' }, gen_ai: { tool: { name: 'edit', call: { id: callId } } } }
          : { command: { command: `cargo test -p parser --quiet ${k}` }, gen_ai: { tool: { name: 'shell', call: { id: callId } } } };
        push(agent, sid, repo, t + 50, 'hook', 'tool.invoked', rec, { toolCallId: callId });
        k++;
        if (rng.next() < 0.03) {
          push(agent, sid, repo, t + 60, 'hook', 'approval.denied', { ...rec, approval: { decision: 'deny', reason: 'destructive' } }, { toolCallId: callId });
          k++;
          continue;
        }
        t += rng.int(100, 8000); // the tool runs
        const exit = !edit && rng.next() < 0.1 ? 1 : 0;
        const done = edit ? rec : { ...rec, command: { ...(rec as { command: object }).command, exit_code: exit } };
        push(agent, sid, repo, t, 'hook', edit ? 'file.modified' : 'command.executed', done, { toolCallId: callId });
        push(agent, sid, repo, t + 5, agent.method, edit ? 'file.modified' : 'command.executed', done, { toolCallId: callId });
        k += 2;
      }
      t += rng.int(20_000, 300_000); // the user reads and types the next prompt
    }
  }
  if (rows.length) log.append(rows);
  log.close();
  return { sessions };
}

/**
 * The burst: `exports` real goose exports (100 spans, protobuf, as goose sends them) POSTed to the
 * collector at `url`, 4 at a time, stamped in the last four minutes (the current quarter hour, mostly).
 */
export async function sendBurst(url: string, exports: number): Promise<number> {
  // 100 spans are 12 turns 20 s apart: they end now, so the burst is the last four minutes
  const startMs = Date.now() - 255_000;
  const { body, idOffsets, genAiSpans } = gooseExportTemplate(100, BigInt(startMs) * 1_000_000n);
  // goose's tool call ids are the provider's (toolu_…), new in every call: the template's three are
  // stamped per export too (3 base-36 characters after `toolu_0N`), wherever the export names them
  const callIdAt: number[] = [];
  for (const id of ['toolu_01AbC', 'toolu_02XyZ', 'toolu_03Todo']) for (let at = body.indexOf(id); at >= 0; at = body.indexOf(id, at + 1)) callIdAt.push(at + 8);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const post = (n: number) => new Promise<void>((resolve, reject) => {
    const payload = stampIds(body, idOffsets, 0x33000000 + n);
    const stamp = n.toString(36).padStart(3, '0').slice(-3);
    for (const at of callIdAt) payload.write(stamp, at, 'latin1');
    const req = http.request(`${url}/v1/traces`, { method: 'POST', agent, headers: { 'content-type': 'application/x-protobuf', 'content-length': payload.length } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`export ${n}: HTTP ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(payload);
  });
  for (let i = 0; i < exports; i += 4) await Promise.all(Array.from({ length: Math.min(4, exports - i) }, (_, k) => post(i + k)));
  agent.destroy();
  return exports * genAiSpans;
}
