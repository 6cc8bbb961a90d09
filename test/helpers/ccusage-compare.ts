/**
 * Beacon beside ccusage (issue 31 item 4): one real run of an agent of the lab against the mock
 * model leaves the agent's own session files in its private home; `beacon import` then
 * `beacon token-usage --by day --breakdown --json` and ccusage's daily report (pointed at the same
 * files through ccusage's own override variable for the agent) are compared per day and model.
 *
 * Where the two differ by design, the row of CCUSAGE_ROWS says what ccusage reports given what
 * Beacon recorded (and, when the difference depends on it, what the files say), and why: the test
 * asserts that exact difference, never a tolerance. Adding an agent is one row.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AGENTS_DIR, agentBinary, runAgent, type AgentName } from './agent-cli';
import { runBeacon } from './daemon';
import { startMockModel } from './mock-model';
import { startOtlpCapture } from './otlp-capture';
import { tempDir } from './paths';

export const CCUSAGE_VERSION = '20.0.24';
export const CCUSAGE_BIN = join(AGENTS_DIR, 'node_modules', '.bin', 'ccusage');

/** Tokens of one day and model, in Beacon's buckets (reasoning is part of output); null: the tool reports none. */
export interface Buckets {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number | null;
}

/** `2026-12-02\tclaude-sonnet-4-5` */
type Cell = string;
const cell = (day: string, model: string): Cell => `${day}\t${model}`;

export interface CcusageRow {
  agent: AgentName;
  /** `beacon import`'s name for it */
  harness: string;
  /** ccusage's name for it (its subcommand, and `agent` in `daily --by-agent`) */
  ccusage: string;
  /** ccusage's own override variable for the agent's store, pointed at the run's home */
  env: (home: string) => Record<string, string>;
  /** what ccusage reports for a cell, given Beacon's buckets for it and the run's home (the files) */
  expect: (beacon: Buckets, at: Cell, home: string) => Buckets;
  /** why the two differ, when they do (the report's note) */
  why: string;
}

export const CCUSAGE_ROWS: readonly CcusageRow[] = [
  {
    agent: 'claude',
    harness: 'claude-code',
    ccusage: 'claude',
    env: (home) => ({ CLAUDE_CONFIG_DIR: join(home, '.claude') }),
    // ccusage has no reasoning for Claude (the Anthropic API reports none); its cache write is the
    // `cache_creation{ephemeral_5m, ephemeral_1h}` breakdown where the transcript has one, not the
    // total: Beacon's count less what the breakdowns leave out.
    expect: (b, at, home) => ({ ...b, cacheWrite: b.cacheWrite - (claudeBreakdownShortfall(home).get(at) ?? 0), reasoning: null }),
    why: 'ccusage takes the cache write from usage.cache_creation{ephemeral_5m,ephemeral_1h} where the transcript has that breakdown, Beacon from cache_creation_input_tokens (the total the API bills); the lab\'s mock sends no breakdown, so Claude Code writes it as zeros. ccusage reports no reasoning for Claude.',
  },
  {
    agent: 'codex',
    harness: 'codex',
    ccusage: 'codex',
    env: (home) => ({ CODEX_HOME: join(home, '.codex') }),
    // ccusage 20.0.24 reports Codex's input without the cached part (as Beacon's disjoint bucket) and output with reasoning
    expect: (b) => b,
    why: 'none: ccusage 20.0.24 reports Codex input without the cached tokens (as Beacon does; @ccusage/codex 18 reported it inclusive) and output with reasoning, as Beacon does',
  },
];

export const ccusageRow = (agent: AgentName): CcusageRow => CCUSAGE_ROWS.find((r) => r.agent === agent)!;

/** Why this comparison cannot run here (then skipped, saying so), or undefined. */
export function ccusageSkip(agent: AgentName): string | undefined {
  const a = agentBinary(agent);
  if (a.skip) return a.skip;
  if (!existsSync(CCUSAGE_BIN)) return `ccusage is not installed (${CCUSAGE_BIN} missing): run \`npm ci --prefix test/agents\``;
  const v = JSON.parse(readFileSync(join(AGENTS_DIR, 'node_modules', 'ccusage', 'package.json'), 'utf8')).version;
  return v === CCUSAGE_VERSION ? undefined : `ccusage ${v} is installed, the lab pins ${CCUSAGE_VERSION}`;
}

/**
 * Per cell, the cache write tokens of Claude Code's transcripts that ccusage does not count: one call
 * per message id (its last line), where `usage.cache_creation` is there, `cache_creation_input_tokens`
 * less the breakdown's sum.
 */
function claudeBreakdownShortfall(home: string): Map<Cell, number> {
  const byMessage = new Map<string, { at: Cell; tokens: number }>();
  const projects = join(home, '.claude', 'projects');
  for (const dir of readdirSync(projects)) {
    for (const file of readdirSync(join(projects, dir)).filter((f) => f.endsWith('.jsonl'))) {
      for (const line of readFileSync(join(projects, dir, file), 'utf8').split('\n')) {
        if (!line.includes('"assistant"')) continue;
        const v = JSON.parse(line);
        const u = v.message?.usage;
        if (v.type !== 'assistant' || !u || !v.message.id) continue;
        const b = u.cache_creation;
        const tokens = b ? (u.cache_creation_input_tokens ?? 0) - (b.ephemeral_5m_input_tokens ?? 0) - (b.ephemeral_1h_input_tokens ?? 0) : 0;
        byMessage.set(v.message.id, { at: cell(v.timestamp.slice(0, 10), v.message.model), tokens });
      }
    }
  }
  const out = new Map<Cell, number>();
  for (const { at, tokens } of byMessage.values()) out.set(at, (out.get(at) ?? 0) + tokens);
  return out;
}

/** The cells of `beacon token-usage --by day --breakdown --json` (its model key is `model (provider)`). */
export function beaconReportCells(report: string): Map<Cell, Buckets> {
  const out = new Map<Cell, Buckets>();
  for (const day of JSON.parse(report).groups) {
    for (const m of day.models) {
      const model = /^(.*) \([^()]*\)$/.exec(m.key)?.[1] ?? m.key;
      const u = m.usage;
      out.set(cell(day.key, model), { input: u.input_tokens, output: u.output_tokens, cacheRead: u.cache_read_input_tokens, cacheWrite: u.cache_creation_input_tokens, reasoning: u.reasoning_output_tokens });
    }
  }
  return out;
}

/** The cells of `ccusage daily --json`, parsed (with --by-agent and `agent`: that agent's only; reasoning: none, the unified report has it not). */
export function ccusageReportCells(report: any, agent?: string): Map<Cell, Buckets> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const out = new Map<Cell, Buckets>();
  for (const day of report.daily) {
    const parts = agent === undefined ? [day] : (day.agents ?? []).filter((a: { agent: string }) => a.agent === agent);
    for (const part of parts) {
      for (const m of part.modelBreakdowns) {
        out.set(cell(day.period, m.modelName), { input: m.inputTokens, output: m.outputTokens, cacheRead: m.cacheReadTokens, cacheWrite: m.cacheCreationTokens, reasoning: null });
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
  // HOME is an empty directory: ccusage finds the files only through the agent's own variable
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

export interface Comparison {
  row: CcusageRow;
  cells: { at: Cell; beacon: Buckets | null; ccusage: Buckets | null; expected: Buckets | null }[];
}

/** Both tools on the same files: every cell either holds, with what each reported and what ccusage should by design. */
export function compareOn(row: CcusageRow, home: string): Comparison {
  const beacon = beaconCells(row, home);
  const other = ccusageCells(row, home);
  const keys = [...new Set([...beacon.keys(), ...other.keys()])].sort();
  return { row, cells: keys.map((at) => ({ at, beacon: beacon.get(at) ?? null, ccusage: other.get(at) ?? null, expected: beacon.has(at) ? row.expect(beacon.get(at)!, at, home) : null })) };
}

/** One real run of the agent against the mock (its two-tool script where it has a write tool), in a fresh home. */
export async function labRun(agent: AgentName): Promise<string> {
  const home = tempDir(`${agent}-ccusage-home-`);
  const work = tempDir(`${agent}-ccusage-work-`);
  const capture = await startOtlpCapture(); // its export goes somewhere local, and is not looked at
  const mock = await startMockModel(agent === 'codex' ? {} : { twoTools: { path: join(work, 'note.txt'), content: 'hello from the lab\n', command: 'ls /nonexistent-dir' } });
  try {
    const run = await runAgent(agent, { mockUrl: mock.url, otlpBaseUrl: capture.url, protocol: 'http/json', home, workdir: work, prompt: 'Write the lab note, then list the missing directory.', timeoutMs: 100_000 });
    if (run.code !== 0) throw new Error(`${agent} exited ${run.code}: ${run.stderr}`);
    if (mock.modelCalls().length === 0) throw new Error(`${agent} made no model call`);
    return home;
  } finally {
    await mock.close();
    await capture.close();
  }
}

const AGENT_LABEL: Record<AgentName, string> = { claude: 'Claude Code', codex: 'Codex', gemini: 'Gemini CLI', qwen: 'Qwen Code', opencode: 'opencode', copilot: 'Copilot CLI', pi: 'Pi' };
const buckets = (b: Buckets | null) => (b ? [b.input, b.output, b.cacheRead, b.cacheWrite, b.reasoning ?? '—'].join(' / ') : '(none)');
const same = (a: Buckets | null, b: Buckets | null) => JSON.stringify(a) === JSON.stringify(b);
const BUCKET_NAMES: Record<keyof Buckets, string> = { input: 'input', output: 'output', cacheRead: 'cache read', cacheWrite: 'cache write', reasoning: 'reasoning' };
/** `cache write, reasoning`: the buckets two reports differ in */
const differing = (a: Buckets, b: Buckets) => (Object.keys(BUCKET_NAMES) as (keyof Buckets)[]).filter((k) => a[k] !== b[k]).map((k) => BUCKET_NAMES[k]).join(', ');

/** The side-by-side table (Markdown), one line per agent, day and model. */
export function sideBySide(comparisons: Comparison[]): string {
  const lines = [
    '| agent | day (UTC) | model | Beacon: input / output / cache read / cache write / reasoning | ccusage: the same | difference |',
    '|---|---|---|---|---|---|',
  ];
  for (const { row, cells } of comparisons) {
    for (const c of cells) {
      const [day, model] = c.at.split('\t');
      const note = same(c.beacon, c.ccusage) ? 'none' : !c.beacon || !c.ccusage ? 'only one has it: UNEXPLAINED' : `${differing(c.beacon, c.ccusage)}: ${same(c.expected, c.ccusage) ? `by design (${row.why})` : 'UNEXPLAINED'}`;
      lines.push(`| ${AGENT_LABEL[row.agent]} | ${day} | ${model} | ${buckets(c.beacon)} | ${buckets(c.ccusage)} | ${note} |`);
    }
  }
  return lines.join('\n');
}
