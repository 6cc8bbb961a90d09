/**
 * "A month of heavy use" (issue 31 item 4): model calls across Claude Code and Codex written in each
 * agent's own on-disk format (month-claude.ts, month-codex.ts), as the real CLIs write them —
 * sessions of several prompts, each prompt a run of model calls with a tool call and its result
 * between them, and the bulky lines each agent adds (Claude Code's request shapes and attachments,
 * Codex's session instructions and world state). Deterministic: the same seed and count give the
 * same bytes, so the files are cached between bench runs and the truth is known.
 */
import { mkdirSync } from 'node:fs';
import { writeClaudeSession } from './month-claude';
import { writeCodexSession } from './month-codex';
import { Rng, type SessionPlan, type Truth } from './month-lines';

export interface MonthOptions {
  /** model calls in all, half Claude Code's, half Codex's */
  calls: number;
  seed: number;
  /** the month's first day, UTC */
  startMs?: number;
  days?: number;
}

export interface Month {
  truth: Truth;
  files: number;
  bytes: number;
  calls: { claude: number; codex: number };
}

const CLAUDE_MODELS = ['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5-20250929', 'claude-sonnet-4-5-20250929', 'claude-opus-4-1-20250805', 'claude-haiku-4-5-20251001'];
const CODEX_MODELS = ['gpt-5.1-codex', 'gpt-5.1-codex', 'gpt-5.1-codex-mini', 'gpt-5'];
const PROJECTS = ['api-server', 'web-client', 'infra', 'data-pipeline', 'mobile-app', 'docs-site', 'cli-tools', 'billing'];

/** The month's sessions for one agent: about 40 calls each, started in working hours of each day. */
function plans(rng: Rng, calls: number, models: readonly string[], o: Required<MonthOptions>, home: string): SessionPlan[] {
  const out: SessionPlan[] = [];
  for (let left = calls; left > 0; ) {
    const n = Math.min(left, rng.int(8, 72));
    left -= n;
    const day = rng.int(0, o.days - 1);
    const startMs = o.startMs + day * 86_400_000 + rng.int(7 * 3600, 19 * 3600) * 1000 + rng.int(0, 999);
    out.push({ id: rng.uuid(), startMs, calls: n, model: rng.pick(models), cwd: `${home}/src/${rng.pick(PROJECTS)}` });
  }
  return out;
}

/** Writes the month under `home` (its .claude and .codex), returning what it holds. */
export function generateMonth(home: string, options: MonthOptions): Month {
  const o: Required<MonthOptions> = { startMs: Date.UTC(2026, 10, 1), days: 30, ...options };
  const rng = new Rng(o.seed);
  const month: Month = { truth: new Map(), files: 0, bytes: 0, calls: { claude: 0, codex: 0 } };
  const claudeCalls = Math.ceil(o.calls / 2);
  for (const p of plans(rng, claudeCalls, CLAUDE_MODELS, o, home)) {
    const dir = `${home}/.claude/projects/${p.cwd.replace(/[^A-Za-z0-9]/g, '-')}`;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    month.bytes += writeClaudeSession(`${dir}/${p.id}.jsonl`, rng, p, month.truth);
    month.files++;
    month.calls.claude += p.calls;
  }
  for (const p of plans(rng, o.calls - claudeCalls, CODEX_MODELS, o, home)) {
    const d = new Date(p.startMs).toISOString();
    const dir = `${home}/.codex/sessions/${d.slice(0, 4)}/${d.slice(5, 7)}/${d.slice(8, 10)}`;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    month.bytes += writeCodexSession(`${dir}/rollout-${d.slice(0, 19).replace(/:/g, '-')}-${p.id}.jsonl`, rng, p, month.truth);
    month.files++;
    month.calls.codex += p.calls;
  }
  return month;
}
