import { BeaconError, isBeaconError } from '../model/errors';
import type { SpanRecord } from '../model/span';
import type { Reservation } from './admission';
import { decodeContent } from './body';
import { countJsonItems, countJsonLogs, countJsonMetrics, decodeJsonTraces, parseOtlpJson } from './decode-json';
import { countProtoLogs, countProtoMetrics, decodeProtoTraces, requestType } from './decode-proto';
import type { Encoding, Signal } from './signals';
import { countWire } from './wire-count';

export interface DecodeLimits {
  /** largest body, after decompression */
  maxBodyBytes: number;
  /** most spans (or log records, or metric data points) in one export */
  maxItemsPerExport: number;
}

export interface DecodedExport {
  /** spans of a trace export */
  spans?: SpanRecord[];
  /** spans, data points or log records */
  items: number;
  decodedBytes: number;
}

/**
 * What decoding allocates, for the in-flight budget: measured with protobufjs and JSON.parse,
 * ~120 bytes per decoded message (an empty span included) plus ~120 per mapped record, and about
 * three times the body for strings and copies. Rounded up: the estimate must not undercount.
 */
const BYTES_PER_MESSAGE = 256;
const BYTES_PER_BODY_BYTE = 3;

/**
 * body → decompressed → counted → decoded, taking each step's memory from the export's reservation
 * before it is allocated. Any failure is a BeaconError: what cannot be decoded is bad data (400),
 * never a 500, whatever the decoder threw.
 */
export async function decodeExport(signal: Signal, encoding: Encoding, raw: Buffer, contentEncoding: string | undefined, limits: DecodeLimits, reservation: Reservation): Promise<DecodedExport> {
  const body = await decodeContent(raw, contentEncoding, limits.maxBodyBytes, reservation);
  // An empty body is an export with no telemetry: success, in either encoding.
  if (body.length === 0) return { items: 0, decodedBytes: 0 };
  try {
    if (encoding === 'protobuf') {
      const counts = countWire(requestType(signal), body);
      checkItems(signal, counts.items, limits);
      reservation.grow(body.length * BYTES_PER_BODY_BYTE + counts.messages * BYTES_PER_MESSAGE);
      if (signal === 'traces') {
        const spans = decodeProtoTraces(body);
        return { spans, items: spans.length, decodedBytes: body.length };
      }
      return { items: signal === 'metrics' ? countProtoMetrics(body) : countProtoLogs(body), decodedBytes: body.length };
    }
    reservation.grow(body.length * BYTES_PER_BODY_BYTE + countContainers(body) * BYTES_PER_MESSAGE);
    const req = parseOtlpJson(body);
    checkItems(signal, countJsonItems(signal, req), limits);
    if (signal === 'traces') {
      const spans = decodeJsonTraces(req);
      return { spans, items: spans.length, decodedBytes: body.length };
    }
    return { items: signal === 'metrics' ? countJsonMetrics(req) : countJsonLogs(req), decodedBytes: body.length };
  } catch (e) {
    if (isBeaconError(e)) throw e;
    throw new BeaconError('bad_data', `undecodable ${signal} export: ${(e as Error).message}`);
  }
}

function checkItems(signal: Signal, n: number, limits: DecodeLimits): void {
  if (n <= limits.maxItemsPerExport) return;
  const what = signal === 'traces' ? 'spans' : signal === 'metrics' ? 'data points' : 'log records';
  throw new BeaconError('payload_too_large', `the export holds ${n} ${what}, more than the limit of ${limits.maxItemsPerExport} per export (maxSpansPerExport)`);
}

/** `{` and `[` in a JSON body: an upper bound on the objects and arrays JSON.parse will make. */
function countContainers(body: Buffer): number {
  let n = 0;
  for (const c of [0x7b, 0x5b]) for (let at = body.indexOf(c); at >= 0; at = body.indexOf(c, at + 1)) n++;
  return n;
}
