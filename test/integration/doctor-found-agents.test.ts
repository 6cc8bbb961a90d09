/**
 * Issue 33: plain `beacon doctor` checks the agents it finds on this machine, and only those. On main
 * a home with only Claude Code got two FAILs about goose (its config.yaml, its plugin) and exit 1;
 * a home with no agent got the same, and no word that no agent was found.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startCollector } from '../helpers/daemon';
import { beaconIn, fakeHome, type Home } from '../helpers/fake-home';

type CheckRow = { id: string; status: string; message: string };
const checks = (stdout: string) => JSON.parse(stdout).checks as CheckRow[];
// PATH without the lab's agent CLIs or a goose: what is found comes from the home alone.
const PATH = { PATH: '/usr/bin:/bin' };

async function homeWithCollector(t: { after(fn: () => unknown): void }): Promise<Home> {
  const c = await startCollector();
  t.after(() => c.stop());
  const h = fakeHome();
  mkdirSync(join(h.home, '.beacon', 'endpoint'), { recursive: true, mode: 0o700 });
  writeFileSync(join(h.home, '.beacon', 'endpoint', 'config.json'), JSON.stringify({ collector: { port: c.port, log: c.log } }));
  return h;
}

describe('plain beacon doctor: the agents found here, and only those', () => {
  it('a home with only Claude Code (set up): its line, no goose line, exit 0', async (t) => {
    const h = await homeWithCollector(t);
    assert.equal(beaconIn(h, ['install', 'claude-code'], PATH).status, 0);
    const r = beaconIn(h, ['doctor', '--json'], PATH);
    const rows = checks(r.stdout);
    assert.equal(r.status, 0, r.stdout);
    assert.equal(rows.find((c) => c.id === 'collector')?.status, 'ok', r.stdout);
    assert.match(rows.find((c) => c.id === 'agent:claude-code')?.message ?? '', /^Claude Code \(.*\.claude exists\): set up in /);
    const goose = rows.filter((c) => /goose|plugin/.test(c.id) || /goose/i.test(c.message));
    assert.deepEqual(goose, [], 'no goose line for a home without goose');
    const text = beaconIn(h, ['doctor'], PATH);
    assert.equal(text.status, 0);
    assert.doesNotMatch(text.stdout, /goose/i);
  });

  it('a home with no agent: says no agent was found, exit 0', async (t) => {
    const h = await homeWithCollector(t);
    const r = beaconIn(h, ['doctor', '--json'], PATH);
    assert.equal(r.status, 0, r.stdout);
    const rows = checks(r.stdout);
    const none = rows.find((c) => c.id === 'agents');
    assert.ok(none, r.stdout);
    assert.match(none.message, /^no agent found on this machine \(none of .*goose.* on PATH, no config directory\)/);
    assert.deepEqual(rows.filter((c) => c.id.startsWith('agent:') || /^(goose|plugin)/.test(c.id)), []);
    assert.match(beaconIn(h, ['doctor'], PATH).stdout, /\[warn\] agents\s+no agent found on this machine/);
  });

  it('goose found (its config directory): checked in full, as beacon doctor goose checks it', async (t) => {
    const h = await homeWithCollector(t);
    mkdirSync(join(h.home, '.config', 'goose'), { recursive: true });
    const plain = checks(beaconIn(h, ['doctor', '--json'], PATH).stdout).map((c) => c.id);
    const named = checks(beaconIn(h, ['doctor', 'goose', '--json'], PATH).stdout).map((c) => c.id);
    assert.deepEqual(plain, named);
    assert.ok(plain.includes('goose-config') && plain.includes('plugin'), plain.join(' '));
  });

  it('an alias names the agent (claude), and an unknown name says which there are', () => {
    const h = fakeHome();
    assert.ok(checks(beaconIn(h, ['doctor', 'claude', '--json'], PATH).stdout).some((c) => c.id === 'claude-code'));
    const r = beaconIn(h, ['doctor', 'cluade'], PATH);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /unknown agent "cluade" \(did you mean "claude"\?\) \(expected goose, claude-code, /);
  });
});

describe('beacon install|uninstall goose through the same commands', () => {
  it('one half only is refused for goose, before anything changes (its setup is one step)', () => {
    const h = fakeHome();
    for (const cmd of ['install', 'uninstall']) {
      const r = beaconIn(h, [cmd, 'goose', '--otlp-only'], PATH);
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, /--hooks-only and --otlp-only do not apply/);
    }
    assert.equal(beaconIn(h, ['install', 'goose'], PATH).status, 0);
    assert.equal(beaconIn(h, ['uninstall', 'goose', '--otlp-only'], PATH).status, 2);
    assert.ok(existsSync(join(h.home, '.agents', 'plugins', 'beacon-endpoint', 'hooks', 'hooks.json')), 'the plugin stays');
  });
});

describe("plain beacon doctor with the agents lab's CLIs on PATH", () => {
  const LAB_PATH = { PATH: `${join(__dirname, '..', '..', '..', 'test', 'agents', 'node_modules', '.bin')}:/usr/bin:/bin` };
  it("a line per agent found, a hooks-only one (Cline) included, each with its version beside the lab's", async (t) => {
    if (!existsSync(join(LAB_PATH.PATH.split(':')[0]!, 'claude'))) return t.skip('the agents lab is not installed: npm ci --prefix test/agents');
    const h = await homeWithCollector(t);
    const r = beaconIn(h, ['doctor', '--json'], LAB_PATH);
    assert.equal(r.stderr, '', 'no crash');
    const rows = checks(r.stdout);
    for (const id of ['claude-code', 'codex', 'gemini-cli', 'qwen-code', 'opencode', 'copilot-cli', 'cline']) {
      const line = rows.find((c) => c.id === `agent:${id}`);
      assert.ok(line, `${id}: ${r.stdout}`);
      assert.match(line.message, /; version \d+\.\d+\.\d+, the version Beacon's agents lab tested\)/, line.message);
    }
    assert.match(rows.find((c) => c.id === 'agent:cline')!.message, /no OTLP export to set up: its events come from Beacon's hooks/);
  });
});
