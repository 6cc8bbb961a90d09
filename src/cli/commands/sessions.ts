import { resolveEventLogPath } from '../../config/paths';
import { BeaconError } from '../../model/errors';
import { harnessOption, unknownHarnessHint } from '../../model/harness';
import { formatDisplayTime, formatDuration, formatTimestamp } from '../../model/time';
import { loadCatalog, loadOverrides, overridesPath } from '../../pricing/catalog';
import { costDecimals, costRounder } from '../../pricing/precision';
import { UsagePricer } from '../../pricing/usage-groups';
import { parseCommand, type CommandIO, type CommandSpec } from '../args';
import { configOption } from '../config-flags';
import { usd } from '../format';
import { chooseLayout, renderTable, shortId, shortTime, tableWidth, wrapAtSpaces, type Column } from '../table';
import { openConnectionForReading, timeRange } from '../log-access';
import { writeLine } from '../output';
import { SESSION_SORTS, listSessions, type SessionSort } from '../../store/queries/sessions';
import { groupDigits } from '../../model/digits';

export const spec = {
  name: 'beacon sessions',
  summary: 'agent sessions: duration, repository, models, calls, failures, tokens, cost',
  usage: '[--log PATH] [--since T] [--until T] [--harness H] [--repository DIR] [--model M] [--sort KEY] [--limit N] [--json] [--utc]',
  description: `Lists agent sessions, newest first: start, end, duration, repository, models, model calls, tool
calls (one per call, however many collection paths saw it), failed and denied calls, tokens, and the
cost the agent reported beside Beacon's list-price estimate; AGENT is the agent the session ran in. T is a date, a time or a duration back from
now, as for beacon events. The same query the dashboard's Sessions page runs.`,
  options: {
    log: configOption('log'),
    since: { type: 'string', arg: 'T', help: 'sessions with events at or after T' },
    until: { type: 'string', arg: 'T', help: 'sessions with events before T' },
    harness: { type: 'string', arg: 'H', help: 'only sessions of this agent (goose, claude-code or claude, codex, gemini-cli, qwen-code, opencode, copilot-cli…)' },
    repository: { type: 'string', arg: 'DIR', help: 'only sessions in this repository (working directory, as recorded)' },
    model: { type: 'string', arg: 'M', help: 'only sessions with a call of this model' },
    sort: { type: 'string', arg: 'KEY', help: `order by ${SESSION_SORTS.join(', ')} (default end)` },
    limit: { type: 'string', arg: 'N', help: 'at most N sessions (default 50)' },
    json: { type: 'boolean', help: 'one JSON object per session' },
    utc: { type: 'boolean', help: 'print times in UTC instead of the local zone' },
  },
  examples: ['beacon sessions --since 7d', 'beacon sessions --harness claude-code', 'beacon sessions --repository ~/src/app --sort tokens', 'beacon sessions --json | jq .id'],
} as const satisfies CommandSpec;


export async function run(argv: string[], { env, out }: Pick<CommandIO, 'env' | 'out'>): Promise<number> {
  const parsed = parseCommand(spec, argv, out);
  if (!parsed) return 0;
  const { values } = parsed;
  const utc = values.utc === true;
  const { sinceNs, untilNs } = timeRange(values.since, values.until, utc);
  const sort = (values.sort ?? 'end') as SessionSort;
  if (!SESSION_SORTS.includes(sort)) throw new BeaconError('usage', `--sort must be one of ${SESSION_SORTS.join(', ')}, got ${values.sort}`);
  if (values.limit !== undefined && !/^[1-9]\d*$/.test(values.limit)) throw new BeaconError('usage', `--limit must be a whole number above 0, got ${values.limit}`);
  const limit = values.limit === undefined ? 50 : Number(values.limit);
  const path = resolveEventLogPath(values.log, env);
  const log = openConnectionForReading(path);
  if (!log) {
    if (!values.json) out(`no sessions yet: ${path} does not exist (is the collector running? see beacon doctor)`);
    return 0;
  }
  try {
    const page = listSessions(log.db, { sinceNs, untilNs, repository: values.repository, model: values.model, harness: values.harness === undefined ? undefined : harnessOption(values.harness) }, { sort, desc: true, limit });
    const pricer = new UsagePricer(loadCatalog(), loadOverrides(overridesPath(env)));
    const rows = page.sessions.map((s) => {
      const cost = pricer.total(s.usage);
      const d = s.detail;
      const toolCalls = d ? Object.values(d.toolCalls).reduce((a, b) => a + b, 0) : 0;
      return {
        id: s.id,
        // --json speaks the records' format (events --json: UTC, nanoseconds); the table the reader's zone
        start: values.json ? formatTimestamp(s.firstNs) : formatDisplayTime(s.firstNs, utc),
        end: values.json ? formatTimestamp(s.lastNs) : formatDisplayTime(s.lastNs, utc),
        duration_s: Number((s.lastNs - s.firstNs) / 1_000_000_000n),
        harness: s.harness,
        repository: s.repository,
        branch: s.branch,
        models: [...new Set(s.usage.map((u) => u.model ?? '(no model)'))],
        model_calls: s.modelCalls,
        tool_calls: toolCalls,
        tool_calls_by_kind: d?.toolCalls ?? {},
        failed_calls: d?.failedCalls ?? 0,
        failed_commands: d?.failedCommands ?? 0,
        denied_calls: d?.deniedCalls ?? 0,
        prompts: d?.prompts ?? 0,
        collection_methods: d?.methods ?? [],
        tokens: { input: cost.input, output: cost.output, cache_read: cost.cacheRead, cache_write: cost.cacheWrite },
        reported_cost_usd: cost.reportedCost,
        estimated_cost_usd: cost.estimatedCost,
        unpriced_models: cost.unpricedModels,
        _durationNs: s.lastNs - s.firstNs,
      };
    });
    if (values.json) {
      const round = costRounder(costDecimals(pricer.catalog, pricer.overrides));
      for (const { _durationNs, ...r } of rows) await writeLine(JSON.stringify(r, round)); // eslint-disable-line @typescript-eslint/no-unused-vars
      return 0;
    }
    if (rows.length === 0) {
      out(`no sessions match${values.harness === undefined ? '' : unknownHarnessHint(values.harness)}`);
      return 0;
    }
    const columns = sessionColumns<(typeof rows)[number]>();
    const width = tableWidth(env);
    const layout = chooseLayout(columns, rows, width);
    const table = renderTable(columns, rows, width, layout).join('\n');
    for (const line of table.split('\n')) await writeLine(line);
    if (page.total > rows.length) out(`${rows.length} of ${page.total} sessions shown (--limit)`);
    if (layout === 'compact') for (const l of wrapAtSpaces('COST: the list-price estimate (else the reported cost); * some calls unpriced. A wider terminal shows every column, --json the whole ids.', width)) out(l);
    return 0;
  } finally {
    log.close();
  }
}

interface SessionLine {
  id: string; harness: string | null; start: string; _durationNs: bigint; repository: string | null; branch: string | null; models: string[];
  model_calls: number; tool_calls: number; failed_calls: number; failed_commands: number; denied_calls: number;
  tokens: { input: number; output: number; cache_read: number; cache_write: number };
  reported_cost_usd: number | null; estimated_cost_usd: number | null; unpriced_models: string[];
}

/** The table's columns: every one when the terminal has room, else session, agent, start, tokens and cost (src/cli/table.ts). */
function sessionColumns<Row extends SessionLine>(): Column<Row>[] {
  const tokens = (r: Row) => r.tokens.input + r.tokens.output + r.tokens.cache_read + r.tokens.cache_write;
  const unpriced = (r: Row) => (r.unpriced_models.length ? '*' : '');
  return [
    { header: 'SESSION', show: 'key', cell: (r) => r.id, compactCell: (r) => shortId(r.id) },
    { header: 'AGENT', show: 'keep', cell: (r) => r.harness ?? '-' },
    { header: 'START', show: 'keep', cell: (r) => r.start, compactCell: (r) => shortTime(r.start) },
    { header: 'DURATION', show: 'wide', cell: (r) => formatDuration(r._durationNs) },
    { header: 'REPOSITORY', show: 'wide', cell: (r) => (r.repository ? `${r.repository}${r.branch ? ` (${r.branch})` : ''}` : '-') },
    { header: 'MODELS', show: 'wide', cell: (r) => r.models.join(', ') || '-' },
    { header: 'CALLS model/tool', show: 'wide', cell: (r) => `${r.model_calls}/${r.tool_calls}` },
    { header: 'FAILED cmd+tool/DENIED', show: 'wide', cell: (r) => `${r.failed_commands}+${r.failed_calls - r.failed_commands}/${r.denied_calls}` },
    { header: 'TOKENS in/out/cache r/w', show: 'wide', cell: (r) => `${r.tokens.input}/${r.tokens.output}/${r.tokens.cache_read}/${r.tokens.cache_write}` },
    { header: 'TOKENS', show: 'compact', align: 'right', cell: (r) => groupDigits(tokens(r)) },
    { header: 'COST reported | est. list', show: 'wide', cell: (r) => `${usd(r.reported_cost_usd)} | ${usd(r.estimated_cost_usd)}${r.unpriced_models.length ? ' (some unpriced)' : ''}` },
    { header: 'COST', show: 'compact', align: 'right', cell: (r) => `${usd(r.estimated_cost_usd ?? r.reported_cost_usd)}${unpriced(r)}` },
  ];
}
