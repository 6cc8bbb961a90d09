/**
 * The `GET /health` document, declared once: the collector writes it (src/collector/health.ts), the
 * dashboard shows it (through the collector's report function, never a request to itself), doctor
 * and forwarding checks read it over HTTP. Doctor may reach another program or another Beacon
 * version, so it reads a `Partial` and checks each field it uses.
 */
export type HealthStatus = 'ok' | 'degraded' | 'unavailable' | 'stopping';

export interface HealthError {
  message: string;
  /** RFC 3339 */
  at: string;
}

/** A supervised thread (the store's writer, checkpointer, retention). */
export interface ThreadHealth {
  state: 'idle' | 'running' | 'restarting' | 'failed';
  /** starts after the first one that followed a failure */
  restarts: number;
  lastError?: HealthError;
}

/** Requests on the hook route: received, and refused by why (each refusal is a BeaconError code's reason). */
export interface HookRouteHealth {
  received: number;
  refused: Record<'token' | 'content_type' | 'origin' | 'host' | 'wrong_log', number>;
}

/**
 * One entry of the `forward` list (the contract in BRIEF.md: name, type, lagRecords, lagSeconds,
 * lastSuccessAt, lastError), plus what doctor and the dashboard need to explain it.
 */
export interface ForwardHealth {
  name: string;
  /** a destination type's name (src/forward/registry.ts): a new type needs no change here */
  type: string;
  /** the worker's state (idle, sending, retrying, paused), or starting / restarting / failed from its supervisor */
  state: 'idle' | 'sending' | 'retrying' | 'paused' | 'starting' | 'restarting' | 'failed';
  /** committed events not yet acknowledged by this destination */
  lagRecords: number;
  /** age of the oldest of them (its event time), 0 when none */
  lagSeconds: number;
  lastSuccessAt: string | null;
  lastError: HealthError | null;
  cursor: string;
  forwarded: number;
  rejected: number;
  retries: number;
  /** `holding`: past the age limit, kept for this destination; `at-risk`: the size limit may prune unsent events */
  retention: 'ok' | 'holding' | 'at-risk';
  /** unsent events the size limit pruned (since the collector started) */
  lostToRetention: number;
}

/**
 * The receiver's counters: exports, events stored and duplicates; per signal the items received
 * (`spans`, `logRecords`, `metricPoints`) and refused (`rejectedSpans`, `rejectedLogRecords`,
 * `rejectedDataPoints`: the OTLP partial-success names); `rejected` is all items refused.
 */
export interface ReceiverCounters {
  exports: number;
  inserted: number;
  duplicates: number;
  rejected: number;
  spans: number;
  logRecords: number;
  metricPoints: number;
  rejectedSpans: number;
  rejectedLogRecords: number;
  rejectedDataPoints: number;
}

export interface HookFailureHealth {
  /** hook.failed records appended through this collector since it started (a retried export's count again: doctor counts from the log) */
  count: number;
  /** the newest one's event time, or null */
  last: string | null;
}

/**
 * OTLP/gRPC beside OTLP/HTTP (`grpcPort`): where it listens, or why it does not, and its own
 * counters (the report's top-level counters are the totals of both transports).
 */
export interface GrpcHealth extends ReceiverCounters {
  /** `down`: it could not listen (a port in use…; `error` says why); `off`: `grpcPort` 0 */
  state: 'listening' | 'down' | 'off' | 'stopping';
  /** host:port, e.g. 127.0.0.1:4317; null when off */
  address: string | null;
  error?: string;
  /** down, and trying to listen again in the background */
  retrying?: boolean;
}

/**
 * The runtime.jsonl export, when `exportPath` is set. `refused`: the path failed the file checks
 * (another user's directory or file, a symlink…), so nothing is written there; `failing`: a write
 * failed (a full disk…). Either way events are still stored in the log, and the export is tried
 * again (from where its file ends) every 250 ms.
 */
export interface ExportHealth {
  path: string;
  state: 'exporting' | 'refused' | 'failing';
  /** the last log sequence written to the file */
  cursor: string;
  lastError: HealthError | null;
}

/** Spool segments the collector could not ingest since it started (src/collector/spool-loop.ts). */
/** The follow of the agents' session stores (`importFollow`, src/collector/import-follow-loop.ts). */
export interface ImportFollowHealth {
  agents: string[];
  /** store roots watched by fs.watch (the others are polled only) */
  watching: number;
  passes: number;
  /** files whose reader is kept, waiting for more */
  open: number;
  /** events added since the start */
  added: number;
  bytesRead: number;
  lastPassAt: string | null;
  lastError: string | null;
}

export interface SpoolHealth {
  /** refused (not ours, not a regular file, not rows) and renamed to `*.bad` */
  setAside: number;
  /** refused, and could not be renamed either: skipped (and their rename retried) on every pass */
  unmovable: number;
}

/**
 * The check of who sends OTLP (receiver/sender-check.ts): `on` refuses exports from other local
 * users' sockets; `off` with `otlpAllowOtherUsers`; `unsupported` without /proc/net/tcp (macOS).
 */
export interface SenderCheckHealth {
  check: 'on' | 'off' | 'unsupported';
  /** exports refused for coming from another local user */
  refused: number;
}

export interface HealthReport extends ReceiverCounters {
  status: HealthStatus;
  version: string;
  pid: number;
  log: { path: string; bytes: number };
  threads: { writer: ThreadHealth; checkpointer: ThreadHealth; retention: ThreadHealth };
  queue: { exports: number; bytes: number };
  checkpoints: { restarts: number; longestRestartMs: number };
  /** appends acknowledged after an fsync of the WAL (OTLP exports) and without one (hook events) */
  acknowledged: { fsynced: number; unsynced: number };
  lastError?: HealthError;
  /** the same as queue.exports (kept for readers of the first /health) */
  pending_exports: number;
  /** bytes admission holds for exports in flight (the same as queue.bytes) */
  bytes_in_flight: number;
  /** requests refused for a Host header that is not this machine's (DNS rebinding defence) */
  host_refused: number;
  /** OTLP exports from other local users; absent from collectors without the check (older ones) */
  senders?: SenderCheckHealth;
  hooks?: HookRouteHealth;
  /** Beacon's own goose hooks failing (failed open, exited non-zero, could not run), as this collector recorded them */
  hookFailures?: HookFailureHealth;
  /** OTLP/gRPC; absent from collectors without it (older ones, in-process test apps) */
  grpc?: GrpcHealth;
  /** one entry per forward destination; absent when none is configured */
  forward?: ForwardHealth[];
  /** absent when no `exportPath` is configured */
  export?: ExportHealth;
  spool?: SpoolHealth;
  /** absent unless `importFollow` is set */
  importFollow?: ImportFollowHealth;
}

/** The report and the HTTP status it is served with: 200 while the collector can store, 503 when it cannot. */
export interface HealthAnswer {
  httpStatus: number;
  body: HealthReport;
}
