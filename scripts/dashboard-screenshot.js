#!/usr/bin/env node
// The README's dashboard pictures, made from real data: a fresh collector on a temp HOME and log,
// real agent CLIs from the agents lab (test/agents) run against the mock model with their OTLP
// export pointed at it, then the Overview and Sessions pages shot in Debian's Chromium at 1280×800.
// Reproducible on purpose: a picture of a hand-made log (or of the XSS corpus) would show what
// Beacon is tested against, not what a person sees after an agent ran.
//
//   npm run build && node scripts/dashboard-screenshot.js    (or: npm run screenshot)
//
// Needs the build (it drives dist/src/bin/beacon.js and the compiled lab helpers in dist/test/helpers),
// /usr/bin/chromium, and the lab's CLIs (`npm ci --prefix test/agents`); an agent not installed is
// left out, saying why. Everything it starts is stopped and its temp dir removed, even on failure.
'use strict';
const { spawn } = require('node:child_process');
const { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { createInterface } = require('node:readline');

const root = join(__dirname, '..');
const helpers = join(root, 'dist', 'test', 'helpers');
const BEACON_BIN = join(root, 'dist', 'src', 'bin', 'beacon.js');
const CHROMIUM = '/usr/bin/chromium';
const OUT = join(root, 'docs', 'images');
const VIEWPORT = { width: 1280, height: 800 };
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

for (const [what, path] of [['the build (npm run build)', BEACON_BIN], ['the compiled lab helpers (npm run build)', join(helpers, 'agent-cli.js')], ['Chromium (apt-get install chromium)', CHROMIUM]]) {
  if (!existsSync(path)) {
    console.error(`dashboard-screenshot: ${what} is missing: ${path}`);
    process.exit(1);
  }
}
const { agentBinary, runAgent } = require(join(helpers, 'agent-cli.js'));
const { startMockModel } = require(join(helpers, 'mock-model.js'));
const { chromium } = require('playwright-core');

/**
 * Which agents, and which mock script each gets. Codex's lab model offers no edit tool, so it plays
 * the one-tool script (a shell command); the others write a file, then run a command that fails.
 * Claude Code and Qwen Code show up once test/agents holds the lab's pins (agentBinary says why not).
 */
const RUNS = [
  { agent: 'claude', twoTools: true },
  { agent: 'codex', twoTools: false },
  { agent: 'gemini', twoTools: true },
  { agent: 'qwen', twoTools: true },
  { agent: 'copilot', twoTools: true },
  { agent: 'opencode', twoTools: true },
];
const PROMPT = 'Add a short NOTES.md for the release, then list the build output.';

/** The collector as a user starts it; its address comes from the 'collector ready' line (as test/helpers/daemon.ts reads it). */
async function startCollector(home, log) {
  const proc = spawn(process.execPath, [BEACON_BIN, 'collector', '--port', '0', '--grpc-port', '0', '--log', log], {
    env: { ...process.env, HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  const address = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`collector did not start: ${stderr}`)), 15000);
    createInterface({ input: proc.stdout }).on('line', (line) => {
      let j;
      try {
        j = JSON.parse(line);
      } catch {
        return;
      }
      if (j.msg === 'collector ready') {
        clearTimeout(timer);
        resolve(j.address);
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`collector exited with ${code}: ${stderr}`));
    });
  });
  return {
    url: `http://127.0.0.1:${new URL(address).port}`,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await exited;
    },
  };
}

/** One real agent run exporting OTLP into the collector; each agent has its own HOME and project dir. */
async function recordRun(run, base, collectorUrl) {
  const found = agentBinary(run.agent);
  if (!found.path) {
    console.error(`dashboard-screenshot: ${run.agent} left out: ${found.skip}`);
    return false;
  }
  const work = join(base, `${run.agent}-project`);
  // the write tools want an absolute path; the failing command: `ls` of a directory that is not there exits 2
  const script = { path: join(work, 'NOTES.md'), content: '# Release notes\n\n- dashboard pictures from real agent runs\n', command: 'ls build/' };
  const mock = await startMockModel(run.twoTools ? { twoTools: script } : {});
  const opts = { mockUrl: mock.url, otlpBaseUrl: collectorUrl, protocol: 'http/json', home: join(base, `${run.agent}-home`), workdir: work, timeoutMs: 120_000 };
  if (run.twoTools) opts.prompt = PROMPT;
  const started = Date.now();
  let r;
  try {
    r = await runAgent(run.agent, opts);
  } finally {
    await mock.close();
  }
  console.error(`dashboard-screenshot: ${run.agent} exited ${r.code}${r.timedOut ? ' (timed out)' : ''} in ${Date.now() - started} ms`);
  if (r.code !== 0) console.error(r.stderr.slice(-2000));
  return r.code === 0;
}

async function shoot(collectorUrl, profile) {
  const browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, viewport: VIEWPORT, args: CHROMIUM_ARGS });
  try {
    mkdirSync(OUT, { recursive: true });
    for (const [path, name] of [['/', 'dashboard-overview'], ['/sessions', 'dashboard-sessions']]) {
      const page = await browser.newPage();
      const res = await page.goto(`${collectorUrl}${path}`, { waitUntil: 'load' });
      if (res?.status() !== 200) throw new Error(`${path}: status ${res?.status()}`);
      // the client module ran (it marks the live region), so what is shot is the finished page
      await page.waitForSelector('#live[data-polling="on"]', { state: 'attached', timeout: 10_000 });
      const file = join(OUT, `${name}.png`);
      await page.screenshot({ path: file });
      console.error(`dashboard-screenshot: wrote ${file} (${Math.round(statSync(file).size / 1024)} KB)`);
      await page.close();
    }
    await shootWaterfall(browser, collectorUrl);
  } finally {
    await browser.close();
  }
}

/**
 * One session's waterfall (docs/images/session-waterfall.png): Copilot CLI's, whose spans nest
 * (invoke_agent → chat / execute_tool), else the first session listed. Found on the Sessions page.
 */
async function shootWaterfall(browser, collectorUrl) {
  const page = await browser.newPage();
  await page.goto(`${collectorUrl}/sessions?since=all`, { waitUntil: 'load' });
  const ids = await page.locator('#sessions tr[data-session]').evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-session'), r.innerText]));
  const chosen = ids.find(([, text]) => text.includes('copilot-cli')) ?? ids[0];
  if (!chosen) throw new Error('no session to draw a waterfall of');
  const res = await page.goto(`${collectorUrl}/session?id=${encodeURIComponent(chosen[0])}`, { waitUntil: 'load' });
  if (res?.status() !== 200) throw new Error(`/session: status ${res?.status()}`);
  await page.waitForSelector('#waterfall g.wf-row', { timeout: 10_000 });
  const file = join(OUT, 'session-waterfall.png');
  // the heading down to the trend charts: the waterfall with its latency and cost beside the timeline's start
  const top = await page.locator('h2', { hasText: 'Waterfall' }).boundingBox();
  const bottom = await page.locator('h2', { hasText: 'Timeline' }).boundingBox();
  await page.setViewportSize({ width: VIEWPORT.width, height: Math.ceil(bottom.y + 40) });
  await page.screenshot({ path: file, clip: { x: 0, y: Math.max(0, top.y - 8), width: VIEWPORT.width, height: Math.ceil(bottom.y - top.y + 8) } });
  console.error(`dashboard-screenshot: wrote ${file} (${Math.round(statSync(file).size / 1024)} KB)`);
  await page.close();
}

async function main() {
  const base = mkdtempSync(join(tmpdir(), 'beacon-screenshot-'));
  const home = join(base, 'home');
  mkdirSync(home);
  let collector;
  try {
    collector = await startCollector(home, join(base, 'events.db'));
    let recorded = 0;
    for (const run of RUNS) if (await recordRun(run, base, collector.url)) recorded++;
    if (recorded === 0) throw new Error('no agent run succeeded: nothing to show');
    // the last batches (metrics, logs) are exported at exit; give the collector a moment to commit them
    await new Promise((r) => setTimeout(r, 1500));
    await shoot(collector.url, join(base, 'chromium-profile'));
  } finally {
    await collector?.stop();
    rmSync(base, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(`dashboard-screenshot: ${e.stack ?? e}`);
  process.exitCode = 1;
});
