/**
 * Beacon beside ccusage on the real CLIs' own session files, one agent per row of CCUSAGE_ROWS
 * (test/helpers/ccusage-compare.ts): a lab run each (a few seconds; Claude Code and Codex now, the
 * agents Beacon imports), so the file stays well within the runner's per-file bound.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CCUSAGE_ROWS, ccusageSkip, compareOn, labRun, sideBySide } from '../helpers/ccusage-compare';

describe('beacon import + token-usage --by day beside ccusage daily, on the same files of a real run', () => {
  for (const row of CCUSAGE_ROWS) {
    it(`${row.agent}: the same tokens per day and model, or exactly the difference by design`, { skip: ccusageSkip(row.agent), timeout: 120_000 }, async (t) => {
      const c = compareOn(row, await labRun(row.agent));
      for (const line of sideBySide([c]).split('\n')) t.diagnostic(line);
      assert.ok(c.cells.length > 0, 'both tools found the run\'s calls');
      for (const x of c.cells) {
        assert.ok(x.beacon !== null, `${x.at}: ccusage has it, Beacon has not`);
        assert.deepEqual(x.ccusage, x.expected, `${x.at}: ccusage's report, by design: ${row.why}`);
      }
    });
  }
});
