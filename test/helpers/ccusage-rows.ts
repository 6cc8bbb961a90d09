/**
 * What ccusage 20.0.24 reports for each agent both tools read, given what Beacon recorded from the
 * same files: one row per agent (test/helpers/ccusage-compare.ts runs them). Each difference is by
 * design of one side or the other, read from ccusage's own code (its Rust adapters, `ccusage/ccusage`
 * rust/adapters/<agent>/src/parser.rs) and checked on the lab's real runs: the row says it exactly,
 * as a function of Beacon's buckets, never as a tolerance.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentName } from './agent-cli';

/**
 * Tokens of one day and model, in Beacon's buckets (reasoning is part of output); null: the tool
 * reports none. `total` is Beacon's input + output + cache read + cache write; ccusage's is its
 * `totalTokens` for the agent's day (the cell's when the day has that one model), which also holds
 * tokens it keeps outside the four buckets (`extra_total_tokens`: reasoning, for some agents).
 */
export interface Buckets {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number | null;
  total: number | null;
}

/** `2026-12-02\tclaude-sonnet-4-5` */
export type Cell = string;
export const cell = (day: string, model: string): Cell => `${day}\t${model}`;

/** the agents of the lab, and goose (no CLI here: a fixture in its documented schema) */
export type ComparedAgent = AgentName | 'goose';

export interface CcusageRow {
  agent: ComparedAgent;
  /** `beacon import`'s name for it */
  harness: string;
  /** ccusage's name for it (its subcommand, and `agent` in `daily --by-agent`) */
  ccusage: string;
  /** ccusage's own override variable for the agent's store, pointed at the run's home */
  env: (home: string) => Record<string, string>;
  /** ccusage's model name for Beacon's (Pi: `[pi] <model>`) */
  model?: (beacon: string) => string;
  /** what ccusage reports for a cell, given Beacon's buckets for it and the run's home (the files) */
  expect: (beacon: Buckets, at: Cell, home: string) => Buckets;
  /** why the two differ, when they do (the report's note) */
  why: string;
}

const four = (b: Pick<Buckets, 'input' | 'output' | 'cacheRead' | 'cacheWrite'>) => b.input + b.output + b.cacheRead + b.cacheWrite;
const reasoningOf = (b: Buckets) => b.reasoning ?? 0;

export const CCUSAGE_ROWS: readonly CcusageRow[] = [
  {
    agent: 'claude',
    harness: 'claude-code',
    ccusage: 'claude',
    env: (home) => ({ CLAUDE_CONFIG_DIR: join(home, '.claude') }),
    // ccusage has no reasoning for Claude (the Anthropic API reports none); its cache write is the
    // `cache_creation{ephemeral_5m, ephemeral_1h}` breakdown where the transcript has one, not the
    // total: Beacon's count less what the breakdowns leave out.
    expect: (b, at, home) => {
      const c = { ...b, cacheWrite: b.cacheWrite - (claudeBreakdownShortfall(home).get(at) ?? 0), reasoning: null };
      return { ...c, total: four(c) };
    },
    why: 'ccusage reports no reasoning for Claude (the Anthropic API reports none). The cache write agrees: ccusage takes it from the usage.cache_creation{ephemeral_5m,ephemeral_1h} breakdown, Beacon from cache_creation_input_tokens (the total the API bills), and the lab\'s mock sends both as the API does; a transcript whose breakdown falls short of the total (an API that sends none) would differ by the shortfall.',
  },
  {
    agent: 'codex',
    harness: 'codex',
    ccusage: 'codex',
    env: (home) => ({ CODEX_HOME: join(home, '.codex') }),
    // ccusage 20.0.24 reports Codex's input without the cached part (as Beacon's disjoint bucket) and output with reasoning
    expect: (b) => ({ ...b, total: four(b) }),
    why: 'none: ccusage 20.0.24 reports Codex input without the cached tokens (as Beacon does; @ccusage/codex 18 reported it inclusive) and output with reasoning, as Beacon does',
  },
  {
    agent: 'gemini',
    harness: 'gemini-cli',
    ccusage: 'gemini',
    env: (home) => ({ GEMINI_DATA_DIR: join(home, '.gemini', 'tmp') }),
    // the chat file's `tokens.output` excludes `tokens.thoughts`: ccusage keeps it so and puts the
    // thoughts in its total only; Beacon's output holds them (its reasoning is part of output)
    expect: (b) => ({ ...b, output: b.output - reasoningOf(b), reasoning: null, total: four(b) }),
    why: 'ccusage\'s output is Gemini\'s `tokens.output`, without the thoughts; it adds `tokens.thoughts` to its total only (not reported apart). Beacon\'s output holds the thoughts (its reasoning), so the totals agree.',
  },
  {
    agent: 'qwen',
    harness: 'qwen-code',
    ccusage: 'qwen',
    env: (home) => ({ QWEN_DATA_DIR: join(home, '.qwen') }),
    // Qwen's usageMetadata has Gemini's field names with OpenAI's meaning: promptTokenCount includes
    // the cached tokens and candidatesTokenCount the thoughts. ccusage reads them with Gemini's meaning.
    expect: (b) => ({ ...b, input: b.input + b.cacheRead, reasoning: null, total: four(b) + b.cacheRead + reasoningOf(b) }),
    why: 'ccusage takes Qwen\'s promptTokenCount as uncached input, but it includes cachedContentTokenCount, so the cache read is counted twice (in input and in cache read); and it adds thoughtsTokenCount to its total although candidatesTokenCount (its output) already holds it: total = Beacon\'s + cache read + reasoning.',
  },
  {
    agent: 'opencode',
    harness: 'opencode',
    ccusage: 'opencode',
    env: (home) => ({ OPENCODE_DATA_DIR: join(home, '.local', 'share', 'opencode') }),
    // opencode's message tokens: `output` without `reasoning`; ccusage keeps reasoning in its total only
    expect: (b) => ({ ...b, output: b.output - reasoningOf(b), reasoning: null, total: four(b) }),
    why: 'ccusage\'s output is opencode\'s `tokens.output`, which excludes `tokens.reasoning`; it adds the reasoning to its total only (not reported apart). Beacon\'s output holds it, so the totals agree. (The title side call is in neither: opencode records it nowhere.)',
  },
  {
    agent: 'copilot',
    harness: 'copilot-cli',
    ccusage: 'copilot',
    env: (home) => ({ COPILOT_HOME: join(home, '.copilot') }),
    // session.shutdown's modelMetrics: ccusage reads reasoningTokens but its daily report does not show them
    expect: (b) => ({ ...b, reasoning: null, total: four(b) }),
    why: 'ccusage reads session.shutdown\'s modelMetrics (input less the cache read, as Beacon) and its reasoningTokens, but its daily report shows no reasoning; the output holds it in both.',
  },
  {
    agent: 'pi',
    harness: 'pi',
    ccusage: 'pi',
    env: (home) => ({ PI_AGENT_DIR: join(home, '.pi', 'agent', 'sessions') }),
    model: (m) => `[pi] ${m}`,
    expect: (b) => ({ ...b, reasoning: null, total: four(b) }),
    why: 'ccusage names the model `[pi] <model>` (its store\'s name); Pi\'s session file has no reasoning count, so ccusage reports none (Beacon: 0).',
  },
  {
    agent: 'goose',
    harness: 'goose',
    ccusage: 'goose',
    // ccusage's goose reader honours GOOSE_PATH_ROOT (<root>/data/sessions) or the home's
    // ~/.local/share/goose/sessions; `beacon import --from` takes the home, so both get the home
    env: (home) => ({ HOME: home }),
    // ccusage reads `sessions.accumulated_{input,output,total}_tokens`: input with both cache buckets
    // inside (goose's Usage), no cache columns, the session dated by its created_at
    expect: (b) => ({ input: b.input + b.cacheRead + b.cacheWrite, output: b.output, cacheRead: 0, cacheWrite: 0, reasoning: null, total: four(b) }),
    why: 'ccusage reads goose\'s `sessions` row (accumulated input/output/total, one entry per session, on the day it was created), not its per-call usage_ledger, and none of its cache columns: its input is goose\'s, cache read and write inside; Beacon\'s input is without them, in its own cache buckets. Same total.',
  },
];

export const ccusageRow = (agent: ComparedAgent): CcusageRow => CCUSAGE_ROWS.find((r) => r.agent === agent)!;

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
