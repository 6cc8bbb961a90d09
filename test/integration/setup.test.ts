import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hookCommandLine } from '../../src/setup/goose-hooks-file';
import { describe, it } from 'node:test';
import { jsonl, startCollector } from '../helpers/daemon';
import { beaconIn, fakeHome, type Home } from '../helpers/fake-home';
import { BEACON_BIN, repoRoot, tempDir } from '../helpers/paths';
import { COLLECTOR_NODE_FLAGS } from '../../src/config/node-flags';

const beacon = beaconIn;

const userHooks = (h: Home, root = h.home) => join(root, '.agents', 'plugins', 'beacon-endpoint', 'hooks', 'hooks.json');

describe('beacon install goose / uninstall goose', () => {
  it('writes eight registrations (PreToolUseResult included) with the exact command line, no matcher, timeouts in seconds; a reinstall is byte-identical', () => {
    const h = fakeHome();
    const r = beacon(h, ['install', 'goose']);
    assert.equal(r.status, 0, r.stderr);
    const file = userHooks(h);
    const text = readFileSync(file, 'utf8');
    const doc = JSON.parse(text);
    const launcher = join(h.home, '.beacon', 'endpoint', 'bin', 'beacon-hooks');
    const log = join(h.home, '.beacon', 'endpoint', 'events.db');
    const config = join(h.home, '.beacon', 'endpoint', 'config.json');
    const expected: Record<string, [string, number]> = {
      SessionStart: ['session-start', 10], UserPromptSubmit: ['prompt-submit', 30], PreToolUse: ['pre-tool', 10],
      PostToolUse: ['post-tool', 10], PostToolUseFailure: ['post-tool', 10], Stop: ['stop', 45], SessionEnd: ['session-end', 45],
      PreToolUseResult: ['pre-tool-result', 10],
    };
    assert.deepEqual(Object.keys(doc.hooks).sort(), Object.keys(expected).sort());
    for (const [event, [sub, timeout]] of Object.entries(expected)) {
      const [rule] = doc.hooks[event];
      assert.equal(rule.matcher, undefined, `${event} has no matcher`);
      const [l, bin, base] = [`'${launcher}'`, `'${join(h.home, '.beacon', 'endpoint', 'bin')}'`, `'${join(h.home, '.beacon', 'endpoint')}'`];
      // the one spelling (hooks-file.ts; its shell behaviour: test/unit/hook-command.test.ts), and the guard's parts in it
      const command = hookCommandLine(launcher, log, config, sub);
      assert.ok(command.startsWith(`set -- --platform goose --log '${log}' --config '${config}' ${sub}; [ -r ${l} ] && { [ -O ${l} ] && [ -O ${bin} ] && [ -O ${base} ] && `), command);
      assert.ok(command.includes(`find ${l} ${bin} ${base} `) && command.includes('-prune \\( -type l -o -perm -020 -o -perm -002 \\) -exec false {} +') && command.endsWith(`&& . ${l}`), command);
      assert.deepEqual(rule.hooks, [{ type: 'command', command, timeout, ...(event === 'PreToolUse' ? { on_failure: 'allow' } : {}) }]);
    }
    assert.equal(statSync(launcher).mode & 0o111, 0o111, 'launcher executable');
    const before = statSync(file).mtimeMs;
    const again = beacon(h, ['install', 'goose']);
    assert.match(again.stdout, /already installed/);
    assert.equal(readFileSync(file, 'utf8'), text);
    assert.equal(statSync(file).mtimeMs, before, 'not rewritten');
    assert.match(r.stdout, /otel_exporter_otlp_endpoint: http:\/\/127\.0\.0\.1:4318\notel_exporter_otlp_timeout: 10000/);
    assert.ok(!existsSync(join(h.home, '.config', 'goose', 'config.yaml')), 'config.yaml untouched without --configure-otlp');
  });

  it('the installed command, run by sh -c as goose runs it, records the event', () => {
    const h = fakeHome();
    beacon(h, ['install', 'goose']);
    const { command } = JSON.parse(readFileSync(userHooks(h), 'utf8')).hooks.PreToolUse[0].hooks[0];
    const r = spawnSync('sh', ['-c', command], { input: JSON.stringify({ event: 'PreToolUse', session_id: 's1', tool_call_id: 'c1', tool_name: 'shell', tool_input: { command: 'ls' } }), env: { PATH: '/usr/bin:/bin' }, encoding: 'utf8' });
    assert.deepEqual([r.status, r.stdout], [0, '{"decision":"allow"}'], r.stderr);
    const ev = jsonl(beacon(h, ['events', '--json']).stdout);
    assert.equal(ev[0].event.action, 'tool.invoked');
  });

  it('user scope follows an absolute GOOSE_PATH_ROOT and ignores a relative one; project scope is the cwd', () => {
    const root = tempDir('goose-root-');
    const h = fakeHome({ GOOSE_PATH_ROOT: root });
    beacon(h, ['install', 'goose']);
    assert.ok(existsSync(userHooks(h, root)));
    assert.ok(!existsSync(userHooks(h)));
    const rel = fakeHome({ GOOSE_PATH_ROOT: 'relative/root' });
    beacon(rel, ['install', 'goose']);
    assert.ok(existsSync(userHooks(rel)));
    const p = fakeHome();
    beacon(p, ['install', 'goose', '--scope', 'project']);
    assert.ok(existsSync(join(p.cwd, '.agents', 'plugins', 'beacon-endpoint', 'hooks', 'hooks.json')));
    assert.ok(!existsSync(userHooks(p)));
  });

  it('refuses to overwrite or remove a hooks file holding commands it did not write, naming them; overwrites an empty or unparseable one', () => {
    const h = fakeHome();
    const file = userHooks(h);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: '/opt/other/notify.sh' }] }] } }));
    const r = beacon(h, ['install', 'goose']);
    assert.equal(r.status, 1, 'a refusal is a failure, not a command-line mistake');
    assert.match(r.stderr, /refusing to overwrite .*hooks\.json.*\n.*\/opt\/other\/notify\.sh/);
    const u = beacon(h, ['uninstall', 'goose']);
    assert.equal(u.status, 1);
    assert.match(u.stderr, /refusing to remove/);
    assert.ok(existsSync(file));
    writeFileSync(file, 'not json {');
    assert.equal(beacon(h, ['install', 'goose']).status, 0);
    assert.ok(JSON.parse(readFileSync(file, 'utf8')).hooks.PreToolUse);
  });

  it('uninstall removes only its file and the directories that leaves empty', () => {
    const h = fakeHome();
    beacon(h, ['install', 'goose']);
    const other = join(h.home, '.agents', 'plugins', 'someone-else', 'hooks', 'hooks.json');
    mkdirSync(join(other, '..'), { recursive: true });
    writeFileSync(other, '{}');
    const r = beacon(h, ['uninstall', 'goose']);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(!existsSync(join(h.home, '.agents', 'plugins', 'beacon-endpoint')));
    assert.ok(existsSync(other));
    assert.deepEqual(readdirSync(join(h.home, '.agents', 'plugins')), ['someone-else']);
    assert.match(beacon(h, ['uninstall', 'goose']).stdout, /nothing to remove/);
  });

  it('--configure-otlp edits config.yaml keeping comments and order, after a backup; a second run changes nothing', () => {
    const h = fakeHome();
    const cfgDir = join(h.home, '.config', 'goose');
    mkdirSync(cfgDir, { recursive: true });
    const original = '# my goose\nGOOSE_PROVIDER: anthropic  # the provider\nGOOSE_MODEL: claude-sonnet-4-5\nextensions:\n  developer:\n    enabled: true\n';
    writeFileSync(join(cfgDir, 'config.yaml'), original);
    const r = beacon(h, ['install', 'goose', '--configure-otlp']);
    assert.equal(r.status, 0, r.stderr);
    const edited = readFileSync(join(cfgDir, 'config.yaml'), 'utf8');
    assert.equal(edited, `${original}otel_exporter_otlp_endpoint: http://127.0.0.1:4318\notel_exporter_otlp_timeout: 10000\n`);
    const backups = readdirSync(cfgDir).filter((f) => f.startsWith('config.yaml.beacon-backup-'));
    assert.equal(backups.length, 1);
    assert.equal(readFileSync(join(cfgDir, backups[0]!), 'utf8'), original);
    beacon(h, ['install', 'goose', '--configure-otlp']);
    assert.equal(readdirSync(cfgDir).filter((f) => f.startsWith('config.yaml.beacon-backup-')).length, 1);
    // an existing wrong endpoint is replaced in place
    writeFileSync(join(cfgDir, 'config.yaml'), 'a: 1\notel_exporter_otlp_endpoint: http://127.0.0.1:4317 # old\nb: 2\n');
    beacon(h, ['install', 'goose', '--configure-otlp']);
    assert.equal(readFileSync(join(cfgDir, 'config.yaml'), 'utf8'), 'a: 1\notel_exporter_otlp_endpoint: http://127.0.0.1:4318 # old\nb: 2\notel_exporter_otlp_timeout: 10000\n');
  });

  it("accepts Beacon's goose spellings and refuses GooseAI's names", () => {
    for (const name of ['goose', 'Goose', 'codename-goose', 'block_goose', 'goose-cli']) assert.equal(beacon(fakeHome(), ['install', name]).status, 0, name);
    for (const name of ['gooseai', 'goose-ai', 'goose.ai']) {
      const r = beacon(fakeHome(), ['install', name]);
      assert.equal(r.status, 2, name);
      assert.match(r.stderr, /GooseAI, an LLM inference service/);
    }
  });
});

describe('beacon doctor', () => {
  async function healthy() {
    const h = fakeHome();
    const c = await startCollector({ env: { HOME: h.home } });
    const cfgDir = join(h.home, '.config', 'goose');
    mkdirSync(cfgDir, { recursive: true });
    writeFileSync(join(cfgDir, 'config.yaml'), `otel_exporter_otlp_endpoint: http://127.0.0.1:${c.port}\n`);
    beacon(h, ['install', 'goose']);
    const cfg = join(h.home, '.beacon', 'endpoint', 'config.json');
    writeFileSync(cfg, JSON.stringify({ collector: { port: c.port, log: c.log } }));
    return { h, c };
  }
  const checks = (stdout: string) => Object.fromEntries((JSON.parse(stdout).checks as { id: string; status: string }[]).map((x) => [x.id, x.status]));

  it('a working setup passes every check (collection partial until goose runs), exit 0', async (t) => {
    const { h, c } = await healthy();
    t.after(() => c.stop());
    // goose itself: a stand-in on the PATH (doctor warns when there is none: issue 24 item 7)
    const bin = join(h.home, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'goose'), '#!/bin/sh\necho " 1.51.1"\n', { mode: 0o755 });
    const r = beacon(h, ['doctor', '--json'], { PATH: `${bin}:${process.env.PATH}` });
    await c.stop();
    assert.equal(r.status, 0, r.stdout);
    assert.deepEqual(checks(r.stdout), { collector: 'ok', service: 'ok', goose: 'ok', 'goose-version': 'ok', 'goose-config': 'ok', environment: 'ok', 'content-capture': 'ok', plugin: 'ok', 'plugin-enabled': 'ok', 'plugin-command': 'ok', 'event-log': 'ok', collection: 'warn', 'hook-failures': 'ok' });
  });

  it("says what content capture off means, and warns when goose's log level hides its INFO security records", async (t) => {
    const { h, c } = await healthy();
    t.after(() => c.stop());
    const off = beacon(h, ['doctor'], { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: '' });
    assert.match(off.stdout, /\[ ok \] content-capture\s+content capture off .*no commands, paths or tool outcomes over OTLP — the hooks record them/);
    assert.match(beacon(h, ['doctor'], { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'TRUE' }).stdout, /content capture on/);
    const quiet = beacon(h, ['doctor'], { RUST_LOG: 'goose=debug,warn' });
    assert.equal(quiet.status, 0, 'a warning, not a failure');
    assert.match(quiet.stdout, /\[warn\] log-level\s+RUST_LOG=warn keeps goose's INFO security records/);
    assert.doesNotMatch(beacon(h, ['doctor'], { RUST_LOG: 'info' }).stdout, /log-level/);
    assert.match(beacon(h, ['doctor'], { OTEL_LOG_LEVEL: 'error' }).stdout, /\[warn\] log-level\s+OTEL_LOG_LEVEL=error/);
    await c.stop();
  });

  it('names each trap with a fix, and exits non-zero', async (t) => {
    const { h, c } = await healthy();
    t.after(() => c.stop());
    const cfgYaml = join(h.home, '.config', 'goose', 'config.yaml');
    const cases: [string, () => void, NodeJS.ProcessEnv, string, RegExp][] = [
      ['port 4317', () => writeFileSync(cfgYaml, 'otel_exporter_otlp_endpoint: http://127.0.0.1:4317\n'), {}, 'goose-config', /gRPC port/],
      ['/v1/traces suffix', () => writeFileSync(cfgYaml, `otel_exporter_otlp_endpoint: http://127.0.0.1:${c.port}/v1/traces\n`), {}, 'goose-config', /goose appends it/],
      ['no endpoint', () => writeFileSync(cfgYaml, 'GOOSE_MODEL: x\n'), {}, 'goose-config', /no otel_exporter_otlp_endpoint/],
      ['OTEL_SDK_DISABLED', () => {}, { OTEL_SDK_DISABLED: 'TRUE' }, 'env-sdk-disabled', /turns goose's export off/],
      ['grpc protocol', () => {}, { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'env-protocol', /not HTTP/],
      ['console exporter', () => {}, { OTEL_TRACES_EXPORTER: 'console' }, 'env-traces-exporter', /elsewhere/],
      ['endpoint override', () => {}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector.example:4318' }, 'env-endpoint', /overrides config\.yaml/],
    ];
    for (const [what, arrange, env, id, message] of cases) {
      writeFileSync(cfgYaml, `otel_exporter_otlp_endpoint: http://127.0.0.1:${c.port}\n`);
      arrange();
      const r = beacon(h, ['doctor'], env);
      assert.equal(r.status, 1, what);
      assert.match(r.stdout, new RegExp(`\\[(FAIL|warn)\\] ${id}\\s+.*`), what);
      assert.match(r.stdout, message, what);
      assert.match(r.stdout, /fix: /, what);
    }
    await c.stop();
    const down = beacon(h, ['doctor', '--json']);
    assert.equal(checks(down.stdout).collector, 'fail');
  });

  it('plugin checks: missing, disabled in config.yaml or any settings.json, shadowed, broken command', async (t) => {
    const { h, c } = await healthy();
    t.after(() => c.stop());
    const root = join(h.home, '.agents', 'plugins', 'beacon-endpoint');
    const cfgYaml = join(h.home, '.config', 'goose', 'config.yaml');
    const base = `otel_exporter_otlp_endpoint: http://127.0.0.1:${c.port}\n`;
    writeFileSync(cfgYaml, `${base}plugins:\n  ${root}:\n    enabled: false\n`);
    let r = beacon(h, ['doctor']);
    assert.match(r.stdout, /\[FAIL\] plugin-enabled .*enabled is false/);
    writeFileSync(cfgYaml, base);
    for (const settings of [join(h.cwd, '.config', 'goose', 'settings.local.json'), join(h.cwd, '.config', 'goose', 'settings.json'), join(h.home, '.config', 'goose', 'settings.json')]) {
      mkdirSync(join(settings, '..'), { recursive: true });
      writeFileSync(settings, JSON.stringify({ disabledPlugins: ['beacon-endpoint'] }));
      r = beacon(h, ['doctor']);
      assert.match(r.stdout, new RegExp(`plugin-enabled .*${settings.replace(/[.]/g, '\\.')} lists it`));
      writeFileSync(settings, '{}');
    }
    // goose's own rules: the most specific file that names the plugin decides; an object-shaped
    // list fails goose's parse (the file is ignored); the user file is ~/.config/goose even with XDG set
    const local = join(h.cwd, '.config', 'goose', 'settings.local.json');
    const project = join(h.cwd, '.config', 'goose', 'settings.json');
    writeFileSync(project, JSON.stringify({ disabledPlugins: ['beacon-endpoint'] }));
    writeFileSync(local, JSON.stringify({ enabledPlugins: ['beacon-endpoint'] }));
    assert.match(beacon(h, ['doctor']).stdout, /\[ ok \] plugin-enabled/, 'local enabledPlugins overrides project disabledPlugins');
    writeFileSync(local, '{}');
    writeFileSync(project, JSON.stringify({ disabledPlugins: { 'beacon-endpoint': true } }));
    assert.match(beacon(h, ['doctor']).stdout, /\[ ok \] plugin-enabled/, 'object form: goose ignores the file');
    writeFileSync(project, JSON.stringify({ disabledPlugins: [root] }));
    assert.match(beacon(h, ['doctor']).stdout, /\[ ok \] plugin-enabled/, 'goose matches the name, not the root path');
    writeFileSync(project, '{}');
    const xdg = join(h.home, 'xdg');
    mkdirSync(join(xdg, 'goose'), { recursive: true });
    writeFileSync(join(xdg, 'goose', 'settings.json'), JSON.stringify({ disabledPlugins: ['beacon-endpoint'] }));
    writeFileSync(join(h.home, '.config', 'goose', 'settings.json'), JSON.stringify({ disabledPlugins: ['beacon-endpoint'] }));
    r = beacon(h, ['doctor'], { XDG_CONFIG_HOME: xdg });
    assert.match(r.stdout, new RegExp(`plugin-enabled .*${join(h.home, '.config', 'goose', 'settings.json').replace(/[.]/g, '\\.')} lists it`));
    assert.doesNotMatch(r.stdout, /xdg\/goose\/settings\.json/);
    writeFileSync(join(h.home, '.config', 'goose', 'settings.json'), '{}');
    beacon(h, ['install', 'goose', '--scope', 'project']);
    assert.match(beacon(h, ['doctor']).stdout, /\[ ok \] plugin\s+project scope: .*shadows the user-scope plugin/);
    require('node:fs').rmSync(join(h.home, '.beacon', 'endpoint', 'bin', 'beacon-hooks'));
    assert.match(beacon(h, ['doctor']).stdout, /\[FAIL\] plugin-command .*not an executable file/);
    beacon(h, ['uninstall', 'goose', '--scope', 'project']);
    beacon(h, ['uninstall', 'goose']);
    assert.match(beacon(h, ['doctor']).stdout, /\[FAIL\] plugin\s+no beacon-endpoint plugin/);
    await c.stop();
  });

  it('reports a setup with only one collection path as partial', async (t) => {
    const { h, c } = await healthy();
    t.after(() => c.stop());
    const { command } = JSON.parse(readFileSync(userHooks(h), 'utf8')).hooks.SessionStart[0].hooks[0];
    const cfg = JSON.parse(readFileSync(join(h.home, '.beacon', 'endpoint', 'config.json'), 'utf8'));
    spawnSync('sh', ['-c', command.replace(/--log '[^']*'/, `--log '${cfg.collector.log}'`)], { input: '{"event":"SessionStart","session_id":"s"}' });
    const r = beacon(h, ['doctor']);
    await c.stop();
    assert.match(r.stdout, /\[warn\] collection\s+no otlp event yet; last hook event .* partial: no token usage/);
  });
});

describe('beacon service', () => {
  function freePort(): Promise<number> {
    return new Promise((resolve) => {
      const s = require('node:net').createServer().listen(0, '127.0.0.1', () => {
        const p = s.address().port;
        s.close(() => resolve(p));
      });
    });
  }

  it('renders a systemd user unit that systemd-analyze accepts, and its ExecStart, run as written, serves', async () => {
    const h = fakeHome();
    const port = await freePort();
    const r = beacon(h, ['service', 'install', '--kind', 'systemd', '--port', String(port)]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /systemctl --user daemon-reload\n\s+systemctl --user enable --now beacon-collector\.service/);
    const unit = join(h.home, '.config', 'systemd', 'user', 'beacon-collector.service');
    const text = readFileSync(unit, 'utf8');
    assert.match(text, /^Restart=on-failure$/m);
    assert.match(text, /--host 127\.0\.0\.1/);
    // issue 25: the daemon's Node options (src/config/node-flags.ts: its young generation and heap growth)
    assert.equal(/^ExecStart="[^"]+" (.*?) "/m.exec(text)?.[1], COLLECTOR_NODE_FLAGS.join(' '));
    // and `npm start`, the third place that starts the daemon
    const start = (JSON.parse(readFileSync(join(repoRoot(), 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
    assert.equal(/^exec node (.*?) dist\//.exec(start)?.[1], COLLECTOR_NODE_FLAGS.join(' '));
    if (spawnSync('which', ['systemd-analyze']).status === 0) {
      const v = spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' });
      assert.equal(v.status, 0, v.stderr);
    }
    const exec = /^ExecStart=(.*)$/m.exec(text)![1]!;
    const args = [...exec.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)].map((m) => (m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]!));
    const child = spawn(args[0]!, args.slice(1), { env: h.env, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let body: { status?: string } = {};
      for (let i = 0; i < 50 && body.status !== 'ok'; i++) {
        await new Promise((res) => setTimeout(res, 100));
        body = await fetch(`http://127.0.0.1:${port}/health`).then((x) => x.json() as Promise<{ status?: string }>, () => ({}));
      }
      assert.equal(body.status, 'ok');
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(beacon(h, ['service', 'status', '--kind', 'systemd']).status, 0);
    assert.match(beacon(h, ['service', 'uninstall', '--kind', 'systemd']).stdout, /removed .*beacon-collector\.service/);
    assert.ok(!existsSync(unit));
  });

  it('renders a launchd agent plist that parses as a property list with the absolute paths of this install', () => {
    const h = fakeHome();
    beacon(h, ['service', 'install', '--kind', 'launchd']);
    const plist = join(h.home, 'Library', 'LaunchAgents', 'com.beacon.collector.plist');
    const parsed = spawnSync('python3', ['-c', 'import json,plistlib,sys; print(json.dumps(plistlib.load(open(sys.argv[1],"rb"))))', plist], { encoding: 'utf8' });
    assert.equal(parsed.status, 0, parsed.stderr);
    const p = JSON.parse(parsed.stdout);
    assert.equal(p.Label, 'com.beacon.collector');
    assert.deepEqual(p.ProgramArguments, [process.execPath, ...COLLECTOR_NODE_FLAGS, BEACON_BIN, 'collector', '--host', '127.0.0.1', '--port', '4318', '--log', join(h.home, '.beacon', 'endpoint', 'events.db')]);
    assert.equal(p.RunAtLoad, true);
    assert.deepEqual(p.KeepAlive, { SuccessfulExit: false });
    assert.equal(p.StandardOutPath, join(h.home, 'Library', 'Logs', 'Beacon', 'collector.log'));
  });
});
