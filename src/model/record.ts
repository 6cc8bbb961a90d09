/**
 * The Beacon record, schema 1.0: the nested JSON every writer (collector, hooks, stream adapter)
 * stores in the event log, field-compatible with the Go Beacon's runtime.jsonl so that SIEM
 * content written for Beacon works on our export. Our one extension is `reasoning{text}`.
 */
export const SCHEMA_VERSION = '1.0';

/** `poll`: read from the agent's own session store (`beacon import`), the Go Beacon's word for it. */
export type CollectionMethod = 'otlp' | 'hook' | 'stream' | 'poll';
export type Severity = 'info' | 'low' | 'medium' | 'high' | 'critical';
export type Fidelity = 'observed' | 'inferred';

export interface Usage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read?: { input_tokens: number };
  cache_creation?: { input_tokens: number };
  reasoning?: { output_tokens: number };
  cost_usd?: number;
}

export interface ContentMarker {
  retention: 'full' | 'redacted' | 'metadata';
  included: boolean;
  hash?: string;
  bytes?: number;
  truncated?: boolean;
  redacted?: boolean;
}

export interface BeaconRecord {
  timestamp: string;
  vendor: 'beacon';
  product: 'endpoint-agent';
  schema_version: typeof SCHEMA_VERSION;
  event: {
    kind: 'agent_runtime'; action: string; category?: string; id: string; fidelity?: Fidelity;
    /** extension: the ids of records of the same call or prompt another path brought, merged into this one */
    merged_ids?: string[];
    /** extension: the collection paths of the records in `merged_ids` (one record absorbs at most one of each path) */
    merged_paths?: CollectionMethod[];
  };
  severity: Severity;
  endpoint: { hostname?: string; os: string; agent_version?: string };
  user?: { name?: string; uid?: string };
  harness: { name: string; version?: string; collection_method: CollectionMethod };
  session?: { id?: string; working_directory?: string };
  trace?: { id?: string; span_id?: string; parent_span_id?: string };
  error?: { type?: string };
  tool?: { name?: string; command?: string; path?: string };
  file?: { path?: string; operation?: string; language?: string; diff_hash?: string; diff_bytes?: number; diff?: string };
  command?: { command?: string; exit_code?: number; duration_ms?: number; output?: string };
  mcp?: { server?: string; tool?: string };
  approval?: { required?: boolean; decision?: string; reason?: string };
  policy?: { id?: string; name?: string; decision?: string; enforcement?: string; reason?: string };
  /**
   * `id` and `length` are extensions: the agent's prompt id and its count of the prompt's characters,
   * where a path carries them, so a prompt's hook and OTLP records are found to be one (store/log/prompt-join.ts);
   * a turn's end carries its prompt's id too, so its hook and OTLP records are one (store/log/turn-join.ts)
   */
  prompt?: { text?: string; id?: string; length?: number };
  content?: ContentMarker;
  gen_ai?: GenAiFields;
  reasoning?: { text: string };
  /** extension: what a runtime's own security inspection said (goose's security log records) */
  security?: SecurityFields;
  /** a network destination a tool call reaches (goose's egress inspector) */
  network?: { destination?: string; domain?: string; egress_kind?: string; direction?: string };
  /** extension: a per-process summary of a runtime's counter (goose's OTLP metrics) */
  metric?: MetricSummary;
  /** the agent's final answer of a turn (goose's Stop hook `last_assistant_message`) */
  response?: { text: string };
  model?: string;
  repository?: string;
  branch?: string;
  message?: string;
  raw?: Record<string, unknown>;
  field_truncated?: boolean;
}

export interface SecurityFields {
  /** the runtime's own record type, e.g. goose's `prompt_injection_scan`, `inspection_result` */
  event_type: string;
  /** as the runtime said it: BLOCK, LOG, ALERT, ALLOW */
  action?: string;
  confidence?: number;
  threshold?: number;
  above_threshold?: boolean;
  threat_type?: string;
  finding_id?: string;
  /** the scanner's or reviewer's explanation: may quote the scanned command (redacted like any text) */
  explanation?: string;
  /** the inspector that decided (goose: security, egress, adversary, repetition) */
  inspector?: string;
}

export interface MetricSummary {
  name: string;
  unit?: string;
  temporality: 'cumulative' | 'delta' | 'unspecified';
  /** the counter's start: for a cumulative counter, the process's first such event (a restart starts anew) */
  start_time: string;
  /** when the runtime collected the values */
  time: string;
  /** the sum over all points below */
  total: number;
  /** one entry per combination of the kept (non-content) attributes, largest first */
  points: { attributes: Record<string, string | number | boolean>; value: number }[];
}

export interface GenAiFields {
  operation?: { name: string };
  provider?: { name: string };
  conversation?: { id: string };
  request?: { model?: string; max_tokens?: number; temperature?: number; stream?: boolean };
  response?: { id?: string; model?: string; finish_reasons?: string[] };
  usage?: Usage;
  output?: { messages?: unknown };
  tool?: { name?: string; type?: string; call?: { id?: string; arguments?: unknown; result?: unknown } };
  agent?: { name?: string };
  /** extension: how long the call took, where the agent reports it */
  duration_ms?: number;
}

/**
 * An event as the normalizing stages (genai for OTLP spans, hooks, stream) hand it to the ingest
 * stage: the record plus the time the store indexes. Ingest redacts and limits it and turns it
 * into an `EventRow`; nothing else may.
 */
export interface NormalizedEvent {
  record: BeaconRecord;
  /** span start (OTLP) or observation time, ns since the epoch */
  timeUnixNano: bigint;
  /** set on a chat span that may be a wrapper of another chat span already stored (goose's opt-in loop) */
  dropIfChatChildStored?: boolean;
  /**
   * set on a model call or prompt another path may have recorded already (an import of an agent's
   * store beside its OTLP export): the store merges it into that record instead of adding a second
   */
  mergeWithStored?: boolean;
  /**
   * set on a tool call record of an agent some of whose paths send no call id (Gemini CLI's and
   * Copilot CLI's hooks, Gemini's tool log record): the store gives it the id another path's record
   * of the same call holds, or gives it that record's (store/log/call-join.ts)
   */
  joinCall?: boolean;
  /**
   * set on a failed tool call read from an agent's store: the id its record had when the store was
   * read before its outcome (the agent mid-call); the store removes that record (store/log/call-join.ts)
   */
  supersedes?: string;
  /** set on a tool call read from an agent's store without its outcome: the id its record takes once failed (when stored, this one adds nothing) */
  supersededBy?: string;
}

/** Where an event's primary content sits, so it gets a content marker (hash and size of the original). */
export type ContentField = 'prompt.text' | 'command.command' | 'file.diff' | 'reasoning.text' | 'response.text';
