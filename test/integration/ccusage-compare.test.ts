/**
 * Beacon beside ccusage on the agents' own session files, one agent per row of CCUSAGE_ROWS
 * (test/helpers/ccusage-rows.ts): a real lab run each (a few seconds) for every agent of the lab
 * both tools read (Claude Code, Codex, Gemini CLI, Qwen Code, opencode, Copilot CLI, Pi), and
 * goose's sessions.db from its documented schema (no goose CLI here).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { beaconSums, CCUSAGE_ROWS, ccusageSkip, compareOn, labRun, sideBySide } from '../helpers/ccusage-compare';

describe('beacon import + token-usage --by day beside ccusage daily, on the same files of a real run', () => {
  for (const row of CCUSAGE_ROWS) {
    it(`${row.agent}: the same tokens per day and model, or exactly the difference by design`, { skip: ccusageSkip(row.agent), timeout: 120_000 }, async (t) => {
      const c = compareOn(row, await labRun(row.agent));
      for (const line of sideBySide([c]).split('\n')) t.diagnostic(line);
      assert.ok(c.cells.length > 0, 'both tools found the run\'s calls');
      // Beacon holds the mock's truth, so each expected ccusage figure below is a function of what the mock sent
      assert.deepEqual(beaconSums(c), c.truth, 'Beacon\'s import: the calls the store recorded, in disjoint buckets');
      for (const x of c.cells) {
        assert.ok(x.beacon !== null, `${x.at}: ccusage has it, Beacon has not`);
        assert.deepEqual(x.ccusage, x.expected, `${x.at}: ccusage's report, by design: ${row.why}`);
      }
    });
  }
});
