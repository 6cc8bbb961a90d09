import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { portWarning } from '../../src/cli/listen-hints';
import { describe, it } from 'node:test';
import { spanEvents } from '../../src/sources/dispatch';
import { EventLog } from '../../src/store/log/event-log';
import { decodeJsonTraces } from '../../src/receiver/signals/traces';
import { toRows } from '../../src/ingest/rows';
import { runBeacon } from '../helpers/daemon';
import { gooseDefaultLoopTurn } from '../helpers/goose-spans';
import { traceRequest } from '../helpers/otlp-json';
import { BEACON_BIN, HOOKS_BIN, repoRoot, tempDir } from '../helpers/paths';

const VERSION = JSON.parse(readFileSync(join(repoRoot(), 'package.json'), 'utf8')).version as string;
const SUBCOMMANDS = [['collector'], ['events'], ['token-usage'], ['prune'], ['stream'], ['install'], ['uninstall'], ['doctor'], ['service']];

/** A log of `turns` goose loop turns (4 events each), stored as the collector stores them. */
function seededLog(turns: number, start = 1787301000000000000n): string {
  const path = join(tempDir('cli-log-'), 'events.db');
  const log = EventLog.open(path);
  for (let i = 0; i < turns; i++) {
    const ex = spanEvents(decodeJsonTraces(Buffer.from(JSON.stringify(traceRequest(gooseDefaultLoopTurn({ sessionId: `s${i % 3}`, start: start + BigInt(i) * 60_000_000_000n }).spans)))));
    log.append(toRows(ex.events).rows);
  }
  log.close();
  return path;
}

describe('beacon --help, --version, mistakes', () => {
  it('every subcommand answers --help and -h on stdout with usage, options and an example, exit 0', () => {
    for (const [cmd] of SUBCOMMANDS) {
      for (const flag of ['--help', '-h']) {
        const r = runBeacon([cmd!, flag]);
        assert.equal(r.status, 0, `${cmd} ${flag}: ${r.stderr}`);
        assert.equal(r.stderr, '', `${cmd} ${flag} writes nothing to stderr`);
        assert.match(r.stdout, new RegExp(`^usage: beacon ${cmd} `), `${cmd} ${flag}`);
        assert.match(r.stdout, /\noptions:\n[\s\S]*--help/, `${cmd} lists its options`);
        assert.match(r.stdout, new RegExp(`\\nexamples:\\n  (\\S+ \\| )?.*beacon ${cmd}`), `${cmd} shows an example`);
      }
    }
    // help after other flags, and `beacon help CMD`
    assert.match(runBeacon(['events', '--json', '--help']).stdout, /^usage: beacon events/);
    assert.match(runBeacon(['help', 'token-usage']).stdout, /^usage: beacon token-usage/);
    const top = runBeacon(['--help']);
    assert.equal(top.status, 0);
    for (const [cmd] of SUBCOMMANDS) assert.match(top.stdout, new RegExp(`\\n  ${cmd} `));
  });

  it('--version, -V and version print the package version', () => {
    for (const a of ['--version', '-V', 'version']) {
      const r = runBeacon([a]);
      assert.deepEqual([r.status, r.stdout, r.stderr], [0, `beacon ${VERSION}\n`, ''], a);
    }
    // issue 33: `beacon version --help` printed the version instead of helping
    const help = runBeacon(['version', '--help']);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^usage: beacon version/m);
  });

  it('a mistyped subcommand or flag gets "did you mean", exit 2; unknown flags are named without parser jargon', () => {
    const cmd = runBeacon(['evnets']);
    assert.equal(cmd.status, 2);
    assert.match(cmd.stderr, /unknown command "evnets" \(did you mean "events"\?\)/);
    const flag = runBeacon(['events', '--sesion', 'x']);
    assert.equal(flag.status, 2);
    assert.match(flag.stderr, /unknown option --sesion \(did you mean --session\?\)/);
    assert.match(flag.stderr, /beacon events --help/);
    assert.doesNotMatch(flag.stderr, /positional argument|separator/);
    const tok = runBeacon(['token-usage', '--by', 'wek']);
    assert.equal(tok.status, 2);
    assert.match(tok.stderr, /did you mean "week"/);
    const svc = runBeacon(['service', 'instal']);
    assert.equal(svc.status, 2);
    assert.match(svc.stderr, /did you mean "install"/);
    const stream = runBeacon(['stream']);
    assert.equal(stream.status, 2);
    assert.match(stream.stderr, /which agent\? goose, claude-code, codex, gemini-cli, qwen-code, opencode, copilot-cli/);
    assert.equal(runBeacon(['events', '--log']).stderr.includes('--log needs a value (PATH)'), true);
  });

  it('failures that are not command-line mistakes exit 1 without a usage hint', () => {
    const home = tempDir('cli-home-');
    mkdirSync(join(home, '.config', 'goose'), { recursive: true });
    writeFileSync(join(home, '.config', 'goose', 'config.yaml'), 'a: [unclosed\n');
    const env = { HOME: home, XDG_CONFIG_HOME: '', GOOSE_PATH_ROOT: '' };
    const yaml = runBeacon(['install', 'goose', '--configure-otlp'], env);
    assert.equal(yaml.status, 1, yaml.stderr);
    assert.match(yaml.stderr, /not valid YAML.*Nothing was changed/s);
    assert.doesNotMatch(yaml.stderr, /for usage/);
    assert.ok(!existsSync(join(home, '.agents')), 'a refused install writes no hooks');
    assert.ok(!existsSync(join(home, '.beacon', 'endpoint', 'bin')), 'nor the launcher');
    const overrides = join(home, '.beacon', 'endpoint', 'pricing');
    mkdirSync(overrides, { recursive: true });
    writeFileSync(join(overrides, 'overrides.json'), '{not json');
    const price = runBeacon(['token-usage', '--log', seededLog(1)], env);
    assert.equal(price.status, 1, price.stderr);
    assert.doesNotMatch(price.stderr, /for usage/);
  });

  it('beacon-hooks --help and --version answer without a verdict, exit 0', () => {
    const help = spawnSync(process.execPath, [HOOKS_BIN, '--help'], { encoding: 'utf8' });
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^usage: beacon-hooks --platform AGENT/);
    for (const agent of ['goose', 'claude-code', 'codex', 'gemini-cli', 'qwen-code', 'copilot-cli', 'opencode']) assert.match(help.stdout, new RegExp(`^  ${agent}: `, 'm'), agent);
    assert.doesNotMatch(help.stdout, /^\{"decision"/m, "no verdict line");
    const version = spawnSync(process.execPath, [HOOKS_BIN, '--version'], { encoding: 'utf8' });
    assert.deepEqual([version.status, version.stdout], [0, `beacon-hooks ${VERSION}\n`]);
  });
});

describe('the collector explains its port', () => {
  it('EADDRINUSE names the likely holders and the way out, exit 1', async () => {
    const server = createServer().listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const r = runBeacon(['collector', '--port', String(port), '--log', join(tempDir(), 'e.db')]);
      assert.equal(r.status, 1);
      assert.match(r.stderr, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: the port is in use`));
      assert.match(r.stderr, /another OpenTelemetry collector/);
      assert.match(r.stderr, /--port N/);
    } finally {
      server.close();
    }
  });

  it('port 4317 (OTLP/gRPC) gets a warning', () => {
    assert.match(portWarning(4317)!, /gRPC/);
    assert.equal(portWarning(4318), undefined);
  });
});

describe('pipes and signals', () => {
  /** Runs beacon with its stdout read for one line, then closed, as `| head -1` does. */
  function headOne(args: string[]): Promise<{ code: number | null; stderr: string; first: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [BEACON_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      let first = '';
      child.stderr!.on('data', (d) => (stderr += d));
      child.stdout!.once('data', (d) => {
        first = String(d).split('\n')[0]!;
        child.stdout!.destroy();
      });
      child.on('close', (code) => resolve({ code, stderr, first }));
    });
  }

  it('a reader that goes away (| head -1) ends events, token-usage and doctor quietly, exit 0', async () => {
    const log = seededLog(400); // ~1600 records, far more than a pipe buffer
    for (const args of [['events', '--json', '--log', log], ['events', '--log', log]]) {
      const r = await headOne(args);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr, '', `${args.join(' ')}: no EPIPE trace`);
      assert.ok(r.first.length > 0);
    }
    // short outputs: the pipe is closed before they write at all
    for (const args of [['token-usage', '--log', log], ['doctor', '--log', log]]) {
      const r = spawnSync('sh', ['-c', `"${process.execPath}" "${BEACON_BIN}" ${args.join(' ')} | true; :`], { encoding: 'utf8', env: { ...process.env, HOME: tempDir() } });
      assert.doesNotMatch(r.stderr, /EPIPE|Unhandled/, args[0]);
    }
  });

  it('npm start passes SIGTERM to the collector: it stops cleanly and frees its port', async () => {
    const log = join(tempDir('npm-start-'), 'events.db');
    const npm = spawn('npm', ['start', '--silent', '--', '--port', '0', '--log', log], { cwd: repoRoot(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    npm.stdout!.on('data', (d) => (out += d));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ready line: ${out}`)), 60_000);
      npm.stdout!.on('data', () => {
        const m = /"address":"(http:\/\/[^"]+)"/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
    });
    assert.equal((await fetch(`${url}/health`)).status, 200);
    const exited = new Promise<number | null>((r) => npm.on('close', (code) => r(code)));
    npm.kill('SIGTERM');
    await exited;
    // The collector itself must be gone, not orphaned: nothing answers on its port any more.
    let refused = false;
    for (let i = 0; i < 50 && !refused; i++) {
      try {
        await fetch(`${url}/health`, { signal: AbortSignal.timeout(500) });
        await new Promise((r) => setTimeout(r, 100));
      } catch {
        refused = true;
      }
    }
    assert.ok(refused, `the collector still answers at ${url} after SIGTERM to npm`);
    assert.match(out, /collector stopped/);
  });
});
