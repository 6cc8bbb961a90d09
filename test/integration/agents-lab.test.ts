/**
 * The agents lab: the six real agent CLIs (pinned in test/agents, installed by
 * `npm ci --prefix test/agents`; .ci/run does it) each run once, non-interactively and offline,
 * against the mock model (test/helpers/mock-model.ts) with their OpenTelemetry export pointed at a
 * real Beacon collector. For every agent it asserts:
 *
 *   - the CLI exits 0 (within its time bound),
 *   - the mock saw the expected model calls (the shell tool call with `echo beacon-lab`, the final
 *     answer; opencode first makes a title-generation side call),
 *   - Beacon answered 200 to the agent's exports: /health counts them, with records of each signal
 *     the agent sends, and the collector logged no refused or failed export,
 *   - and recorded the run (read back with `beacon events --json`): its harness, one session, one
 *     model.invoked per model call with the mock's tokens in disjoint buckets, the shell call once
 *     with its command line and call id, the prompt where the agent exports it.
 *
 * A missing CLI is a skip with its reason, never a pass. Measured on the 2-core machine under load,
 * per run: Codex 0.5–0.7 s, Claude 0.8–1 s, Gemini 3–3.5 s, Copilot 3.6–3.9 s, opencode ~10 s,
 * Qwen ~12 s (4–5 s unloaded); the whole file (ten runs, a collector each) about 45 s. Each run is
 * killed after 90 s.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AGENTS, agentBinary, runAgent, type AgentName, type OtlpProtocol } from '../helpers/agent-cli';
import { startCollector, type RunningCollector } from '../helpers/daemon';
import { MOCK_COMMAND, startMockModel } from '../helpers/mock-model';
import { BEACON_BIN, tempDir } from '../helpers/paths';
import { AGENT_EXPECTATIONS, assertAgentRecords } from '../helpers/agent-expectations';
import type { BeaconRecord } from '../../src/model/record';
import { spawnSync } from 'node:child_process';

interface Health {
  exports: number;
  spans: number;
  logRecords: number;
  metricPoints: number;
  rejected: number;
  [k: string]: unknown;
}

async function health(c: RunningCollector): Promise<Health> {
  return (await (await fetch(`${c.url}/health`)).json()) as Health;
}

/** The runs: each agent once in protobuf where it can send it, and the other encodings/gzip where they exist. */
const RUNS: Array<{ agent: AgentName; protocol: OtlpProtocol; gzip?: boolean }> = [
  { agent: 'codex', protocol: 'http/protobuf' },
  { agent: 'codex', protocol: 'http/json' },
  { agent: 'claude', protocol: 'http/protobuf' },
  { agent: 'claude', protocol: 'http/json', gzip: true },
  { agent: 'gemini', protocol: 'http/json' },
  { agent: 'gemini', protocol: 'http/json', gzip: true },
  { agent: 'qwen', protocol: 'http/json' },
  { agent: 'opencode', protocol: 'http/json' },
  { agent: 'copilot', protocol: 'http/protobuf' },
  { agent: 'copilot', protocol: 'http/json' },
];

const tail = (s: string, n = 1500) => (s.length > n ? `…${s.slice(-n)}` : s);

describe('agents lab: the real agent CLIs against the mock model and a Beacon collector', () => {
  for (const { agent, protocol, gzip } of RUNS) {
    const info = AGENTS[agent];
    it(`${agent} ${info.version} (${protocol}${gzip ? ', gzip' : ''}): exits 0, makes ${info.modelCalls} model calls, and Beacon takes every export`, async (t) => {
      const found = agentBinary(agent);
      if (!found.path) {
        t.skip(found.skip);
        return;
      }
      const base = tempDir(`agents-lab-${agent}-`);
      const mock = await startMockModel();
      const collector = await startCollector();
      try {
        const run = await runAgent(agent, { mockUrl: mock.url, otlpBaseUrl: collector.url, protocol, gzip, home: join(base, 'home'), workdir: join(base, 'work'), timeoutMs: 90_000 });
        t.diagnostic(`${agent} (${protocol}${gzip ? ', gzip' : ''}): exit ${run.code} in ${run.durationMs} ms`);
        const why = `\nstdout: ${tail(run.stdout)}\nstderr: ${tail(run.stderr)}`;
        assert.equal(run.timedOut, false, `timed out${why}`);
        assert.equal(run.code, 0, `exit code${why}`);

        const calls = mock.modelCalls();
        const expected = agent === 'opencode' ? ['side', 'tool', 'final'] : ['tool', 'final'];
        assert.deepEqual(
          calls.map((c) => c.step).sort(),
          [...expected].sort(),
          `model calls: ${JSON.stringify(mock.requests.map((r) => `${r.method} ${r.path} ${r.step ?? r.status}`))}`,
        );
        assert.ok(calls.every((c) => c.wire === info.wire && c.status === 200), `all on the ${info.wire} wire`);
        const toolCall = calls.find((c) => c.step === 'tool')!;
        assert.equal(Object.values(toolCall.toolArgs ?? {}).flat().join(' ').includes(MOCK_COMMAND), true, `the shell tool got the command: ${JSON.stringify(toolCall.toolArgs)}`);

        // The agent has exited (opencode's server has been stopped), so every export it made has
        // been answered; /health counts the answered-200 ones.
        const h = await health(collector);
        t.diagnostic(`collector: ${h.exports} exports answered 200, ${h.spans} spans, ${h.logRecords} log records, ${h.metricPoints} metric points, ${h.rejected} spans rejected`);
        const refused = collector.lines.filter((l) => /export (refused|failed)|exports refused/.test(l));
        assert.deepEqual(refused, [], 'the collector refused or failed none of the exports');
        assert.ok(h.exports >= info.signals.length, `at least one export per signal (${info.signals.join(', ')}), got ${h.exports}`);
        if (info.signals.includes('traces')) assert.ok(h.spans > 0, 'spans arrived');
        if (info.signals.includes('logs')) assert.ok(h.logRecords > 0, 'log records arrived');
        if (info.signals.includes('metrics')) assert.ok(h.metricPoints > 0, 'metric points arrived');
        if (!info.signals.includes('traces')) assert.equal(h.spans, 0, `${agent} sends no spans`);
        if (!info.signals.includes('logs')) assert.equal(h.logRecords, 0, `${agent} sends no logs`);
        if (!info.signals.includes('metrics')) assert.equal(h.metricPoints, 0, `${agent} sends no metrics`);

        // What a user sees: the run's records, read back with `beacon events --json` as stored.
        const listed = spawnSync(process.execPath, [BEACON_BIN, 'events', '--json', '--log', collector.log], { encoding: 'utf8' });
        assert.equal(listed.status, 0, listed.stderr);
        const records = listed.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as BeaconRecord);
        assertAgentRecords(records, AGENT_EXPECTATIONS[agent]!);
      } finally {
        await collector.stop();
        await mock.close();
        rmSync(base, { recursive: true, force: true });
      }
    });
  }
});
