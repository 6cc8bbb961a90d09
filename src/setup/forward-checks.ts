import type { ForwardHealth } from '../model/health';
import type { Check } from './doctor';

/** One destination of /health's `forward` list (the one /health type, src/model/health.ts). */
export type ForwardEntry = ForwardHealth;

/**
 * One check per forward destination, from the collector's `/health` `forward` list: is it
 * delivering, how far behind is it, and is retention about to take what it has not received?
 * No destination configured (or no collector answering): no check.
 */
export function forwardChecks(list: readonly ForwardEntry[] | undefined): Check[] {
  return Array.isArray(list) ? list.map((f) => judgeForward(f)) : [];
}

export function judgeForward(f: ForwardEntry): Check {
  const id = `forward-${f.name}`;
  const behind = f.lagRecords === 0 ? 'caught up' : `${f.lagRecords} events behind (oldest ${f.lagSeconds} s)`;
  const last = f.lastSuccessAt ? `last delivery ${f.lastSuccessAt}` : 'nothing delivered yet';
  const why = f.lastError ? `: ${f.lastError.message}` : '';
  if ((f.lostToRetention ?? 0) > 0) {
    return { id, status: 'fail', message: `${f.name} (${f.type}): retention pruned ${f.lostToRetention} events it never received; ${behind}`, fix: 'raise retentionMaxBytes or fix the destination; those events are only in runtime.jsonl archives, if any' };
  }
  if (f.state === 'paused') {
    return { id, status: 'fail', message: `${f.name} (${f.type}) refused events and is paused${why}; ${behind}`, fix: 'fix the endpoint or credentials in the collector config and restart the collector (a paused destination retries every 5 minutes)' };
  }
  if (f.state === 'retrying' || f.state === 'restarting' || f.state === 'failed') {
    return { id, status: 'warn', message: `${f.name} (${f.type}) cannot deliver right now${why}; ${behind}; ${last}`, fix: 'check that the receiver is up and reachable; events wait in the log and are sent when it is' };
  }
  if (f.retention === 'at-risk') {
    return { id, status: 'warn', message: `${f.name} (${f.type}): ${behind} and the log is near retentionMaxBytes: events it has not received may be pruned`, fix: 'raise retentionMaxBytes, or check why the destination is slow' };
  }
  return { id, status: 'ok', message: `${f.name} (${f.type}): ${behind}; ${last}` };
}
