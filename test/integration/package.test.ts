import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { jsonl } from '../helpers/daemon';
import { repoRoot, tempDir } from '../helpers/paths';

const root = repoRoot();
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/**
 * The package as a user gets it: `npm pack`, then `npm install -g` of the tarball into a temporary
 * prefix, then the installed commands. The one shortcut: the SQLite driver's compiled addon is
 * copied from this checkout instead of compiled again (two minutes of g++; same version, same
 * Node) — what is tested is our tarball, not node-gyp.
 */
describe('the npm package', () => {
  // Issue 24 item 12 (fails on main: npm warned that protobufjs' postinstall is not in allowScripts).
  // protobufjs 7 (under the OTLP test tools) has a postinstall that only warns about its own version
  // scheme: denied, so installs end without the warning and the decision is written down.
  it('every dependency install script is approved or denied in allowScripts', (t) => {
    const ls = spawnSync('npm', ['install-scripts', 'ls'], { cwd: root, encoding: 'utf8' });
    if (ls.status !== 0 && /Unknown command|not a valid/i.test(ls.stdout + ls.stderr)) return t.skip(`this npm has no install-scripts command`);
    assert.equal(ls.status, 0, ls.stderr);
    assert.doesNotMatch(ls.stdout + ls.stderr, /not yet covered by allowScripts/, ls.stdout);
  });

  it('packs, installs into a temporary prefix without EBADENGINE, and its beacon and hook launcher work', { timeout: 300_000 }, () => {
    assert.equal(pkg.private, undefined, 'publishable');
    const work = tempDir('pack-');
    const pack = spawnSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: root, encoding: 'utf8' });
    assert.equal(pack.status, 0, pack.stderr);
    const [info] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
    const files = info!.files.map((f) => f.path);
    for (const f of ['data/price-catalog.json', 'dist/beacon-hooks.js', 'dist/src/bin/beacon.js', 'systemd/beacon-collector.service', 'launchd/com.beacon.collector.plist', 'proto/otlp.proto', 'README.md', 'examples/goose-span.json', 'examples/hook-pre-tool.json']) {
      assert.ok(files.includes(f), `the tarball holds ${f}`);
    }
    assert.ok(!files.some((f) => f.startsWith('dist/test/') || f.startsWith('src/') || f.startsWith('test/')), 'no tests or sources');

    const prefix = join(work, 'prefix');
    const install = spawnSync('npm', ['install', '-g', '--prefix', prefix, '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund', join(work, info!.filename)], { encoding: 'utf8', env: { ...process.env, npm_config_loglevel: 'warn' } });
    assert.equal(install.status, 0, install.stderr);
    assert.doesNotMatch(install.stdout + install.stderr, /EBADENGINE/, 'every dependency supports the Node.js engines names');
    const installed = join(prefix, 'lib', 'node_modules', pkg.name);
    const addonDir = join(installed, 'node_modules', 'better-sqlite3', 'build', 'Release');
    mkdirSync(addonDir, { recursive: true });
    copyFileSync(join(root, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'), join(addonDir, 'better_sqlite3.node'));

    const bin = join(prefix, 'bin');
    const home = tempDir('pack-home-');
    const env = { ...process.env, HOME: home, PATH: `${bin}:${process.env.PATH}`, XDG_CONFIG_HOME: '', GOOSE_PATH_ROOT: '', BEACON_ENDPOINT_LOG: '', BEACON_SERVICE_NO_ACTIVATE: '1' };
    const run = (cmd: string, args: string[], input?: string) => spawnSync(cmd, args, { env, cwd: home, encoding: 'utf8', input });
    const version = run('beacon', ['--version']);
    assert.deepEqual([version.status, version.stdout], [0, `beacon ${pkg.version}\n`], version.stderr);

    // the hook launcher beacon install goose writes, run as goose runs it
    assert.equal(run('beacon', ['install', 'goose']).status, 0);
    const hooks = JSON.parse(readFileSync(join(home, '.agents', 'plugins', 'beacon-endpoint', 'hooks', 'hooks.json'), 'utf8'));
    const command = hooks.hooks.PreToolUse[0].hooks[0].command as string;
    assert.match(command, new RegExp(`&& \\. '${join(home, '.beacon', 'endpoint', 'bin', 'beacon-hooks')}'$`));
    const hook = spawnSync('sh', ['-c', command], { input: readFileSync(join(root, 'examples', 'hook-pre-tool.json')), env: { PATH: '/usr/bin:/bin', HOME: home }, encoding: 'utf8' });
    assert.deepEqual([hook.status, hook.stdout, hook.stderr], [0, '{"decision":"allow"}', '']);
    const events = jsonl(run('beacon', ['events', '--json']).stdout);
    assert.equal(events[0].event.action, 'tool.invoked');

    // token-usage reads the price catalog from the installed data/
    const usage = run('beacon', ['token-usage', '--json']);
    assert.equal(usage.status, 0, usage.stderr);
    assert.match(JSON.parse(usage.stdout).price_catalog.source, /litellm/);
  });

  it('no locked dependency asks for a newer Node.js than engines names', () => {
    const min = /^>=\s*(\d+)(?:\.(\d+))?/.exec(pkg.engines.node)!;
    const ours = [Number(min[1]), Number(min[2] ?? 0)];
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
    const offenders: string[] = [];
    for (const [path, p] of Object.entries(lock.packages as Record<string, { engines?: { node?: string }; dev?: boolean }>)) {
      const need = p.engines?.node;
      if (!path || p.dev || !need) continue;
      // every alternative of the range must start at or below ours: ">=22", "^22 || ^24" exclude 20
      const lows = need.split('||').map((alt) => /(\d+)(?:\.(\d+))?/.exec(alt)?.slice(1).map((x) => Number(x ?? 0)) ?? [0, 0]);
      if (!lows.some(([maj, minor]) => maj! < ours[0]! || (maj === ours[0] && minor! <= ours[1]!))) offenders.push(`${path} wants node ${need}`);
    }
    assert.deepEqual(offenders, []);
  });
});
