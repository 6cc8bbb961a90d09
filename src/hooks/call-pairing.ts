import { callEventId } from '../model/event-id';
import type { EventLog } from '../store/log/event-log';
import { pairedCallRecords } from '../store/queries/paired-calls';

/**
 * Call ids for agents whose hook payloads carry none (Gemini CLI, Copilot CLI), so that a call's
 * pre-tool and post-tool records are one call. A call is named by its session, its tool and its
 * arguments (`key`), and its turn among the calls of that shape: a pre-tool event opens call
 * `<key>.<n+1>` after the `n` already seen; a post-tool event closes the newest open one (a pre-tool
 * record and nothing after it: the agent's own deny leaves one open forever, and the newest is the
 * call that just ran). A post-tool with no open call (its pre-tool was not recorded) gets a call of
 * its own. Read from the log the hook writes; a lookup that fails leaves the call without an id.
 */
export function callPairing(open: () => EventLog): (sessionId: string, key: string, phase: 'pre' | 'post') => string | undefined {
  return (sessionId, key, phase) => {
    try {
      const rows = pairedCallRecords(open(), sessionId, key);
      const calls = [...new Set(rows.map((r) => r.callId))];
      if (phase === 'post') {
        const ended = new Set(rows.filter((r) => r.id !== callEventId(sessionId, 'tool.invoked', r.callId)).map((r) => r.callId));
        const openCall = calls.filter((c) => !ended.has(c)).pop();
        if (openCall) return openCall;
      }
      return `${key}.${calls.length + 1}`;
    } catch {
      return undefined;
    }
  };
}
