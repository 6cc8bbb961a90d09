/**
 * One real agent CLI (the agents lab's pin) run against the mock model with its OTLP export pointed
 * at a started collector, then `beacon import --from <its home>` into the same log: every model
 * call once, with the mock's token truth, the import's ids merged into the OTLP records, and a
 * re-import adding nothing (issue 31 items 2 and 6). Shared by import-real-<agent>.test.ts, one
 * agent per file so each stays within the runner's per-file bound.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { agentBinary, runAgent, type AgentName } from './agent-cli';
import { jsonl, runBeacon, startCollector } from './daemon';
import { MOCK_USAGE, startMockModel, type MockModel } from './mock-model';
import { startOtlpCapture } from './otlp-capture';
import { tempDir } from './paths';

const PROMPT = 'Write the lab note, then list the missing directory.';

/**
 * The disjoint buckets Beacon stores for the mock's answers (Anthropic's input excludes the cache;
 * OpenAI's and Gemini's include it; Gemini's output excludes the thoughts, which Beacon's output holds).
 */
export function truth(mock: MockModel, withoutSide = false): { input: number; output: number; cacheRead: number; cacheCreation: number } {
  const t = { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 };
  for (const c of mock.modelCalls()) {
    if (withoutSide && c.step === 'side') continue;
    const u = c.step === 'tool' ? MOCK_USAGE.step1 : c.step === 'final' ? MOCK_USAGE.step2 : MOCK_USAGE.side;
    const anthropic = c.wire === 'anthropic';
    t.input += anthropic ? u.input : u.input - u.cached;
    t.cacheRead += u.cached;
    t.cacheCreation += anthropic ? u.cacheCreation : 0;
    t.output += c.wire === 'gemini' ? u.output + u.reasoning : u.output;
  }
  return t;
}

/**
 * How an agent's two records of a call meet. `matched` (the default): OTLP's record has no id the
 * store's shares, so the import is merged into it by session and tokens (`event.merged_ids`).
 * `same-id`: both carry the provider's response id, so both make one event id. `responseIds: false`:
 * neither path has the mock's response id (Gemini CLI: only its inference-details log does).
 */
export interface JoinFacts {
  join?: 'matched' | 'same-id';
  responseIds?: boolean;
  /** the store is one database (opencode): its import reports the database, not session files */
  database?: boolean;
  /** the store has no record of the side calls (opencode's title): only OTLP counts them */
  storeLacksSide?: boolean;
}

const sideCalls = (mock: MockModel) => mock.modelCalls().filter((c) => c.step === 'side').length;

const usageOf = (log: string) => JSON.parse(runBeacon(['token-usage', '--log', log, '--since', '1d', '--json']).stdout).totals;
const records = (log: string) => jsonl(runBeacon(['events', '--log', log, '--json']).stdout);

async function until(what: string, ok: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

export function realImportSkip(name: AgentName): string | undefined {
  return agentBinary(name).skip;
}

export async function otlpThenImport(name: AgentName, harness: string, toolCalls: number, facts: JoinFacts = {}): Promise<void> {
  const home = tempDir(`${name}-import-home-`);
  const work = tempDir(`${name}-import-work-`);
  const collector = await startCollector();
  // Codex is offered no write tool under the mock's unknown model: its one-tool script (the shell) instead
  const mock = await startMockModel(name === 'codex' ? {} : { twoTools: { path: join(work, 'note.txt'), content: 'hello from the lab\n', command: 'ls /nonexistent-dir' } });
  try {
    const run = await runAgent(name, { mockUrl: mock.url, otlpBaseUrl: collector.url, protocol: 'http/json', home, workdir: work, prompt: PROMPT, timeoutMs: 100_000 });
    assert.equal(run.code, 0, run.stderr);
    const calls = mock.modelCalls().length;
    const models = () => records(collector.log).filter((r) => r.event.action === 'model.invoked');
    await until('the OTLP export of every model call', () => models().length >= calls);
    const expected = truth(mock);
    const otlp = usageOf(collector.log);
    assert.deepEqual([otlp.model_calls, otlp.usage.input_tokens, otlp.usage.output_tokens, otlp.usage.cache_read_input_tokens, otlp.usage.cache_creation_input_tokens], [calls, expected.input, expected.output, expected.cacheRead, expected.cacheCreation], 'OTLP alone has the truth');

    const first = runBeacon(['import', harness, '--from', home, '--log', collector.log]);
    assert.equal(first.status, 0, first.stderr);
    assert.equal(first.stderr, '', 'no warning on the real files');
    assert.match(first.stdout, facts.database ? new RegExp(`${harness}: database .*: read`) : new RegExp(`${harness}: 1 session file`));
    assert.deepEqual(usageOf(collector.log), otlp, 'token-usage unchanged: each call counted once');
    const merged = models();
    assert.equal(merged.length, calls);
    const storeCalls = calls - (facts.storeLacksSide ? sideCalls(mock) : 0);
    // the union: the OTLP record gained what only the store knew (the response id the mock sent)
    if (facts.responseIds !== false) assert.deepEqual(merged.map((m) => m.gen_ai.response?.id).sort(), mock.modelCalls().map((c) => c.responseId).sort());
    if (facts.join === 'same-id') assert.ok(merged.every((m) => m.harness.collection_method === 'otlp' && m.event.merged_ids === undefined), 'one event id for both records');
    else {
      assert.ok(merged.every((m) => m.harness.collection_method === 'otlp'));
      assert.equal(merged.filter((m) => m.event.merged_ids?.length === 1).length, storeCalls, 'each call the store has absorbed into its OTLP record');
    }
    const prompts = records(collector.log).filter((r) => r.event.action === 'prompt.submitted');
    assert.equal(prompts.length, 1, 'the prompt once');
    const session = JSON.parse(runBeacon(['sessions', '--log', collector.log, '--json']).stdout.split('\n')[0]!);
    assert.equal(session.tool_calls, toolCalls, 'each tool call once: its OTLP and store records joined by call id');
    assert.deepEqual(session.collection_methods, ['otlp', 'poll']);

    const before = records(collector.log);
    const second = runBeacon(['import', harness, '--from', home, '--log', collector.log]);
    assert.equal(second.status, 0, second.stderr);
    assert.match(second.stdout, facts.database ? /unchanged since the last import, not read/ : /read 0 bytes, 1 file unchanged since the last import/); // its cursor: nothing read again
    assert.deepEqual(records(collector.log), before, 'a second import adds and changes nothing');
  } finally {
    await mock.close();
    await collector.stop();
  }
}

/**
 * The other order: the run's OTLP export held back (a capture server takes it), the store imported
 * first, then the captured export replayed to the collector as it was sent: the OTLP records merge
 * into the imported ones, and every call still counts once with the truth.
 */
export async function importThenOtlp(name: AgentName, harness: string, toolCalls: number, facts: JoinFacts = {}): Promise<void> {
  const home = tempDir(`${name}-import-home-`);
  const work = tempDir(`${name}-import-work-`);
  const capture = await startOtlpCapture();
  const mock = await startMockModel(name === 'codex' ? {} : { twoTools: { path: join(work, 'note.txt'), content: 'hello from the lab\n', command: 'ls /nonexistent-dir' } });
  const collector = await startCollector();
  try {
    const run = await runAgent(name, { mockUrl: mock.url, otlpBaseUrl: capture.url, protocol: 'http/json', home, workdir: work, prompt: PROMPT, timeoutMs: 100_000 });
    assert.equal(run.code, 0, run.stderr);
    const calls = mock.modelCalls().length;
    const imported = runBeacon(['import', harness, '--from', home, '--log', collector.log]);
    assert.equal(imported.status, 0, imported.stderr);
    const expected = truth(mock);
    const total = (u: ReturnType<typeof usageOf>) => [u.model_calls, u.usage.input_tokens, u.usage.output_tokens, u.usage.cache_read_input_tokens, u.usage.cache_creation_input_tokens];
    const want = [calls, expected.input, expected.output, expected.cacheRead, expected.cacheCreation];
    const stored = truth(mock, facts.storeLacksSide);
    const storeCalls = calls - (facts.storeLacksSide ? sideCalls(mock) : 0);
    assert.deepEqual(total(usageOf(collector.log)), [storeCalls, stored.input, stored.output, stored.cacheRead, stored.cacheCreation], 'the import alone has the truth of the calls its store records');
    // its calls' records: log records, or (Copilot CLI, which exports no logs) spans
    const exported = capture.requests.filter((r) => r.path.endsWith('/v1/logs') || r.path.endsWith('/v1/traces'));
    assert.ok(exported.length > 0, 'the agent exported its records');
    for (const r of capture.requests) {
      const res = await fetch(`${collector.url}${r.path}`, { method: 'POST', headers: { 'content-type': r.contentType }, body: r.body });
      assert.ok(res.ok, `replaying ${r.path}: ${res.status}`);
    }
    await until('the replayed export committed', () => records(collector.log).some((x) => x.harness.collection_method === 'otlp'));
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(total(usageOf(collector.log)), want, 'OTLP after the import: each call still counted once');
    const models = records(collector.log).filter((r) => r.event.action === 'model.invoked');
    const imported2 = models.filter((m) => m.harness.collection_method === 'poll');
    assert.equal(imported2.length, storeCalls);
    assert.ok(imported2.every((m) => m.event.merged_ids?.length === 1), 'each imported call absorbed its OTLP record');
    assert.equal(records(collector.log).filter((r) => r.event.action === 'prompt.submitted').length, 1, 'the prompt once');
    const session = JSON.parse(runBeacon(['sessions', '--log', collector.log, '--json']).stdout.split('\n')[0]!);
    assert.equal(session.tool_calls, toolCalls);
  } finally {
    await mock.close();
    await collector.stop();
    await capture.close();
  }
}
