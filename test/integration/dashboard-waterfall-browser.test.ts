import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type BrowserContext } from 'playwright-core';
import { agentBinary, runAgent } from '../helpers/agent-cli';
import { startCollector, type RunningCollector } from '../helpers/daemon';
import { startMockModel } from '../helpers/mock-model';
import { tempDir } from '../helpers/paths';

/**
 * A real Copilot CLI session (the lab's pinned CLI against the mock model: it writes a file, then runs
 * a command that fails) drawn as a waterfall in Debian's Chromium: a bar for each of its calls, nested
 * under the agent turn, and no two labels of the waterfall or its trend charts overlapping.
 */
const CHROMIUM = '/usr/bin/chromium';
const copilot = agentBinary('copilot');
const skip = !existsSync(CHROMIUM) ? `${CHROMIUM} missing (apt-get install chromium)` : copilot.skip ? `${copilot.skip} (then: node scripts/run-tests.js integration/dashboard-waterfall-browser)` : false;

describe('session waterfall in Chromium', { skip }, () => {
  let collector: RunningCollector;
  let browser: BrowserContext;

  before(async () => {
    collector = await startCollector();
    const work = tempDir('copilot-project-');
    const mock = await startMockModel({ twoTools: { path: join(work, 'NOTES.md'), content: '# notes\n', command: 'ls build/' } });
    try {
      const r = await runAgent('copilot', { mockUrl: mock.url, otlpBaseUrl: collector.url, protocol: 'http/json', home: tempDir('copilot-home-'), workdir: work, timeoutMs: 120_000, prompt: 'Add a short NOTES.md, then list the build output.' });
      assert.equal(r.code, 0, r.stderr.slice(-2000));
    } finally {
      await mock.close();
    }
    browser = await chromium.launchPersistentContext(tempDir('chromium-'), {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1280, height: 900 },
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
  });
  after(async () => {
    await browser?.close();
    await collector?.stop();
  });

  it('draws a bar per call, nested under the turn, with no overlapping labels', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    let id: string | null = null;
    // the last export batches land a moment after the CLI exits
    for (let i = 0; i < 20 && !id; i++) {
      await page.goto(`${collector.url}/sessions?since=all`, { waitUntil: 'load' });
      id = await page.locator('#sessions tr[data-session]').first().getAttribute('data-session', { timeout: 500 }).catch(() => null);
      if (!id) await new Promise((r) => setTimeout(r, 250));
    }
    assert.ok(id, 'the session is listed');
    await page.waitForTimeout(1000);
    const res = await page.goto(`${collector.url}/session?id=${encodeURIComponent(id)}`, { waitUntil: 'load' });
    assert.equal(res?.status(), 200);
    await page.waitForSelector('#waterfall g.wf-row');
    const rows = await page.locator('#waterfall g.wf-row').evaluateAll((gs) => gs.map((g) => [g.getAttribute('data-kind'), g.getAttribute('data-depth'), (g.querySelector('rect') as unknown as { getBoundingClientRect(): { width: number } }).getBoundingClientRect().width]));
    const kinds = rows.map((r) => r[0]);
    assert.equal(kinds.filter((k) => k === 'model').length, 3, `three model calls: ${JSON.stringify(rows)}`);
    assert.equal(kinds.filter((k) => k === 'tool').length, 2, 'two tool calls, each one bar');
    assert.equal(rows[0]![0], 'step', 'the agent turn first');
    assert.ok(rows.slice(1).every((r) => r[1] === '1'), 'calls nested under the turn');
    assert.ok(rows.every((r) => (r[2] as number) >= 1), 'every bar visible');
    assert.equal(await page.locator('#waterfall rect.wf-failed').count(), 1, 'the failed command');

    for (const chart of ['#waterfall', '#latency-chart', '#cost-chart']) {
      const boxes = await page.locator(`${chart} text`).evaluateAll((ts) => ts.filter((t) => (t.textContent ?? '') !== '').map((t) => {
        const b = (t as unknown as { getBoundingClientRect(): { left: number; right: number; top: number; bottom: number } }).getBoundingClientRect();
        return { text: t.textContent, left: b.left, right: b.right, top: b.top, bottom: b.bottom };
      }));
      assert.ok(boxes.length > 3, `${chart} has labels`);
      for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
        const [a, b] = [boxes[i]!, boxes[j]!];
        const overlap = a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
        assert.ok(!overlap, `${chart}: "${a.text}" overlaps "${b.text}"`);
      }
    }
    assert.deepEqual(problems, []);
  });
});
