/**
 * The real claude CLI (the agents lab's pin) in its stream mode on the mock's two-tool script, its
 * stdout piped through the compiled `beacon stream`. A missing CLI is a skip with its reason, never a pass.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentBinary } from '../helpers/agent-cli';
import { jsonl, runBeacon, startCollector } from '../helpers/daemon';
import { checkStreamRun, sessionUsage, streamLabRun } from '../helpers/stream-lab';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('claude -p --output-format stream-json --verbose | beacon stream claude-code --tee', () => {
  const found = agentBinary('claude');
  it('the write, the failed Bash (exit 2 from its result text), the message; the result\'s usage, never the placeholder output of 1', { skip: found.skip, timeout: 150_000 }, async () => {
    const r = await streamLabRun('claude');
    checkStreamRun('claude', r, { types: ['write', 'command', 'agent'], failure: { isSuccess: false, exitCode: 2 }, session: UUID }, assert);
  });

  it('joined, not doubled, with the same session\'s OTLP export: the per-call records count, the run report does not', { skip: found.skip, timeout: 150_000 }, async () => {
    const collector = await startCollector();
    try {
      const r = await streamLabRun('claude', { log: collector.log, otlpBaseUrl: collector.url });
      assert.equal(r.run.code, 0, r.run.stderr.slice(-2000));
      assert.equal(r.tee.status, 0, r.tee.stderr);
      const session = jsonl(r.run.stdout).find((l) => l.type === 'result').session_id as string;
      // the OTLP export lands as the agent exits: wait for its model calls
      let usage = sessionUsage(collector.log, session);
      for (const until = Date.now() + 30_000; usage.model_calls < r.modelCalls && Date.now() < until; usage = sessionUsage(collector.log, session)) await new Promise((res) => setTimeout(res, 500));
      assert.equal(usage.model_calls, r.modelCalls, 'every model call arrived by OTLP');
      assert.deepEqual(usage.usage, r.truth, 'each token once: OTLP\'s calls, not also the stream\'s result');
      const methods = new Set(jsonl(runBeacon(['events', '--log', collector.log, '--json', '--session', session]).stdout).map((e) => e.harness.collection_method));
      assert.deepEqual([...methods].sort(), ['otlp', 'stream'], 'one session, both paths');
    } finally {
      await collector.stop();
    }
  });
});
