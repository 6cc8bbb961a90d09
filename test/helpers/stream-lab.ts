/**
 * The agents lab in stream mode: a real agent CLI run with its JSON stream flag on the mock model's
 * two-tool script (write a file, then run a command that exits 2), its stdout piped through the
 * compiled `beacon stream <agent> --tee --log <db>`, and the truth to compare with: what the mock
 * reported for each model call, in Beacon's disjoint buckets by the agent's wire.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { runAgent, AGENTS, type AgentName, type AgentRun } from './agent-cli';
import { jsonl, runBeacon } from './daemon';
import { MOCK_USAGE, startMockModel, type MockModel } from './mock-model';
import { BEACON_BIN, tempDir } from './paths';
import { streamAdapter } from '../../src/sources/stream-registry';
import { withStreamMode } from '../../src/stream/stream-mode';

export const STREAM_PLATFORM: Readonly<Record<AgentName, string>> = { claude: 'claude-code', codex: 'codex', gemini: 'gemini-cli', qwen: 'qwen-code', opencode: 'opencode', copilot: 'copilot-cli', pi: 'pi' };

export const STREAM_PROMPT = 'Write the lab note, then list the missing directory.';

export interface Buckets {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  reasoning_output_tokens: number;
}

export interface StreamLabRun {
  run: AgentRun;
  /** what `beacon stream --tee` printed, and its exit status and stderr */
  tee: { status: number | null; stdout: string; stderr: string };
  /** the harness events of the same stdout (`beacon stream --no-log`) */
  harness: Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
  log: string;
  records: Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** the failing command the mock's shell call runs */
  command: string;
  note: string;
  /** the mock's usage for this run's model calls, in Beacon's buckets by the agent's wire */
  truth: Buckets;
  /** the same as the agent's wire reports it, before what its stream drops (Qwen's reasoning): what its OTLP export carries */
  wireTruth: Buckets;
  modelCalls: number;
}

/**
 * What the mock reported, in Beacon's disjoint buckets: Anthropic input excludes the cache; Gemini
 * output excludes thoughts. `wire`: as the agent's wire (and OTLP export) has it, keeping the
 * reasoning count Qwen's stream drops.
 */
export function mockTruth(mock: MockModel, name: AgentName, o: { wire?: true } = {}): Buckets {
  const wire = AGENTS[name].wire;
  const t: Buckets = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, reasoning_output_tokens: 0 };
  for (const c of mock.modelCalls()) {
    const u = c.step === 'final' ? MOCK_USAGE.step2 : c.step === 'tool' ? MOCK_USAGE.step1 : MOCK_USAGE.side;
    t.input_tokens += wire === 'anthropic' ? u.input : u.input - u.cached;
    t.cache_read_input_tokens += u.cached;
    if (wire === 'anthropic') t.cache_creation_input_tokens += u.cacheCreation;
    t.output_tokens += u.output + (wire === 'gemini' ? u.reasoning : 0);
    // Claude's wire has no reasoning count; Qwen's stream drops the one its wire has, Pi reports none
    if (wire !== 'anthropic' && (o.wire || name !== 'qwen') && name !== 'pi') t.reasoning_output_tokens += u.reasoning;
  }
  return t;
}

export function pipeThroughBeacon(platform: string, input: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BEACON_BIN, 'stream', platform, ...args], { input, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * The agent's command line in its stream mode, from the adapter's own description (the one the
 * wrapper uses): with `wrapLog`, handed to `beacon stream <agent> --log <wrapLog> --`, which adds it.
 */
function streamCommand(name: AgentName, wrapLog?: string): (argv: string[]) => string[] {
  const platform = STREAM_PLATFORM[name];
  if (wrapLog) return (argv) => [process.execPath, BEACON_BIN, 'stream', platform, '--log', wrapLog, '--', ...argv];
  return (argv) => withStreamMode(streamAdapter(platform)!.mode, argv, platform);
}

/**
 * One real run in stream mode, OTLP off unless `otlpBaseUrl` (then into that collector, beside the
 * stream's records); `wrapper`: run by `beacon stream <agent> --log <log> -- <the agent's command>`,
 * `tee` then being the wrapper's own exit and stdout (the agent's, passed through).
 */
export async function streamLabRun(name: AgentName, o: { log?: string; otlpBaseUrl?: string; wrapper?: true } = {}): Promise<StreamLabRun> {
  const home = tempDir(`${name}-stream-home-`);
  const work = tempDir(`${name}-stream-work-`);
  const log = o.log ?? join(tempDir(`${name}-stream-log-`), 'events.db');
  const note = join(work, 'beacon-lab-note.txt');
  const command = `touch ${join(work, 'SIDE-EFFECT')} && ls /nonexistent-dir`;
  const mock = await startMockModel({ twoTools: { path: note, content: 'hello from the lab\n', command } });
  try {
    const run = await runAgent(name, {
      mockUrl: mock.url, otlpBaseUrl: o.otlpBaseUrl ?? 'http://127.0.0.1:9', protocol: 'http/json', home, workdir: work, prompt: STREAM_PROMPT,
      ...(o.otlpBaseUrl ? {} : { telemetry: false as const }), command: streamCommand(name, o.wrapper ? log : undefined), timeoutMs: 100_000,
    });
    const platform = STREAM_PLATFORM[name];
    const tee = o.wrapper ? { status: run.code, stdout: run.stdout, stderr: run.stderr } : pipeThroughBeacon(platform, run.stdout, ['--tee', '--log', log]);
    const harness = jsonl(pipeThroughBeacon(platform, run.stdout, ['--no-log']).stdout);
    const records = jsonl(runBeacon(['events', '--log', log, '--json']).stdout);
    return { run, tee, harness, log, records, command, note, truth: mockTruth(mock, name), wireTruth: mockTruth(mock, name, { wire: true }), modelCalls: mock.modelCalls().length };
  } finally {
    await mock.close();
  }
}

/** `beacon token-usage --session` of a log, as JSON. */
export function sessionUsage(log: string, session: string): { model_calls: number; usage: Buckets; total_tokens: number } {
  const r = runBeacon(['token-usage', '--log', log, '--json', '--session', session]);
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout).totals;
}

export interface StreamExpectations {
  /** the harness event types of the run, in order */
  types: string[];
  /** the failing command's harness fields, as the agent's stream says them */
  failure: { isSuccess: boolean; exitCode?: number };
  /** a regex the stream's own session id matches (and where the stream said it) */
  session: RegExp;
  /** the stream carries no token usage (Copilot's): nothing is counted from it */
  noUsage?: true;
  /** the usage the stream can hold, when not every call is in it (opencode's) */
  truth?: Buckets;
  /** agent messages in the stream (opencode under `run --attach` ends before its last step) */
  messages?: number;
}

/**
 * What every agent's stream must give: --tee byte-identical, the harness events in order, the tool
 * events with the command and what the stream says of its failure, one session (the stream's own)
 * on every record, usage equal to the mock's truth, and an unknown record type kept as `unknown`.
 */
export function checkStreamRun(name: AgentName, r: StreamLabRun, e: StreamExpectations, assert: typeof import('node:assert/strict')): string {
  assert.equal(r.run.code, 0, `${name} failed: ${r.run.stderr.slice(-2000)}`);
  assert.equal(r.tee.status, 0, r.tee.stderr);
  assert.equal(r.tee.stdout, r.run.stdout, '--tee passes the agent\'s stdout through byte for byte');
  assert.deepEqual(r.harness.map((h) => h.type), e.types, `harness events of ${r.run.stdout}`);
  const cmd = r.harness.find((h) => h.type === 'command' && h.command === r.command);
  assert.deepEqual({ command: cmd?.command, isSuccess: cmd?.isSuccess, exitCode: cmd?.exitCode }, { command: r.command, exitCode: undefined, ...e.failure });
  const write = r.harness.find((h) => h.type === 'write');
  if (e.types.includes('write')) assert.equal(write?.path, r.note);

  const platform = STREAM_PLATFORM[name];
  assert.ok(r.records.length > 0, 'records');
  for (const rec of r.records) assert.deepEqual(rec.harness, { name: platform, collection_method: 'stream' });
  const session: string = r.records[0].session?.id;
  assert.match(session ?? '', e.session);
  assert.ok(r.records.every((rec) => rec.session?.id === session), 'one session: the stream\'s own');
  assert.ok(r.harness.every((h) => h.sessionId === session), 'every harness event carries it');
  assert.ok(r.run.stdout.includes(session), 'the session id is the one the stream printed');
  const tool = r.records.find((rec) => rec.command?.command === r.command);
  assert.equal(tool?.event.action, e.failure.isSuccess ? 'command.executed' : 'tool.failed');
  if (e.failure.exitCode !== undefined) assert.equal(tool?.command.exit_code, e.failure.exitCode);
  assert.equal(r.records.filter((rec) => rec.event.action === 'agent.message').length, e.messages ?? 1);

  const usage = sessionUsage(r.log, session);
  const none: Buckets = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, reasoning_output_tokens: 0 };
  assert.deepEqual(usage.usage, e.noUsage ? none : e.truth ?? r.truth, 'the run report equals the mock\'s truth');

  const unknown = pipeThroughBeacon(platform, `${r.run.stdout}{"type":"beacon_lab_unheard_of","n":1}\n`, ['--no-log']);
  assert.deepEqual(jsonl(unknown.stdout).find((h) => h.type === 'unknown' && (h.raw as { type?: string } | undefined)?.type === 'beacon_lab_unheard_of')?.raw, { type: 'beacon_lab_unheard_of', n: 1 });
  return session;
}
