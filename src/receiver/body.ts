import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { BeaconError } from '../model/errors';
import type { Encoding } from './signals';

const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);
const inflateRaw = promisify(zlib.inflateRaw);

/** The media type alone: parameters (`; charset=utf-8`) and case are ignored, as the Collector does. */
export function mediaType(header: string | undefined): string {
  return (header ?? '').split(';', 1)[0]!.trim().toLowerCase();
}

export function encodingOf(contentType: string | undefined): Encoding | undefined {
  const mt = mediaType(contentType);
  if (mt === 'application/x-protobuf') return 'protobuf';
  if (mt === 'application/json') return 'json';
  return undefined;
}

/**
 * Undoes Content-Encoding. The size limit applies to the decompressed body (a 20 KB gzip bomb
 * must not become 20 GB in memory): zlib stops at `limit` and we answer 413.
 * Decompression runs on libuv's thread pool, off the event loop.
 */
export async function decodeContent(body: Buffer, contentEncoding: string | undefined, limit: number): Promise<Buffer> {
  const enc = (contentEncoding ?? '').trim().toLowerCase();
  if (enc === '' || enc === 'identity') return body;
  const options = { maxOutputLength: limit };
  try {
    if (enc === 'gzip' || enc === 'x-gzip') return await gunzip(body, options);
    if (enc === 'deflate') {
      // HTTP "deflate" is zlib-wrapped; some clients send raw deflate. Accept both.
      try {
        return await inflate(body, options);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw e;
        return await inflateRaw(body, options);
      }
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new BeaconError('payload_too_large', `request body exceeds ${limit} bytes after decompression`);
    }
    throw new BeaconError('bad_data', `${enc}: ${(e as Error).message}`);
  }
  throw new BeaconError('unsupported_encoding', `unsupported Content-Encoding: ${contentEncoding}`);
}
