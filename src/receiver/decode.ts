import { BeaconError, isBeaconError } from '../model/errors';
import type { Reservation } from './admission';
import { decodeContent, type Encoding } from './body';
import { parseOtlpJson } from './otlp-json';
import type { OtlpSignal } from './signals/signal';
import { countWire } from './wire-count';

export interface DecodeLimits {
  /** largest body, after decompression */
  maxBodyBytes: number;
  /** most spans (or log records, or metric data points) in one export */
  maxItemsPerExport: number;
}

export interface DecodedExport<Decoded = unknown> {
  /** what the signal's decoder made of the body; absent for an empty body */
  decoded?: Decoded;
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
export async function decodeExport<D>(signal: OtlpSignal<D>, encoding: Encoding, raw: Buffer, contentEncoding: string | undefined, limits: DecodeLimits, reservation: Reservation): Promise<DecodedExport<D>> {
  const body = await decodeContent(raw, contentEncoding, limits.maxBodyBytes, reservation);
  // An empty body is an export with no telemetry: success, in either encoding.
  if (body.length === 0) return { items: 0, decodedBytes: 0 };
  try {
    let decoded: D;
    if (encoding === 'protobuf') {
      const counts = countWire(signal.requestType, body);
      checkItems(signal, counts.items, limits);
      reservation.grow(body.length * BYTES_PER_BODY_BYTE + counts.messages * BYTES_PER_MESSAGE);
      decoded = signal.decodeProtobuf(body);
    } else {
      reservation.grow(body.length * BYTES_PER_BODY_BYTE + countContainers(body) * BYTES_PER_MESSAGE);
      const req = parseOtlpJson(body);
      checkItems(signal, signal.countJson(req), limits);
      decoded = signal.decodeJson(req);
    }
    return { decoded, items: signal.count(decoded), decodedBytes: body.length };
  } catch (e) {
    if (isBeaconError(e)) throw e;
    throw new BeaconError('bad_data', `undecodable ${signal.name} export: ${(e as Error).message}`);
  }
}

function checkItems(signal: OtlpSignal<unknown>, n: number, limits: DecodeLimits): void {
  if (n <= limits.maxItemsPerExport) return;
  throw new BeaconError('payload_too_large', `the export holds ${n} ${signal.items}, more than the limit of ${limits.maxItemsPerExport} per export (maxItemsPerExport)`);
}

/** `{` and `[` in a JSON body: an upper bound on the objects and arrays JSON.parse will make. */
function countContainers(body: Buffer): number {
  let n = 0;
  for (const c of [0x7b, 0x5b]) for (let at = body.indexOf(c); at >= 0; at = body.indexOf(c, at + 1)) n++;
  return n;
}
