import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { gzipSync } from 'node:zlib';
import type { OtlpDestination } from './destinations/otlp';
import type { StoredRow } from '../store/log/event-log';
import type { Outcome } from './outcome';
import { decodeLogsResponse, encodeLogsRequest, errorReplyMessage } from './otlp-records';
import { parseRetryAfter } from './retry';

/** Statuses an OTLP exporter retries (the OTLP spec); every other failure is final for the batch. */
const RETRYABLE = new Set([429, 502, 503, 504]);

/** OTLP/HTTP logs, protobuf, to one destination: one POST per batch, the reply decides the outcome. */
export class OtlpSender {
  private readonly url: URL;
  private readonly agent: http.Agent;
  private readonly headers: Record<string, string>;
  private readonly credentials = new Set<string>();

  /** `headers` are the resolved values (credentials): they go on the wire only. */
  constructor(private readonly dest: OtlpDestination, headers: Record<string, string>) {
    this.url = new URL(dest.url);
    this.headers = headers;
    // what a receiver's error reply may echo back: each header value, and each credential in it
    for (const v of Object.values(headers)) for (const part of [v, ...v.split(/\s+/)]) if (part.length >= 8) this.credentials.add(part);
    const tls = dest.tls;
    this.agent = this.url.protocol === 'https:'
      ? new https.Agent({
          keepAlive: true,
          ca: tls.ca ? readFileSync(tls.ca) : undefined,
          cert: tls.cert ? readFileSync(tls.cert) : undefined,
          key: tls.key ? readFileSync(tls.key) : undefined,
        })
      : new http.Agent({ keepAlive: true });
  }

  async send(rows: readonly StoredRow[]): Promise<Outcome> {
    const payload = Buffer.from(encodeLogsRequest(rows));
    const body = this.dest.compression === 'gzip' ? gzipSync(payload) : payload;
    let reply: { status: number; headers: http.IncomingHttpHeaders; body: Buffer };
    try {
      reply = await this.post(body);
    } catch (e) {
      return { kind: 'retry', message: `network: ${(e as Error).message}` };
    }
    const { status } = reply;
    const ct = reply.headers['content-type'];
    if (status >= 200 && status < 300) {
      const p = decodeLogsResponse(reply.body, ct);
      return { kind: 'ack', rejected: p.rejected, message: p.message ? `partial success: ${p.rejected} rejected: ${errorReplyMessage(Buffer.from(p.message), 'text/plain', this.credentials)}` : '' };
    }
    const message = `HTTP ${status}${reply.body.length ? `: ${errorReplyMessage(reply.body, ct, this.credentials)}` : ''}`;
    if (RETRYABLE.has(status)) return { kind: 'retry', message, retryAfterMs: parseRetryAfter(reply.headers['retry-after']) };
    if (status === 413) return { kind: 'too_large', message };
    return { kind: 'refused', message };
  }

  close(): void {
    this.agent.destroy();
  }

  private post(body: Buffer): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
    const mod = this.url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = mod.request(this.url, {
        method: 'POST',
        agent: this.agent,
        headers: {
          ...this.headers,
          'content-type': 'application/x-protobuf',
          'content-length': String(body.length),
          ...(this.dest.compression === 'gzip' ? { 'content-encoding': 'gzip' } : {}),
          'user-agent': 'beacon-forward',
        },
      });
      // One deadline for the whole attempt: connect, send, reply.
      const timer = setTimeout(() => req.destroy(new Error(`no reply within ${this.dest.timeoutMs} ms`)), this.dest.timeoutMs);
      req.once('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      req.once('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size <= 64 * 1024) chunks.push(c); // a reply is small; never buffer a huge one
        });
        res.once('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
        });
        res.once('error', (e) => {
          clearTimeout(timer);
          reject(e);
        });
      });
      req.end(body);
    });
  }
}
