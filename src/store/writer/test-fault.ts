import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';

/**
 * Test-only fault injection, honoured only by the store's worker threads (writer, checkpointer,
 * retention) and only when `BEACON_TEST_FAULT_<THREAD>` names a file. The file holds `N` or
 * `N:ARG`: each thread start while it exists takes one of the N (the last one removes the file) and
 * gets ARG ('' when absent) — the thread then fails as a crash would. Without the variable this is
 * one env lookup per thread start. The fault battery (test/integration/store-faults.test.ts) uses it.
 */
export function takeTestFault(thread: 'WRITER' | 'CHECKPOINTER' | 'RETENTION'): string | undefined {
  const file = process.env[`BEACON_TEST_FAULT_${thread}`];
  if (!file) return undefined;
  try {
    const [count, arg = ''] = readFileSync(file, 'utf8').trim().split(':');
    const n = Number(count);
    if (!(n >= 1)) return undefined;
    if (n > 1) writeFileSync(file, arg ? `${n - 1}:${arg}` : String(n - 1));
    else unlinkSync(file);
    return arg;
  } catch {
    return undefined;
  }
}
