/**
 * Done means, for issue 21: on a fresh home, `beacon install <agent> --capture-content` and nothing
 * else configures the agent's telemetry — the lab runner writes only its model/provider settings
 * (telemetry: false) — then one real run of the CLI against the mock model puts the run's model
 * calls and its tool call in the log of a real collector, over the protocol the installer chose
 * (OTLP/HTTP). Lines the installer prints for the agent's environment (opencode's endpoint,
 * Copilot's switches) are what the run's environment gets. A CLI not installed is a skip, with why.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { BeaconRecord } from '../../src/model/record';
import { agentBinary, runAgent, type AgentName } from '../helpers/agent-cli';
import { AGENT_EXPECTATIONS, assertAgentRecords } from '../helpers/agent-expectations';
import { startCollector } from '../helpers/daemon';
import { startMockModel } from '../helpers/mock-model';
import { BEACON_BIN, tempDir } from '../helpers/paths';

const RUNS: Array<[AgentName, string]> = [['codex', 'codex'], ['claude', 'claude-code'], ['gemini', 'gemini-cli'], ['qwen', 'qwen-code'], ['opencode', 'opencode'], ['copilot', 'copilot-cli']];
const tail = (s: string, n = 1500) => (s.length > n ? `…${s.slice(-n)}` : s);

describe('beacon install <agent>, then one real run of the agent: its model calls and tool call are in the log', () => {
  for (const [agent, id] of RUNS) {
    it(`${id}`, async (t) => {
      const found = agentBinary(agent);
      if (!found.path) {
        t.skip(found.skip);
        return;
      }
      const base = tempDir(`agent-install-real-${agent}-`);
      const home = join(base, 'home');
      const mock = await startMockModel();
      const collector = await startCollector();
      try {
        let installed = '';
        const env: Record<string, string> = {};
        const run = await runAgent(agent, {
          mockUrl: mock.url, otlpBaseUrl: 'http://127.0.0.1:9', protocol: 'http/protobuf', home, workdir: join(base, 'work'), timeoutMs: 90_000,
          telemetry: false,
          env,
          beforeRun() {
            // the collector this home's Beacon means
            mkdirSync(join(home, '.beacon', 'endpoint'), { recursive: true });
            writeFileSync(join(home, '.beacon', 'endpoint', 'config.json'), JSON.stringify({ collector: { port: collector.port, log: collector.log } }));
            const r = spawnSync(process.execPath, [BEACON_BIN, 'install', id, '--otlp-only', '--capture-content'], {
              env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), SHELL: '/bin/bash', BEACON_SERVICE_NO_ACTIVATE: '1' }, encoding: 'utf8',
            });
            assert.equal(r.status, 0, r.stderr);
            installed = r.stdout;
            // the lines it says to add to ~/.bashrc: the agent's environment gets exactly those
            for (const m of r.stdout.matchAll(/^ {4}export (\w+)=(.*)$/gm)) env[m[1]!] = m[2]!;
          },
        });
        t.diagnostic(`${id}: exit ${run.code} in ${run.durationMs} ms; install said:\n${installed}`);
        const why = `\nstdout: ${tail(run.stdout)}\nstderr: ${tail(run.stderr)}`;
        assert.equal(run.timedOut, false, `timed out${why}`);
        assert.equal(run.code, 0, `exit code${why}`);
        if (agent === 'opencode' || agent === 'copilot') assert.equal(env.OTEL_EXPORTER_OTLP_ENDPOINT, collector.url, 'the printed lines carry the endpoint');
        const refused = collector.lines.filter((l) => /export (refused|failed)|exports refused/.test(l));
        assert.deepEqual(refused, []);
        const listed = spawnSync(process.execPath, [BEACON_BIN, 'events', '--json', '--log', collector.log], { encoding: 'utf8' });
        assert.equal(listed.status, 0, listed.stderr);
        const records = listed.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as BeaconRecord);
        assertAgentRecords(records, AGENT_EXPECTATIONS[agent]!);
        // and doctor, asked about this agent in that home, sees it set up and its last event
        const doc = spawnSync(process.execPath, [BEACON_BIN, 'doctor', id, '--json'], { env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), BEACON_SERVICE_NO_ACTIVATE: '1', ...env }, encoding: 'utf8' });
        const checks = Object.fromEntries((JSON.parse(doc.stdout).checks as { id: string; status: string; message: string }[]).map((c) => [c.id, c]));
        assert.equal(checks[`${id}-events`]?.status, 'ok', doc.stdout);
        assert.equal((checks[id] ?? checks[`${id}-env`])?.status, 'ok', doc.stdout);
      } finally {
        await collector.stop();
        await mock.close();
        rmSync(base, { recursive: true, force: true });
      }
    });
  }
});
