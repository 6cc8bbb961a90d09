/**
 * Issue 30's "done means", agents part 2 of 2 (the runner bounds each file at 180 s): a fresh
 * home, `beacon install <agent>` alone (hooks and OTLP, content capture off), one real run against
 * the mock model's two-tool script, and in the log the prompt's text, the write with its diff, the
 * failing command with its line, one row per call across paths. A missing CLI is a skip.
 */
import { describe, it } from 'node:test';
import type { AgentName } from '../helpers/agent-cli';
import { assertInstallAlone } from '../helpers/install-both-checks';
import { installAloneRun } from '../helpers/install-both-lab';

const RUNS: Array<[AgentName, string]> = [['qwen', 'qwen-code'], ['opencode', 'opencode'], ['copilot', 'copilot-cli']];

describe('beacon install <agent> alone, then one real run: prompt, write and diff, failing command, one row per call', () => {
  for (const [agent, id] of RUNS) {
    it(id, { timeout: 150_000 }, async (t) => {
      const r = await installAloneRun(t, agent, id, agent === 'codex' ? ['--dangerously-bypass-hook-trust'] : []);
      if (r) assertInstallAlone(r, id);
    });
  }
});
