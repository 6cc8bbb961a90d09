/**
 * The agents lab's capture run (not a test): runs each real agent CLI once against the mock model,
 * with a capture server as its OTLP endpoint, and writes every OTLP request it sent to
 * <out>/<agent>/<n>-<signal>.<json|pb> (a protobuf body also as <n>-<signal>.pb.json, decoded with
 * the official opentelemetry-proto files), plus what the mock saw and a summary.
 *
 *   npm run build && node dist/test/lab/capture-agents.js [--out DIR] [--json] [agent ...]
 *
 * --json asks the agents that can do both for OTLP/JSON (default: protobuf where possible); the
 * agent directory is then <agent>-json.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { AGENTS, AGENT_NAMES, agentBinary, runAgent, type AgentName, type OtlpProtocol } from '../helpers/agent-cli';
import { startMockModel } from '../helpers/mock-model';
import { signalOf, startOtlpCapture, type CapturedRequest } from '../helpers/otlp-capture';
import { otlpJsonOf, summarize } from './otlp-summary';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  let out = join(tmpdir(), 'beacon-agent-captures'); // never a committed path: --out names another
  let json = false;
  let gzip = false;
  const names: AgentName[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--out') out = args[++i];
    else if (args[i] === '--json') json = true;
    else if (args[i] === '--gzip') gzip = true;
    else if ((AGENT_NAMES as string[]).includes(args[i])) names.push(args[i] as AgentName);
    else throw new Error(`unknown argument ${args[i]}`);
  }
  for (const name of names.length ? names : AGENT_NAMES) {
    const found = agentBinary(name);
    if (!found.path) {
      console.log(`${name}: SKIP ${found.skip}`);
      continue;
    }
    const protocol: OtlpProtocol = json || !AGENTS[name].protocols.includes('http/protobuf') ? 'http/json' : 'http/protobuf';
    const dir = join(out, name + (json && AGENTS[name].protocols.length > 1 ? '-json' : '') + (gzip ? '-gzip' : ''));
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const mock = await startMockModel();
    const cap = await startOtlpCapture();
    const base = mkdtempSync(join(tmpdir(), `agents-lab-${name}-`));
    const run = await runAgent(name, { mockUrl: mock.url, otlpBaseUrl: cap.url, protocol, gzip, home: join(base, 'home'), workdir: join(base, 'work') });
    await new Promise((r) => setTimeout(r, 1500)); // a late export after exit would still be counted
    await cap.close();
    await mock.close();
    const files: string[] = [];
    cap.requests.forEach((req, i) => files.push(...writeRequest(dir, i + 1, req)));
    writeFileSync(join(dir, 'run.json'), JSON.stringify({ agent: name, version: AGENTS[name].version, protocol, gzip, code: run.code, signal: run.signal, timedOut: run.timedOut, durationMs: run.durationMs, command: run.command, env: run.env, files: run.files }, null, 2));
    writeFileSync(join(dir, 'stdout.txt'), run.stdout);
    writeFileSync(join(dir, 'stderr.txt'), run.stderr);
    writeFileSync(join(dir, 'mock-requests.json'), JSON.stringify(mock.requests, null, 2));
    const requests = cap.requests.map((req, i) => ({
      n: i + 1,
      atMs: req.atMs,
      method: req.method,
      path: req.path,
      signal: signalOf(req.path),
      contentType: req.contentType,
      contentEncoding: req.contentEncoding || 'none',
      chunked: req.chunked,
      contentLength: req.headers['content-length'] ?? null,
      userAgent: req.headers['user-agent'] ?? null,
      wireBytes: req.wireBytes,
      bodyBytes: req.body.length,
      decodeError: req.decodeError,
    }));
    writeFileSync(join(dir, 'requests.json'), JSON.stringify(requests, null, 2));
    const decoded = cap.requests.map((req) => ({ signal: signalOf(req.path), json: otlpJsonOf(signalOf(req.path), req) }));
    const summary = summarize(decoded);
    writeFileSync(join(dir, 'summary.json'), JSON.stringify(summary, null, 2));
    const calls = mock.modelCalls();
    console.log(
      `${name}: exit ${run.code}${run.timedOut ? ' (TIMED OUT)' : ''} in ${run.durationMs} ms; mock: ${calls.length} model calls (${calls.map((c) => `${c.wire}/${c.step}${c.toolName ? `:${c.toolName}` : ''}`).join(', ')}), ` +
        `${mock.requests.length - calls.length} other; OTLP: ${requests.map((r) => `${r.signal}(${r.contentType.split(';')[0]}${r.contentEncoding !== 'none' ? `,${r.contentEncoding}` : ''}${r.chunked ? ',chunked' : ''},${r.wireBytes}B)`).join(' ')} -> ${dir}`,
    );
    rmSync(base, { recursive: true, force: true });
  }
}

function writeRequest(dir: string, n: number, req: CapturedRequest): string[] {
  const signal = signalOf(req.path);
  const isJson = /json/i.test(req.contentType);
  const stem = join(dir, `${n}-${signal}`);
  const written = [`${stem}.${isJson ? 'json' : 'pb'}`];
  writeFileSync(written[0], req.body);
  if (!isJson) {
    try {
      const j = otlpJsonOf(signal, req);
      writeFileSync(`${stem}.pb.json`, JSON.stringify(j, null, 2));
      written.push(`${stem}.pb.json`);
    } catch (e) {
      writeFileSync(`${stem}.pb.decode-error.txt`, String((e as Error).message));
    }
  }
  return written;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
