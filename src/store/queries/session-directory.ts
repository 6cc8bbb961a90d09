import type { EventLog } from '../log/event-log';

/**
 * The working directory goose last reported for a session, from the hook events that carry one.
 * goose sends `prompt.submitted` and `session.started` without `working_dir` in its default loop;
 * this is how they still get their repository and branch (never the hook process's own cwd, which
 * under the desktop app is the application bundle). The session index bounds the scan to one session,
 * newest first, and the newest tool event almost always has it.
 */
export function lastWorkingDirectory(log: EventLog, sessionId: string): string | undefined {
  const row = log.db
    .prepare(
      `SELECT json_extract(record, '$.session.working_directory') AS dir FROM events
        WHERE session_id = ? AND method = 'hook' AND json_extract(record, '$.session.working_directory') IS NOT NULL
        ORDER BY ts_ns DESC LIMIT 1`,
    )
    .get(sessionId) as { dir?: unknown } | undefined;
  return typeof row?.dir === 'string' && row.dir !== '' ? row.dir : undefined;
}
