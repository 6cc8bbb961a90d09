/**
 * Every failure Beacon reports is one of these codes. They are typed once here; every HTTP route
 * (OTLP, hooks, dashboard, health) answers them with the status of one table (status-table.ts),
 * the CLIs with exit codes.
 */
export type BeaconErrorCode =
  | 'bad_data' // undecodable or invalid input: never retried
  | 'unsupported_media_type'
  | 'unsupported_encoding'
  | 'payload_too_large'
  | 'not_found'
  | 'method_not_allowed'
  | 'host_not_allowed' // a Host header that is not this machine's loopback name (DNS rebinding defence)
  | 'forbidden' // the dashboard's token is set and the request lacks it; a hook request from a web page (Origin)
  | 'unauthorized' // a hook request without the hook token of the log's 0600 token file
  | 'conflict' // a hook request for another event log than the one this collector writes
  | 'unavailable' // temporary: shutting down, database busy; the client should retry
  | 'overloaded' // temporary: too much in flight; the client should retry later
  | 'log_incompatible' // the event log file is not ours, or from a newer Beacon
  | 'unsafe_file' // one of Beacon's files or directories is another user's, writable by others, a symlink or not a regular file (model/file-checks.ts)
  | 'usage' // a command line the CLI cannot run
  | 'internal';

export class BeaconError extends Error {
  readonly code: BeaconErrorCode;
  /** Seconds a client should wait before retrying, for temporary failures. */
  readonly retryAfterSeconds?: number;

  constructor(code: BeaconErrorCode, message: string, options?: { cause?: unknown; retryAfterSeconds?: number }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'BeaconError';
    this.code = code;
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
}

export function isBeaconError(e: unknown): e is BeaconError {
  return e instanceof BeaconError;
}
