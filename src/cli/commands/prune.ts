import { collectorConfig } from '../../config/config';
import { CONFIG_KEYS, shownDefault } from '../../config/config-keys';
import { BeaconError } from '../../model/errors';
import { parseCommand, type CommandIO, type CommandSpec } from '../args';
import { configFlags, configOption } from '../config-flags';
import { inspectLog, logProblem, noLogMessage } from '../log-access';
import { formatBytes, plural } from '../format';
import { EventLog } from '../../store/log/event-log';
import { prune } from '../../store/maintenance/retention';

export const spec = {
  name: 'beacon prune',
  summary: 'apply the retention policy to the event log now',
  usage: '[--log PATH] [--config FILE] [--max-age-days N] [--max-bytes N]',
  description: `Applies the retention policy now (the collector also does it every ${CONFIG_KEYS.retentionIntervalMs.default! / 60_000} minutes): events received longer ago than
retentionMaxAgeDays (judged by when Beacon received an event, not by the time it carries) (default ${shownDefault('retentionMaxAgeDays')}) go, then the oldest while the log holds more than retentionMaxBytes
(default ${shownDefault('retentionMaxBytes')}). 0 turns a limit off. A log that does not exist is left so: nothing is created.`,
  options: {
    log: configOption('log'),
    config: { type: 'string', arg: 'FILE', help: 'the config file (default ~/.beacon/endpoint/config.json)' },
    'max-age-days': configOption('retentionMaxAgeDays'),
    'max-bytes': configOption('retentionMaxBytes'),
  },
  examples: ['beacon prune', 'beacon prune --max-age-days 30', 'beacon prune --max-age-days 0 --max-bytes 536870912'],
} as const satisfies CommandSpec;

export function run(argv: string[], { env, out }: Pick<CommandIO, 'env' | 'out'>): number {
  const parsed = parseCommand(spec, argv, out);
  if (!parsed) return 0;
  const { values } = parsed;
  const cfg = collectorConfig(values.config, env, configFlags(values));
  const state = inspectLog(cfg.log);
  if (state.kind === 'missing') {
    out(`nothing to prune: ${noLogMessage(cfg.log)}`);
    return 0;
  }
  const problem = logProblem(cfg.log, state);
  if (problem) throw new BeaconError('log_incompatible', problem);
  const log = EventLog.open(cfg.log);
  try {
    const r = prune(log.db, { maxAgeDays: cfg.retentionMaxAgeDays, maxBytes: cfg.retentionMaxBytes }, BigInt(Date.now()) * 1_000_000n);
    const age = cfg.retentionMaxAgeDays > 0 ? `${plural(r.deletedByAge, 'event')} received more than ${plural(cfg.retentionMaxAgeDays, 'day')} ago` : 'no events by age (no age limit)';
    const size = cfg.retentionMaxBytes > 0 ? `${plural(r.deletedBySize, 'event')} for size (limit ${mb(cfg.retentionMaxBytes)})` : 'none for size (no size limit)';
    out(`${cfg.log}: removed ${age} and ${size}; data ${mb(r.bytesBefore)} → ${mb(r.bytesAfter)}`);
    if (r.heldForForwarding > 0) out(`kept ${plural(r.heldForForwarding, 'event')} past the age limit: a forward destination has not received them yet`);
    for (const [name, n] of Object.entries(r.unforwardedDeleted)) out(`forward destination ${name}: ${plural(n, 'event')} it had not received removed for size`);
  } finally {
    log.close();
  }
  return 0;
}

const mb = formatBytes;
