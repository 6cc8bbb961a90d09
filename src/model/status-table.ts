import type { BeaconErrorCode } from './errors';

/**
 * The one place Beacon errors become HTTP statuses, for every route of the collector (OTLP, hooks,
 * dashboard, health): here in model because the hook route and the dashboard, ranked beside and
 * below the receiver, answer with it too. gRPC codes follow the Collector's mapping
 * (400→3 InvalidArgument, 404→12 Unimplemented-like, 429→8 ResourceExhausted, 503→14 Unavailable,
 * 500→13 Internal). An oversized export is 413 to HTTP, as the OTLP spec requires, with code 3 in its
 * google.rpc.Status body (the Collector's 400→3), and RESOURCE_EXHAUSTED (8) over OTLP/gRPC, what grpc-go
 * answers the Collector's gRPC clients for a message over its size limit; without a google.rpc.RetryInfo
 * detail (only overload carries one) OTLP exporters do not retry it. `httpBodyCode` is the Status code of
 * an HTTP error body where it differs from the gRPC status.
 * Only 429 and 503 are retryable by OTLP exporters; everything else is final.
 */
export const STATUS_TABLE: Record<BeaconErrorCode, { http: number; grpc: number; httpBodyCode?: number }> = {
  bad_data: { http: 400, grpc: 3 },
  unsupported_encoding: { http: 400, grpc: 3 },
  usage: { http: 400, grpc: 3 },
  host_not_allowed: { http: 403, grpc: 7 },
  unauthorized: { http: 401, grpc: 16 },
  forbidden: { http: 403, grpc: 7 },
  not_found: { http: 404, grpc: 12 },
  method_not_allowed: { http: 405, grpc: 12 },
  conflict: { http: 409, grpc: 9 },
  payload_too_large: { http: 413, grpc: 8, httpBodyCode: 3 },
  unsupported_media_type: { http: 415, grpc: 3 },
  overloaded: { http: 429, grpc: 8 },
  unavailable: { http: 503, grpc: 14 },
  log_incompatible: { http: 500, grpc: 13 },
  internal: { http: 500, grpc: 13 },
};
