/**
 * Issue 21 item 1, with real agents: `beacon install <agent> --protocol grpc --capture-content` on a
 * fresh home (the lab runner writes only the model/provider settings, telemetry: false), then one
 * real run of the CLI against the mock model: its model calls and tool call reach the log over
 * OTLP/gRPC — the collector's HTTP port is not where the agent sends, and /health's gRPC counters
 * show the exports. Fails without the gRPC receiver (no --grpc-port, nothing listens) and without
 * install's --protocol. A CLI not installed is a skip, with why.
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
import { freePort } from '../helpers/ports';
import { startMockModel } from '../helpers/mock-model';
import { BEACON_BIN, tempDir } from '../helpers/paths';

// The agents whose own docs offer gRPC (agents-otlp-facts.md): Gemini CLI's and Qwen Code's default, Claude Code's quick start, Codex's otlp-grpc.
const RUNS: Array<[AgentName, string]> = [['gemini', 'gemini-cli'], ['claude', 'claude-code'], ['codex', 'codex'], ['qwen', 'qwen-code']];
const tail = (s: string, n = 1500) => (s.length > n ? `…${s.slice(-n)}` : s);

describe('beacon install <agent> --protocol grpc, then one real run: its model calls and tool call arrive over OTLP/gRPC', () => {
  for (const [agent, id] of RUNS) {
    it(id, async (t) => {
      const found = agentBinary(agent);
      if (!found.path) {
        t.skip(found.skip);
        return;
      }
      const base = tempDir(`agent-grpc-real-${agent}-`);
      const home = join(base, 'home');
      const mock = await startMockModel();
      const grpcPort = await freePort();
      const collector = await startCollector({ args: ['--grpc-port', String(grpcPort)] });
      try {
        const run = await runAgent(agent, {
          mockUrl: mock.url, otlpBaseUrl: 'http://127.0.0.1:9', protocol: 'http/protobuf', home, workdir: join(base, 'work'), timeoutMs: 90_000,
          telemetry: false,
          beforeRun() {
            mkdirSync(join(home, '.beacon', 'endpoint'), { recursive: true });
            writeFileSync(join(home, '.beacon', 'endpoint', 'config.json'), JSON.stringify({ collector: { port: collector.port, grpcPort, log: collector.log } }));
            const r = spawnSync(process.execPath, [BEACON_BIN, 'install', id, '--otlp-only', '--protocol', 'grpc', '--capture-content'], {
              env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), SHELL: '/bin/bash', BEACON_SERVICE_NO_ACTIVATE: '1' }, encoding: 'utf8',
            });
            assert.equal(r.status, 0, r.stderr);
            assert.match(r.stdout, new RegExp(`127\\.0\\.0\\.1:${grpcPort}`));
          },
        });
        const why = `\nstdout: ${tail(run.stdout)}\nstderr: ${tail(run.stderr)}`;
        assert.equal(run.timedOut, false, `timed out${why}`);
        assert.equal(run.code, 0, `exit code${why}`);
        const health = (await (await fetch(`${collector.url}/health`)).json()) as { exports: number; grpc: { exports: number; state: string } };
        t.diagnostic(`${id}: exit ${run.code} in ${run.durationMs} ms; gRPC exports ${health.grpc.exports} of ${health.exports}`);
        assert.equal(health.grpc.state, 'listening');
        assert.ok(health.grpc.exports > 0, `no gRPC export arrived${why}`);
        assert.equal(health.grpc.exports, health.exports, 'every export came over gRPC');
        const listed = spawnSync(process.execPath, [BEACON_BIN, 'events', '--json', '--log', collector.log], { encoding: 'utf8' });
        assert.equal(listed.status, 0, listed.stderr);
        const records = listed.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as BeaconRecord);
        assertAgentRecords(records, AGENT_EXPECTATIONS[agent]!);
        // doctor in that home: set up for gRPC, the listener where the agent sends, its events arrived
        const doc = spawnSync(process.execPath, [BEACON_BIN, 'doctor', id, '--json'], { env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), BEACON_SERVICE_NO_ACTIVATE: '1' }, encoding: 'utf8' });
        const checks = Object.fromEntries((JSON.parse(doc.stdout).checks as { id: string; status: string }[]).map((c) => [c.id, c.status]));
        assert.deepEqual([checks[id], checks[`${id}-grpc`], checks[`${id}-events`]], ['ok', 'ok', 'ok'], doc.stdout);
      } finally {
        await collector.stop();
        await mock.close();
        rmSync(base, { recursive: true, force: true });
      }
    });
  }
});
