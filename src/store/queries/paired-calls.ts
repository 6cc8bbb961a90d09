import type { EventLog } from '../log/event-log';

/**
 * The hook records of one session whose call id Beacon made for an agent that sends none (Gemini
 * CLI, Copilot CLI): ids `<key>.<n>`, `key` naming the tool and its arguments. Oldest first. The
 * session index bounds the scan; within it the prefix keeps the rows to this one tool call shape.
 */
export function pairedCallRecords(log: EventLog, sessionId: string, key: string): { id: string; callId: string }[] {
  return log.db
    .prepare(`SELECT id, tool_call_id AS callId FROM events WHERE session_id = ? AND method = 'hook' AND substr(tool_call_id, 1, ?) = ? ORDER BY seq`)
    .all(sessionId, key.length + 1, `${key}.`) as { id: string; callId: string }[];
}
