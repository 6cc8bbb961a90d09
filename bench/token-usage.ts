/**
 * `beacon token-usage` over a log of one million events (half of them model calls across 200
 * sessions, 30 days and 4 models), timed as a user runs it: the whole CLI process, and the query alone.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { benchCacheDir } from './fixture';
import { EventLog } from '../src/store/log/event-log';
import type { EventRow } from '../src/store/log/row';
import { queryUsage } from '../src/store/queries/usage';
import { BEACON_BIN } from '../test/helpers/paths';

const EVENTS = 1_000_000;
const MODELS: [string, string][] = [['claude-sonnet-4-5-20250929', 'anthropic'], ['gpt-5.4', 'openai'], ['gemini-2.5-pro', 'google'], ['my-local-model', 'ollama']];

function buildLog(path: string): void {
  const log = EventLog.open(path);
  const t0 = 1785000000000000000n;
  const record = JSON.stringify({ vendor: 'beacon', note: 'x'.repeat(300) });
  for (let batch = 0; batch < EVENTS / 10000; batch++) {
    const rows: EventRow[] = [];
    for (let j = 0; j < 10000; j++) {
      const i = batch * 10000 + j;
      const model = i % 2 === 0;
      const [m, p] = MODELS[i % 4]!;
      rows.push({
        id: `bench-${i}`, tsNs: t0 + BigInt(i) * 2_592_000_000_000n / BigInt(EVENTS) * 1000n, harness: 'goose', method: model ? 'otlp' : 'hook',
        action: model ? 'model.invoked' : 'command.executed', sessionId: `s${i % 200}`, traceId: `t${i}`, spanId: `x${i}`, parentSpanId: null, toolCallId: null,
        model: model ? m : null, provider: model ? p : null, inputTokens: model ? 500 + (i % 1000) : null, outputTokens: model ? 200 : null,
        cacheReadTokens: model ? 10000 + (i % 300000) : null, cacheCreationTokens: model ? 1000 : null, reasoningTokens: null, costUsd: null, record, dropIfChatChildStored: false,
      });
    }
    log.append(rows);
  }
  log.close();
}

export function benchTokenUsage(): Record<string, number> {
  const path = join(benchCacheDir(), '1m-v2.db');
  if (!existsSync(path)) {
    const t = performance.now();
    buildLog(path);
    console.log(`built a ${EVENTS.toLocaleString()}-event log in ${((performance.now() - t) / 1000).toFixed(1)} s (${path}, reused by later runs)`);
  }
  const log = EventLog.open(path);
  const q = (by: 'model' | 'session' | 'day') => {
    const t = performance.now();
    queryUsage(log.db, {}, by);
    return performance.now() - t;
  };
  q('model');
  const queryModel = q('model');
  const querySession = q('session');
  const queryDay = q('day');
  log.close();
  const cli = (args: string[]) => {
    const t = performance.now();
    const r = spawnSync(process.execPath, [BEACON_BIN, 'token-usage', '--log', path, ...args], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
    return performance.now() - t;
  };
  cli(['--json']);
  const cliModel = cli(['--json']);
  const cliSession = cli(['--by', 'session']);
  const bare = (() => {
    const t = performance.now();
    spawnSync(process.execPath, ['-e', '0']);
    return performance.now() - t;
  })();
  console.log(
    `token-usage over ${EVENTS.toLocaleString()} events (${(EVENTS / 2).toLocaleString()} model calls): whole CLI ${cliModel.toFixed(0)} ms by model, ${cliSession.toFixed(0)} ms by session ` +
      `(bare node start ${bare.toFixed(0)} ms); query alone ${queryModel.toFixed(0)} / ${querySession.toFixed(0)} / ${queryDay.toFixed(0)} ms by model / session / day`,
  );
  return { tokenUsageCliMs: cliModel, tokenUsageCliSessionMs: cliSession, tokenUsageQueryMs: queryModel };
}
