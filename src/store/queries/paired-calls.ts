import type { EventLog } from '../log/event-log';

/**
 * The hook records of one session whose call id Beacon made for an agent that sends none (Gemini
 * CLI, Copilot CLI): ids `<key>.<n>`, `key` naming the tool and its arguments. Oldest first, each with
 * its pairing id: a call the store has since given the agent's own id from its OTLP export
 * (store/log/call-join.ts) keeps it in `raw.paired_call`, so the calls after it are numbered on. The
 * session index bounds the scan; within it the prefix keeps the rows to this one tool call shape.
 */
export function pairedCallRecords(log: EventLog, sessionId: string, key: string): { id: string; callId: string }[] {
  return log.db
    .prepare(
      `SELECT id, callId FROM (SELECT id, seq, CASE WHEN substr(tool_call_id, 1, 7) = 'beacon:' THEN tool_call_id ELSE json_extract(record, '$.raw.paired_call') END AS callId
         FROM events WHERE session_id = ? AND method = 'hook' AND tool_call_id IS NOT NULL) WHERE substr(callId, 1, ?) = ? ORDER BY seq`,
    )
    .all(sessionId, key.length + 1, `${key}.`) as { id: string; callId: string }[];
}
