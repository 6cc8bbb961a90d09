/**
 * `beacon install|uninstall|doctor <agent>` for the six agents besides goose, on a fresh temp HOME
 * each: the agent's own settings file starts as a user's (comments, odd formatting, other keys);
 * install adds exactly Beacon's keys and keeps every other byte, a reinstall is byte-identical,
 * uninstall restores the original bytes, a value the user set differently is refused (and --force
 * replaces it, uninstall puts it back). doctor names the agent's state, and --send-test lands a
 * record shaped like the agent's in the log under its harness name.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { parse as parseJsonc } from 'jsonc-parser';
import { startCollector } from '../helpers/daemon';
import { beaconIn, fakeHome, type Home } from '../helpers/fake-home';

// smol-toml's CommonJS build (see src/setup/agents/settings-edit.ts)
// eslint-disable-next-line @typescript-eslint/no-require-imports
const toml = require('smol-toml') as { parse(t: string): Record<string, unknown> };

interface Case {
  agent: string;
  file: (h: Home) => string;
  format: 'json' | 'toml';
  original: string;
  /** Beacon's keys, as the parsed document gets them (port 4318) */
  keys: Record<string, unknown>;
  /** a user value Beacon must refuse to overwrite */
  conflicting: string;
}

const URL = 'http://127.0.0.1:4318';
const exporter = (s: string) => ({ 'otlp-http': { endpoint: `${URL}/v1/${s}`, protocol: 'binary' } });

const CASES: Case[] = [
  {
    agent: 'claude-code', format: 'json', file: (h) => join(h.home, '.claude', 'settings.json'),
    original: '{\n  // my Claude settings\n  "model": "opus",\n  "env": {\n    "FOO": "bar", // keep me\n  },\n  "permissions": { "allow": ["Bash(ls)"] }\n}\n',
    keys: { 'env.CLAUDE_CODE_ENABLE_TELEMETRY': '1', 'env.OTEL_LOGS_EXPORTER': 'otlp', 'env.OTEL_METRICS_EXPORTER': 'otlp', 'env.OTEL_EXPORTER_OTLP_PROTOCOL': 'http/protobuf', 'env.OTEL_EXPORTER_OTLP_ENDPOINT': URL, 'env.OTEL_LOG_USER_PROMPTS': '0', 'env.OTEL_LOG_TOOL_DETAILS': '0' },
    conflicting: '{\n  "env": { "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector.example:4318" } // mine\n}\n',
  },
  {
    agent: 'codex', format: 'toml', file: (h) => join(h.home, '.codex', 'config.toml'),
    original: '# my Codex config\nmodel = "o3"   # favourite\n\n[otel]\nenvironment = "dev"  # kept\n\n[profiles.fast]\nmodel = "o4-mini"\n',
    keys: { 'otel.exporter': exporter('logs'), 'otel.trace_exporter': exporter('traces'), 'otel.metrics_exporter': exporter('metrics'), 'otel.log_user_prompt': false },
    conflicting: 'model = "o3"\n[otel]\nexporter = "none" # off on purpose\n',
  },
  {
    agent: 'gemini-cli', format: 'json', file: (h) => join(h.home, '.gemini', 'settings.json'),
    original: '{\n\t"theme": "GitHub", /* tabs here */\n\t"general": {"vimMode": true}\n}\n',
    keys: { 'telemetry.enabled': true, 'telemetry.target': 'local', 'telemetry.otlpEndpoint': URL, 'telemetry.otlpProtocol': 'http', 'telemetry.logPrompts': false },
    conflicting: '{ "telemetry": { "otlpProtocol": "grpc" } }',
  },
  {
    agent: 'qwen-code', format: 'json', file: (h) => join(h.home, '.qwen', 'settings.json'),
    original: '{\n    "telemetry": {\n        // partly mine\n        "target": "local"\n    },\n    "ui": { "theme": "Qwen Dark" }\n}',
    keys: { 'telemetry.enabled': true, 'telemetry.target': 'local', 'telemetry.otlpEndpoint': URL, 'telemetry.otlpProtocol': 'http', 'telemetry.logPrompts': false },
    conflicting: '{ "telemetry": { "enabled": false } }\n',
  },
  {
    agent: 'opencode', format: 'json', file: (h) => join(h.home, '.config', 'opencode', 'opencode.json'),
    original: '{\n  "$schema": "https://opencode.ai/config.json",\n  // mine\n  "theme": "tokyonight",\n  "experimental": {\n    "someOther": 1,\n  },\n}\n',
    keys: { 'experimental.openTelemetry': true },
    conflicting: '{ "experimental": { "openTelemetry": false } }\n',
  },
];

function parsed(c: Case, text: string): Record<string, unknown> {
  return c.format === 'json' ? parseJsonc(text, [], { allowTrailingComma: true }) : JSON.parse(JSON.stringify(toml.parse(text)));
}

function withKeys(doc: Record<string, unknown>, keys: Record<string, unknown>): Record<string, unknown> {
  const out = structuredClone(doc);
  for (const [path, value] of Object.entries(keys)) {
    const parts = path.split('.');
    let o = out;
    for (const p of parts.slice(0, -1)) o = (o[p] ??= {}) as Record<string, unknown>;
    o[parts[parts.length - 1]!] = value;
  }
  return out;
}

/** Every byte of `a`, in order, is in `b`: nothing of the user's text was removed or changed. */
function keptEveryByte(a: string, b: string): boolean {
  let i = 0;
  for (const ch of b) if (i < a.length && ch === a[i]) i++;
  return i === a.length;
}

function write(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

const backups = (file: string) => readdirSync(dirname(file)).filter((f) => f.includes('.beacon-backup-'));

// The OTLP half alone (--otlp-only): the hook half is agent-install-hooks.test.ts's.
describe('beacon install <agent> --otlp-only: only Beacon\'s keys, every other byte kept, undone exactly', () => {
  for (const c of CASES) {
    it(`${c.agent}: install adds exactly Beacon's keys, a reinstall is byte-identical, uninstall restores the original bytes`, () => {
      const h = fakeHome({ XDG_CONFIG_HOME: '', CODEX_HOME: '', CLAUDE_CONFIG_DIR: '' });
      const file = c.file(h);
      write(file, c.original);
      const r = beaconIn(h, ['install', c.agent, '--otlp-only']);
      assert.equal(r.status, 0, r.stderr);
      const text = readFileSync(file, 'utf8');
      assert.deepEqual(parsed(c, text), withKeys(parsed(c, c.original), c.keys), 'exactly Beacon\'s keys added');
      assert.ok(keptEveryByte(c.original, text), `every byte of the user's file kept:\n${text}`);
      assert.equal(backups(file).length, 1, 'a timestamped backup');
      assert.equal(readFileSync(join(dirname(file), backups(file)[0]!), 'utf8'), c.original);
      assert.match(r.stdout, /content capture off/);

      const again = beaconIn(h, ['install', c.agent, '--otlp-only']);
      assert.equal(again.status, 0, again.stderr);
      assert.match(again.stdout, /already exports to Beacon/);
      assert.equal(readFileSync(file, 'utf8'), text, 'reinstall byte-identical');
      assert.equal(backups(file).length, 1, 'no second backup');

      const u = beaconIn(h, ['uninstall', c.agent]);
      assert.equal(u.status, 0, u.stderr);
      assert.equal(readFileSync(file, 'utf8'), c.original, 'uninstall restores the original bytes');
    });

    it(`${c.agent}: refuses a value the user set differently, naming --force; --force replaces it and uninstall puts it back`, () => {
      const h = fakeHome({ XDG_CONFIG_HOME: '', CODEX_HOME: '', CLAUDE_CONFIG_DIR: '' });
      const file = c.file(h);
      write(file, c.conflicting);
      const r = beaconIn(h, ['install', c.agent, '--otlp-only']);
      assert.equal(r.status, 1, 'a refusal is a failure');
      assert.match(r.stderr, new RegExp(`refusing to change .*\\n.*Beacon would set[\\s\\S]*beacon install ${c.agent} --otlp-only --force`));
      assert.equal(readFileSync(file, 'utf8'), c.conflicting, 'nothing changed');
      assert.equal(backups(file).length, 0);
      const f = beaconIn(h, ['install', c.agent, '--otlp-only', '--force']);
      assert.equal(f.status, 0, f.stderr);
      assert.deepEqual(parsed(c, readFileSync(file, 'utf8')), withKeys(parsed(c, c.conflicting), c.keys));
      // edited since install: undone key by key, the user's value put back as written
      writeFileSync(file, readFileSync(file, 'utf8') + (c.format === 'toml' ? '\n[extra]\nx = 1\n' : '\n'));
      const u = beaconIn(h, ['uninstall', c.agent]);
      assert.equal(u.status, 0, u.stderr);
      const back = readFileSync(file, 'utf8');
      assert.deepEqual(parsed(c, back), c.format === 'toml' ? { ...parsed(c, c.conflicting), extra: { x: 1 } } : parsed(c, c.conflicting));
      // key by key (the file changed since install): the user's value goes back as written, the layout around it may not
      const mine = c.format === 'toml' ? 'exporter = "none" # off on purpose' : /("[\w.]+": ("[^"]*"|false|true))(?=[^{]*}[^}]*$)/.exec(c.conflicting)![1]!;
      assert.ok(back.includes(mine), `${mine} back as written:\n${back}`);
    });
  }

  it('a file install created is removed by uninstall; --capture-content turns the content switch on and says what will be exported', () => {
    const h = fakeHome();
    const file = join(h.home, '.gemini', 'settings.json');
    const r = beaconIn(h, ['install', 'gemini-cli', '--capture-content']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(JSON.parse(readFileSync(file, 'utf8')).telemetry.logPrompts, true);
    assert.match(r.stdout, /content capture on: Gemini CLI will export the text of your prompts/);
    beaconIn(h, ['uninstall', 'gemini-cli']);
    assert.ok(!existsSync(file), 'removed');
    assert.ok(!existsSync(join(h.home, '.gemini')), 'and the directory install created');
  });

  it('project scope edits the project\'s file; codex has none and says so', () => {
    const h = fakeHome();
    assert.equal(beaconIn(h, ['install', 'qwen-code', '--scope', 'project']).status, 0);
    assert.equal(JSON.parse(readFileSync(join(h.cwd, '.qwen', 'settings.json'), 'utf8')).telemetry.otlpProtocol, 'http');
    assert.ok(!existsSync(join(h.home, '.qwen')));
    const c = beaconIn(h, ['install', 'codex', '--scope', 'project']);
    assert.equal(c.status, 2, c.stderr);
    assert.match(c.stderr, /no project-scope settings file/);
  });

  it('copilot-cli (environment only) gets the exact lines and the shell file; doctor checks them in this environment', async (t) => {
    const h = fakeHome({ SHELL: '/bin/zsh', COPILOT_OTEL_ENABLED: '' });
    const r = beaconIn(h, ['install', 'copilot-cli']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`add these lines to ${join(h.home, '.zshrc')}.*\\n\\n    export COPILOT_OTEL_ENABLED=true\\n    export OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318\\n`));
    const c = await startCollector();
    t.after(() => c.stop());
    const cfg = join(h.home, '.beacon', 'endpoint', 'config.json');
    write(cfg, JSON.stringify({ collector: { port: c.port, log: c.log } }));
    const off = JSON.parse(beaconIn(h, ['doctor', 'copilot-cli', '--json']).stdout);
    assert.equal(off.checks.find((x: { id: string }) => x.id === 'copilot-cli-env').status, 'fail');
    const on = beaconIn(h, ['doctor', 'copilot-cli', '--json'], { COPILOT_OTEL_ENABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: c.url });
    assert.equal(JSON.parse(on.stdout).checks.find((x: { id: string }) => x.id === 'copilot-cli-env').status, 'ok');
  });
});

describe('beacon doctor <agent> and --send-test <agent>', () => {
  for (const agent of ['claude-code', 'codex', 'gemini-cli', 'qwen-code', 'opencode', 'copilot-cli']) {
    it(`${agent}: not set up, then set up; its test record lands in the log under its harness name; the last event is reported`, async (t) => {
      const c = await startCollector();
      t.after(() => c.stop());
      const h = fakeHome({ COPILOT_OTEL_ENABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: c.url });
      write(join(h.home, '.beacon', 'endpoint', 'config.json'), JSON.stringify({ collector: { port: c.port, log: c.log } }));
      const status = (stdout: string) => Object.fromEntries((JSON.parse(stdout).checks as { id: string; status: string }[]).map((x) => [x.id, x.status]));
      if (agent !== 'copilot-cli') {
        const before = beaconIn(h, ['doctor', agent, '--json']);
        assert.equal(before.status, 1);
        assert.equal(status(before.stdout)[agent], 'fail');
      }
      assert.equal(beaconIn(h, ['install', agent]).status, 0);
      if (agent === 'copilot-cli') mkdirSync(join(h.home, '.copilot'), { recursive: true }); // found: its home exists (no settings to write)
      const r = beaconIn(h, ['doctor', agent, '--send-test', '--json']);
      const s = status(r.stdout);
      assert.equal(r.status, 0, r.stdout);
      assert.equal(s[agent === 'copilot-cli' ? 'copilot-cli-env' : agent], 'ok', r.stdout);
      assert.equal(s[`${agent}-send-test`], 'ok', r.stdout);
      assert.equal(s[`${agent}-content`], 'ok');
      const after = beaconIn(h, ['doctor', agent]);
      assert.match(after.stdout, new RegExp(`\\[warn\\] ${agent}-events\\s+no ${agent} event has arrived yet \\(only beacon doctor --send-test events`));
      const events = beaconIn(h, ['events', '--json', '--log', c.log]).stdout.trim().split('\n').map((l) => JSON.parse(l));
      // both halves installed: the OTLP half's test record, and the hook half's test call through Beacon's own command
      const otlp = events.filter((e) => e.harness.collection_method === 'otlp');
      assert.deepEqual(otlp.map((e) => [e.harness.name, e.event.action, e.session.id.startsWith('beacon-doctor-test-')]), [[agent, 'model.invoked', true]]);
      const hooks = events.filter((e) => e.harness.collection_method === 'hook');
      assert.ok(hooks.length > 0 && hooks.every((e) => e.harness.name === agent && e.session.id.startsWith('beacon-doctor-test-')), JSON.stringify(hooks.map((e) => [e.harness.name, e.session.id])));
      assert.equal(s[`${agent}-send-test-hook`], 'ok', r.stdout);
      const all = beaconIn(h, ['doctor', '--json']);
      assert.ok(JSON.parse(all.stdout).checks.some((x: { id: string }) => x.id === `agent:${agent}`), 'the no-argument doctor has a line for the agent found');
    });
  }

  it('names the traps: Codex with OTEL_EXPORTER_OTLP_COMPRESSION, Gemini on gRPC with the collector\'s gRPC off, Claude with no protocol', async (t) => {
    const c = await startCollector();
    t.after(() => c.stop());
    const h = fakeHome();
    write(join(h.home, '.beacon', 'endpoint', 'config.json'), JSON.stringify({ collector: { port: c.port, log: c.log } }));
    beaconIn(h, ['install', 'codex']);
    const gz = beaconIn(h, ['doctor', 'codex'], { OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip' });
    assert.equal(gz.status, 1);
    assert.match(gz.stdout, /\[FAIL\] codex-compression\s+OTEL_EXPORTER_OTLP_COMPRESSION=gzip .*Codex then exports nothing at all/);
    write(join(h.home, '.gemini', 'settings.json'), '{"telemetry": {"enabled": true, "otlpEndpoint": "http://127.0.0.1:4317"}}');
    const g = beaconIn(h, ['doctor', 'gemini-cli']);
    // its default protocol is gRPC and its endpoint 4317: doctor judges it as set up for OTLP/gRPC (issue 21)
    assert.match(g.stdout, /\[FAIL\] gemini-cli-grpc\s+Gemini CLI exports over OTLP\/gRPC to http:\/\/127\.0\.0\.1:4317, but the collector's OTLP\/gRPC is off \(grpcPort 0\)/);
    assert.match(g.stdout, /telemetry\.otlpProtocol is unset, want "grpc"/);
    write(join(h.home, '.claude', 'settings.json'), `{"env": {"CLAUDE_CODE_ENABLE_TELEMETRY": "1", "OTEL_EXPORTER_OTLP_ENDPOINT": "${c.url}"}}`);
    assert.match(beaconIn(h, ['doctor', 'claude-code']).stdout, /\[FAIL\] claude-code-protocol\s+no OTEL_EXPORTER_OTLP_PROTOCOL .*exports nothing without a protocol/);
    beaconIn(h, ['install', 'opencode']);
    assert.match(beaconIn(h, ['doctor', 'opencode']).stdout, /`opencode run` can lose its last batch .*`opencode serve`/);
  });
});
