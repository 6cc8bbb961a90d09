/**
 * Beacon beside ccusage (issue 31 item 4): one real run of an agent of the lab against the mock
 * model leaves the agent's own session files in its private home; `beacon import` then
 * `beacon token-usage --by day --breakdown --json` and ccusage's daily report (pointed at the same
 * files through ccusage's own override variable for the agent) are compared per day and model.
 *
 * Where the two differ by design, the row of CCUSAGE_ROWS says what ccusage reports given what
 * Beacon recorded (and, when the difference depends on it, what the files say), and why: the test
 * asserts that exact difference, never a tolerance. Adding an agent is one row (test/helpers/ccusage-rows.ts).
 * Beacon's own cells are held to the mock's truth (the run's calls), so each expected ccusage
 * figure is a function of what the mock sent.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AGENTS_DIR, agentBinary, runAgent } from './agent-cli';
import { cell, type Buckets, type CcusageRow, type Cell, type ComparedAgent } from './ccusage-rows';
import { runBeacon } from './daemon';
import { gooseFixtureHome, gooseFixtureTruth } from './goose-sessions-fixture';
import { truth } from './import-real';
import { startMockModel } from './mock-model';
import { startOtlpCapture } from './otlp-capture';
import { tempDir } from './paths';

export { CCUSAGE_ROWS, ccusageRow, type Buckets, type CcusageRow } from './ccusage-rows';

export const CCUSAGE_VERSION = '20.0.24';
export const CCUSAGE_BIN = join(AGENTS_DIR, 'node_modules', '.bin', 'ccusage');

/** Why this comparison cannot run here (then skipped, saying so), or undefined. */
export function ccusageSkip(agent: ComparedAgent): string | undefined {
  const a = agent === 'goose' ? undefined : agentBinary(agent);
  if (a?.skip) return a.skip;
  if (!existsSync(CCUSAGE_BIN)) return `ccusage is not installed (${CCUSAGE_BIN} missing): run \`npm ci --prefix test/agents\``;
  const v = JSON.parse(readFileSync(join(AGENTS_DIR, 'node_modules', 'ccusage', 'package.json'), 'utf8')).version;
  return v === CCUSAGE_VERSION ? undefined : `ccusage ${v} is installed, the lab pins ${CCUSAGE_VERSION}`;
}

/** The cells of `beacon token-usage --by day --breakdown --json` (its model key is `model (provider)`). */
export function beaconReportCells(report: string): Map<Cell, Buckets> {
  const out = new Map<Cell, Buckets>();
  for (const day of JSON.parse(report).groups) {
    for (const m of day.models) {
      const model = /^(.*) \([^()]*\)$/.exec(m.key)?.[1] ?? m.key;
      const u = m.usage;
      const b = { input: u.input_tokens, output: u.output_tokens, cacheRead: u.cache_read_input_tokens, cacheWrite: u.cache_creation_input_tokens };
      out.set(cell(day.key, model), { ...b, reasoning: u.reasoning_output_tokens, total: b.input + b.output + b.cacheRead + b.cacheWrite });
    }
  }
  return out;
}

/**
 * The cells of `ccusage daily --json`, parsed (with --by-agent and `agent`: that agent's only;
 * reasoning: none, the unified report has it not; total: the day's, where the day has one model).
 */
export function ccusageReportCells(report: any, agent?: string): Map<Cell, Buckets> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const out = new Map<Cell, Buckets>();
  for (const day of report.daily) {
    const parts = agent === undefined ? [day] : (day.agents ?? []).filter((a: { agent: string }) => a.agent === agent);
    for (const part of parts) {
      const only = part.modelBreakdowns.length === 1;
      for (const m of part.modelBreakdowns) {
        out.set(cell(day.period, m.modelName), { input: m.inputTokens, output: m.outputTokens, cacheRead: m.cacheReadTokens, cacheWrite: m.cacheCreationTokens, reasoning: null, total: only ? part.totalTokens : null });
      }
    }
  }
  return out;
}

/** Beacon's cells: imported from the home into a fresh log, then its own day-by-model report (UTC days). */
export function beaconCells(row: CcusageRow, home: string): Map<Cell, Buckets> {
  const log = join(tempDir('ccusage-compare-log-'), 'events.db');
  const imported = runBeacon(['import', row.harness, '--from', home, '--log', log]);
  if (imported.status !== 0 || imported.stderr !== '') throw new Error(`beacon import: ${imported.stderr}`);
  const report = runBeacon(['token-usage', '--log', log, '--by', 'day', '--breakdown', '--utc', '--harness', row.harness, '--json']);
  if (report.status !== 0) throw new Error(`beacon token-usage: ${report.stderr}`);
  return beaconReportCells(report.stdout);
}

function ccusage(args: string[], row: CcusageRow, home: string): any { // eslint-disable-line @typescript-eslint/no-explicit-any
  // HOME is an empty directory (unless the row points it at the run's home): ccusage finds the files only through the agent's own variable
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tempDir('ccusage-empty-home-'), TZ: 'UTC', NO_COLOR: '1', ...row.env(home) };
  const r = spawnSync(CCUSAGE_BIN, [...args, '--json', '--offline', '-z', 'UTC'], { env, encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`ccusage ${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/**
 * ccusage's cells: `ccusage daily --by-agent` (every agent in one report, the same shape for all),
 * and the reasoning from the agent's own `ccusage <agent> daily` where it reports one (the unified
 * report has none).
 */
export function ccusageCells(row: CcusageRow, home: string): Map<Cell, Buckets> {
  const unified = ccusage(['daily', '--by-agent'], row, home);
  const others = unified.daily.flatMap((d: { agents?: { agent: string }[] }) => (d.agents ?? []).map((a) => a.agent)).filter((a: string) => a !== row.ccusage);
  if (others.length > 0) throw new Error(`ccusage found ${others.join(', ')}'s files for ${row.agent}'s home`);
  const out = ccusageReportCells(unified, row.ccusage);
  for (const day of ccusage([row.ccusage, 'daily'], row, home).daily) {
    const models: [string, { reasoningOutputTokens?: number }][] = day.models ? Object.entries(day.models) : (day.modelBreakdowns ?? []).map((m: { modelName: string }) => [m.modelName, m]);
    for (const [name, m] of models) {
      const c = out.get(cell(day.date ?? day.period, name));
      if (c && typeof m.reasoningOutputTokens === 'number') c.reasoning = m.reasoningOutputTokens;
    }
  }
  return out;
}

/** Beacon's disjoint buckets for every call the agent's store recorded, from what the mock sent. */
export type Truth = { input: number; output: number; cacheRead: number; cacheCreation: number };

/** A run's home (the agent's own files) and the truth of the calls in them. */
export interface Run {
  home: string;
  truth: Truth;
}

export interface Comparison {
  row: CcusageRow;
  truth: Truth;
  /** `at` is Beacon's cell (ccusage's model name, where it differs, in `ccusageAt`) */
  cells: { at: Cell; ccusageAt: Cell; beacon: Buckets | null; ccusage: Buckets | null; expected: Buckets | null }[];
}

/** Both tools on the same files: every cell either holds, with what each reported and what ccusage should by design. */
export function compareOn(row: CcusageRow, run: Run): Comparison {
  const beacon = beaconCells(row, run.home);
  const other = ccusageCells(row, run.home);
  const theirs = (at: Cell) => {
    const [day, model] = at.split('\t') as [string, string];
    return row.model ? cell(day, row.model(model)) : at;
  };
  const cells: Comparison['cells'] = [...beacon.keys()].sort().map((at) => ({ at, ccusageAt: theirs(at), beacon: beacon.get(at)!, ccusage: other.get(theirs(at)) ?? null, expected: row.expect(beacon.get(at)!, at, run.home) }));
  const matched = new Set(cells.map((c) => c.ccusageAt));
  for (const at of [...other.keys()].filter((k) => !matched.has(k)).sort()) cells.push({ at, ccusageAt: at, beacon: null, ccusage: other.get(at)!, expected: null });
  return { row, truth: run.truth, cells };
}

/** Beacon's four buckets summed over its cells (to hold against the truth). */
export function beaconSums(c: Comparison): Truth {
  const t = { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 };
  for (const x of c.cells) {
    if (!x.beacon) continue;
    t.input += x.beacon.input;
    t.output += x.beacon.output;
    t.cacheRead += x.beacon.cacheRead;
    t.cacheCreation += x.beacon.cacheWrite;
  }
  return t;
}

/**
 * One real run of the agent against the mock (its two-tool script where it has a write tool), in a
 * fresh home; goose (no CLI in the lab): its sessions.db fixture.
 */
export async function labRun(agent: ComparedAgent): Promise<Run> {
  if (agent === 'goose') return { home: gooseFixtureHome(), truth: gooseFixtureTruth() };
  const home = tempDir(`${agent}-ccusage-home-`);
  const work = tempDir(`${agent}-ccusage-work-`);
  const capture = await startOtlpCapture(); // its export goes somewhere local, and is not looked at
  const mock = await startMockModel(agent === 'codex' ? {} : { twoTools: { path: join(work, 'note.txt'), content: 'hello from the lab\n', command: 'ls /nonexistent-dir' } });
  try {
    const run = await runAgent(agent, { mockUrl: mock.url, otlpBaseUrl: capture.url, protocol: 'http/json', home, workdir: work, prompt: 'Write the lab note, then list the missing directory.', timeoutMs: 100_000 });
    if (run.code !== 0) throw new Error(`${agent} exited ${run.code}: ${run.stderr}`);
    if (mock.modelCalls().length === 0) throw new Error(`${agent} made no model call`);
    // opencode records its title side call nowhere (docs/agents: its store lacks it); the others make none
    return { home, truth: truth(mock, agent === 'opencode') };
  } finally {
    await mock.close();
    await capture.close();
  }
}

const AGENT_LABEL: Record<ComparedAgent, string> = { claude: 'Claude Code', codex: 'Codex', gemini: 'Gemini CLI', qwen: 'Qwen Code', opencode: 'opencode', copilot: 'Copilot CLI', pi: 'Pi', goose: 'goose (fixture)' };
const buckets = (b: Buckets | null) => (b ? [b.input, b.output, b.cacheRead, b.cacheWrite, b.reasoning ?? '—', b.total ?? '—'].join(' / ') : '(none)');
const same = (a: Buckets | null, b: Buckets | null) => JSON.stringify(a) === JSON.stringify(b);
const BUCKET_NAMES: Record<keyof Buckets, string> = { input: 'input', output: 'output', cacheRead: 'cache read', cacheWrite: 'cache write', reasoning: 'reasoning', total: 'total' };
/** `cache write, reasoning`: the buckets two reports differ in */
const differing = (a: Buckets, b: Buckets) => (Object.keys(BUCKET_NAMES) as (keyof Buckets)[]).filter((k) => a[k] !== b[k]).map((k) => BUCKET_NAMES[k]).join(', ');

/** The side-by-side table (Markdown), one line per agent, day and model. */
export function sideBySide(comparisons: Comparison[]): string {
  const lines = [
    '| agent | day (UTC) | model | Beacon: input / output / cache read / cache write / reasoning / total | ccusage: the same | difference |',
    '|---|---|---|---|---|---|',
  ];
  for (const { row, cells } of comparisons) {
    for (const c of cells) {
      const [day, model] = c.at.split('\t');
      const theirs = c.ccusageAt.split('\t')[1];
      const note = same(c.beacon, c.ccusage) ? 'none' : !c.beacon || !c.ccusage ? 'only one has it: UNEXPLAINED' : `${differing(c.beacon, c.ccusage)}: ${same(c.expected, c.ccusage) ? `by design (${row.why})` : 'UNEXPLAINED'}`;
      lines.push(`| ${AGENT_LABEL[row.agent]} | ${day} | ${model}${theirs !== model ? ` (ccusage: ${theirs})` : ''} | ${buckets(c.beacon)} | ${buckets(c.ccusage)} | ${note} |`);
    }
  }
  return lines.join('\n');
}
