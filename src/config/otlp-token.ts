import { BeaconError } from '../model/errors';
import { tokenMatches } from './hook-token';

/**
 * The optional OTLP token (config `otlpToken`): when it is set, every export must carry
 * `Authorization: Bearer <token>` — agents send it through their own OTEL_EXPORTER_OTLP_HEADERS
 * (or their settings' headers), and `beacon install <agent>` writes it there. Without it any local
 * user can write events into another's log (issue 22: "another local user unable to write events").
 * One check for every OTLP transport: the HTTP receiver calls it with the `authorization` header,
 * the gRPC receiver with the `authorization` metadata value.
 */
export function checkOtlpToken(expected: string | undefined, authorization: string | readonly string[] | undefined): void {
  if (expected === undefined || expected === '') return;
  const value = Array.isArray(authorization) ? authorization[0] : (authorization as string | undefined);
  // The scheme is case-insensitive (RFC 9110); the token is compared in constant time.
  const m = /^bearer[ \t]+(\S+)[ \t]*$/i.exec(value ?? '');
  if (!tokenMatches(expected, m?.[1])) {
    throw new BeaconError('unauthorized', value === undefined
      ? 'this collector requires its OTLP token (otlpToken): send Authorization: Bearer <token>, e.g. OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer <token>"'
      : 'the Authorization header does not carry this collector\'s OTLP token (otlpToken)');
  }
}

/** The value for OTEL_EXPORTER_OTLP_HEADERS (W3C-baggage-like `key=value` pairs) that carries the token. */
export function otlpHeadersValue(token: string): string {
  return `Authorization=Bearer ${token}`;
}
