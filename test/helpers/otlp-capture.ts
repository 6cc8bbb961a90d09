/**
 * A tiny OTLP/HTTP capture server for the agents lab: answers 200 to every POST and keeps each
 * request as it came (headers, raw bytes, whether it was chunked) plus its body decompressed.
 * It decodes nothing: the point is to see what an agent really sends.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';

export interface CapturedRequest {
  /** ms since the capture server started */
  atMs: number;
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  contentType: string;
  contentEncoding: string;
  /** transfer-encoding: chunked (no content-length) */
  chunked: boolean;
  /** bytes on the wire (after transfer decoding, before content decoding) */
  wireBytes: number;
  /** the body after content decoding (gzip, deflate, br); the raw bytes when it could not be decoded */
  body: Buffer;
  decodeError?: string;
}

export interface OtlpCapture {
  url: string;
  port: number;
  requests: CapturedRequest[];
  close(): Promise<void>;
}

const EMPTY: Record<string, Buffer> = {
  'application/json': Buffer.from('{}'),
};

export async function startOtlpCapture(): Promise<OtlpCapture> {
  const requests: CapturedRequest[] = [];
  const t0 = Date.now();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const contentEncoding = String(req.headers['content-encoding'] ?? '').toLowerCase();
      const contentType = String(req.headers['content-type'] ?? '');
      const rec: CapturedRequest = {
        atMs: Date.now() - t0,
        method: req.method ?? '',
        path: req.url ?? '',
        headers: { ...req.headers },
        contentType,
        contentEncoding,
        chunked: /chunked/i.test(String(req.headers['transfer-encoding'] ?? '')),
        wireBytes: raw.length,
        body: raw,
      };
      try {
        if (contentEncoding === 'gzip') rec.body = gunzipSync(raw);
        else if (contentEncoding === 'deflate') rec.body = inflateSync(raw);
        else if (contentEncoding === 'br') rec.body = brotliDecompressSync(raw);
      } catch (e) {
        rec.decodeError = (e as Error).message;
      }
      requests.push(rec);
      if (req.method !== 'POST') {
        res.writeHead(404).end();
        return;
      }
      // An empty Export*ServiceResponse: zero bytes in protobuf, {} in JSON.
      const json = /json/i.test(contentType);
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? EMPTY['application/json'] : Buffer.alloc(0));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** 'traces' | 'logs' | 'metrics' from an OTLP path, else the path's last segment. */
export function signalOf(path: string): string {
  const m = /\/v1\/(traces|logs|metrics)\b/.exec(path);
  return m ? m[1] : path.split('?')[0].split('/').filter(Boolean).pop() ?? 'root';
}
