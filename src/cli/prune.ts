import { parseArgs } from 'node:util';
import { parseIntStrict, readConfigFile, readEnv, resolveCollectorConfig } from '../config/config';
import { EventLog } from '../store/event-log';
import { prune } from '../store/retention';

export const PRUNE_USAGE = `beacon prune [--log PATH] [--config FILE] [--max-age-days N] [--max-bytes N]

Applies the retention policy now (the collector also does it every 10 minutes): events older than
retentionMaxAgeDays (default 90) go, then the oldest while the log holds more than retentionMaxBytes
(default 2 GiB). 0 turns a limit off.`;

export function runPrune(argv: string[], env: NodeJS.ProcessEnv, out: (s: string) => void): number {
  const { values } = parseArgs({
    args: argv,
    options: { log: { type: 'string' }, config: { type: 'string' }, 'max-age-days': { type: 'string' }, 'max-bytes': { type: 'string' } },
    strict: true,
  });
  const cfg = resolveCollectorConfig(
    {
      file: readConfigFile(values.config, env),
      env: readEnv(env),
      flags: {
        log: values.log,
        retentionMaxAgeDays: values['max-age-days'] === undefined ? undefined : parseIntStrict(values['max-age-days'], '--max-age-days'),
        retentionMaxBytes: values['max-bytes'] === undefined ? undefined : parseIntStrict(values['max-bytes'], '--max-bytes'),
      },
    },
    env,
  );
  const log = EventLog.open(cfg.log);
  try {
    const r = prune(log.db, { maxAgeDays: cfg.retentionMaxAgeDays, maxBytes: cfg.retentionMaxBytes }, BigInt(Date.now()) * 1_000_000n);
    out(`${cfg.log}: removed ${r.deletedByAge} events older than ${cfg.retentionMaxAgeDays || '∞'} days and ${r.deletedBySize} for size; data ${mb(r.bytesBefore)} → ${mb(r.bytesAfter)}`);
    if (r.heldForForwarding > 0) out(`kept ${r.heldForForwarding} events past the age limit: a forward destination has not received them yet`);
    for (const [name, n] of Object.entries(r.unforwardedDeleted)) out(`forward destination ${name}: ${n} events it had not received were removed for size`);
  } finally {
    log.close();
  }
  return 0;
}

const mb = (b: number) => `${(b / 1048576).toFixed(1)} MiB`;
