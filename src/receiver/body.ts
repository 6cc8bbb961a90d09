import zlib from 'node:zlib';
import { BeaconError } from '../model/errors';
import type { Reservation } from './admission';

/** The media type alone: parameters (`; charset=utf-8`) and case are ignored, as the Collector does. */
export function mediaType(header: string | undefined): string {
  return (header ?? '').split(';', 1)[0]!.trim().toLowerCase();
}

/** The two OTLP/HTTP encodings, by media type. */
export type Encoding = 'protobuf' | 'json';

export function encodingOf(contentType: string | undefined): Encoding | undefined {
  const mt = mediaType(contentType);
  if (mt === 'application/x-protobuf') return 'protobuf';
  if (mt === 'application/json') return 'json';
  return undefined;
}

/**
 * Undoes Content-Encoding. The size limit applies to the decompressed body (a 20 KB gzip bomb
 * must not become 20 GB in memory): decompression streams, stops at `limit` (413), and takes each
 * decompressed chunk from the export's in-flight reservation as it appears (429 when the collector
 * has too much in flight), so concurrent decompressions cannot add up unseen.
 * Decompression runs on libuv's thread pool, off the event loop.
 */
export async function decodeContent(body: Buffer, contentEncoding: string | undefined, limit: number, reservation: Reservation): Promise<Buffer> {
  const enc = (contentEncoding ?? '').trim().toLowerCase();
  if (enc === '' || enc === 'identity') return body;
  try {
    if (enc === 'gzip' || enc === 'x-gzip') return await inflate(body, zlib.createGunzip(), limit, reservation);
    if (enc === 'deflate') {
      // HTTP "deflate" is zlib-wrapped; some clients send raw deflate. Accept both.
      try {
        return await inflate(body, zlib.createInflate(), limit, reservation);
      } catch (e) {
        if (e instanceof BeaconError) throw e;
        return await inflate(body, zlib.createInflateRaw(), limit, reservation);
      }
    }
  } catch (e) {
    if (e instanceof BeaconError) throw e;
    throw new BeaconError('bad_data', `${enc}: ${(e as Error).message}`);
  }
  throw new BeaconError('unsupported_encoding', `unsupported Content-Encoding: ${contentEncoding}`);
}

function inflate(body: Buffer, z: zlib.Gunzip | zlib.Inflate | zlib.InflateRaw, limit: number, reservation: Reservation): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (e: Error) => {
      z.destroy();
      chunks.length = 0;
      reject(e);
    };
    z.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return fail(new BeaconError('payload_too_large', `request body exceeds ${limit} bytes after decompression`));
      try {
        reservation.grow(chunk.length);
      } catch (e) {
        return fail(e as Error);
      }
      chunks.push(chunk);
    });
    z.on('end', () => resolve(Buffer.concat(chunks, size)));
    z.on('error', reject);
    z.end(body);
  });
}
