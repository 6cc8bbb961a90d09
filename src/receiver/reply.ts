import { OtlpTypes } from './proto-root';
import type { Encoding } from './body';
import type { OtlpSignal } from './signals/signal';

export const MEDIA_TYPES: Record<Encoding, string> = {
  protobuf: 'application/x-protobuf',
  json: 'application/json',
};

/**
 * `Export*ServiceResponse` in the request's encoding. On full success `partial_success` is left unset,
 * as the spec asks (an empty protobuf body, `{}` in JSON); with rejections it carries the count and why.
 */
export function encodeExportResponse(signal: OtlpSignal, encoding: Encoding, rejected: number, message: string): Buffer {
  const { partialSuccessField: key, responseType: type } = signal;
  if (encoding === 'json') {
    // proto3 JSON writes int64 as a decimal string
    return Buffer.from(rejected > 0 || message ? JSON.stringify({ partialSuccess: { [key]: String(rejected), errorMessage: message } }) : '{}');
  }
  const msg = rejected > 0 || message ? { partialSuccess: { [key]: rejected, errorMessage: message } } : {};
  return Buffer.from(type.encode(type.create(msg)).finish());
}

/** `google.rpc.Status`, the body of every OTLP/HTTP error, in the request's encoding. */
export function encodeStatus(encoding: Encoding, code: number, message: string): Buffer {
  // Buffers, not strings: fastify would append "; charset=utf-8" to the media type of a string body.
  if (encoding === 'json') return Buffer.from(JSON.stringify({ code, message }));
  return Buffer.from(OtlpTypes.status.encode(OtlpTypes.status.create({ code, message })).finish());
}
