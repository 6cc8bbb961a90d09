/**
 * `beacon install <agent> --protocol grpc` and doctor for an agent set up for OTLP/gRPC (issue 21
 * item 1): the agents' own gRPC switches (agents-otlp-facts.md), the collector's gRPC port from
 * its config, doctor checking that port, and --send-test over gRPC. Fails without the change:
 * install has no --protocol (exit 2) and doctor judged every agent against OTLP/HTTP.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { parse as parseJsonc } from 'jsonc-parser';
import { startCollector } from '../helpers/daemon';
import { beaconIn, fakeHome } from '../helpers/fake-home';
import { freePort } from '../helpers/ports';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const toml = require('smol-toml') as { parse(t: string): Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any

function write(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

const status = (stdout: string): Record<string, string> => Object.fromEntries((JSON.parse(stdout) as { checks: { id: string; status: string }[] }).checks.map((c) => [c.id, c.status]));

describe('beacon install --protocol grpc', () => {
  it("writes each agent's gRPC switch and the collector's gRPC endpoint; agents without gRPC are refused", () => {
    const h = fakeHome();
    write(join(h.home, '.beacon', 'endpoint', 'config.json'), JSON.stringify({ collector: { grpcPort: 14317 } }));
    const grpcUrl = 'http://127.0.0.1:14317';
    for (const agent of ['gemini-cli', 'qwen-code', 'claude-code', 'codex']) {
      const r = beaconIn(h, ['install', agent, '--protocol', 'grpc']);
      assert.equal(r.status, 0, r.stderr);
    }
    for (const dir of ['.gemini', '.qwen']) {
      const telemetry = parseJsonc(readFileSync(join(h.home, dir, 'settings.json'), 'utf8')).telemetry;
      assert.deepEqual([telemetry.otlpProtocol, telemetry.otlpEndpoint], ['grpc', grpcUrl]);
    }
    const claude = parseJsonc(readFileSync(join(h.home, '.claude', 'settings.json'), 'utf8')).env;
    assert.deepEqual([claude.OTEL_EXPORTER_OTLP_PROTOCOL, claude.OTEL_EXPORTER_OTLP_ENDPOINT], ['grpc', grpcUrl]);
    const otel = toml.parse(readFileSync(join(h.home, '.codex', 'config.toml'), 'utf8')).otel;
    for (const key of ['exporter', 'trace_exporter', 'metrics_exporter']) assert.deepEqual(JSON.parse(JSON.stringify(otel[key])), { 'otlp-grpc': { endpoint: grpcUrl } });

    const opencode = beaconIn(h, ['install', 'opencode', '--protocol', 'grpc']);
    assert.equal(opencode.status, 2);
    assert.match(opencode.stderr, /opencode exports to Beacon over OTLP\/HTTP only: drop --protocol grpc/);
    assert.equal(beaconIn(h, ['install', 'codex', '--protocol', 'quic']).status, 2);
    // switching back needs --force: the gRPC values are Beacon's own, so none is refused
    const back = beaconIn(h, ['install', 'gemini-cli']);
    assert.equal(back.status, 0, back.stderr);
    assert.equal(parseJsonc(readFileSync(join(h.home, '.gemini', 'settings.json'), 'utf8')).telemetry.otlpProtocol, 'http');
  });

  it('doctor checks the gRPC port for an agent set up for gRPC, and --send-test goes over gRPC', async (t) => {
    const grpcPort = await freePort();
    const c = await startCollector({ args: ['--grpc-port', String(grpcPort)] });
    t.after(() => c.stop());
    const h = fakeHome();
    write(join(h.home, '.beacon', 'endpoint', 'config.json'), JSON.stringify({ collector: { port: c.port, log: c.log, grpcPort } }));
    assert.equal(beaconIn(h, ['install', 'claude-code', '--protocol', 'grpc']).status, 0);
    const r = beaconIn(h, ['doctor', 'claude-code', '--send-test', '--json']);
    const s = status(r.stdout);
    assert.equal(r.status, 0, r.stdout);
    assert.deepEqual([s['claude-code'], s['claude-code-grpc'], s['claude-code-send-test']], ['ok', 'ok', 'ok'], r.stdout);
    const text = beaconIn(h, ['doctor', 'claude-code']).stdout;
    assert.match(text, new RegExp(`claude-code-grpc\\s+the collector's OTLP/gRPC listens on 127\\.0\\.0\\.1:${grpcPort} \\(1 gRPC exports`));
    assert.match(text, /exports to http:\/\/127\.0\.0\.1:\d+ over OTLP\/gRPC/);

    // the agent points at a gRPC port the collector does not listen on
    write(join(h.home, '.beacon', 'endpoint', 'config.json'), JSON.stringify({ collector: { port: c.port, log: c.log, grpcPort: grpcPort + 1 } }));
    assert.equal(beaconIn(h, ['install', 'claude-code', '--protocol', 'grpc', '--force']).status, 0);
    const wrong = beaconIn(h, ['doctor', 'claude-code']);
    assert.equal(wrong.status, 1);
    assert.match(wrong.stdout, new RegExp(`\\[FAIL\\] claude-code-grpc\\s+Claude Code exports over OTLP/gRPC to http://127\\.0\\.0\\.1:${grpcPort + 1}, but the collector's OTLP/gRPC listens on 127\\.0\\.0\\.1:${grpcPort}`));
  });
});
