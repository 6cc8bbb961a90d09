import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
// The independent receiver: Elastic's mock OTLP server decodes with its own protobufjs and the
// official opentelemetry-proto files, nothing of Beacon's.
// eslint-disable-next-line @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any
const { MockOtlpServer } = require('@elastic/mockotlpserver') as { MockOtlpServer: any };

export interface ReceivedLog {
  eventName: string;
  attributes: Record<string, unknown>;
  body: string;
  timeUnixNano: bigint;
  severityNumber: number;
  traceId: string;
  spanId: string;
  resource: Record<string, unknown>;
}

/** The official decoder's output, flattened to plain values. */
function value(v: any): unknown { // eslint-disable-line @typescript-eslint/no-explicit-any
  if (!v) return undefined;
  if (Object.prototype.hasOwnProperty.call(v, 'stringValue')) return v.stringValue;
  if (Object.prototype.hasOwnProperty.call(v, 'boolValue')) return v.boolValue;
  if (Object.prototype.hasOwnProperty.call(v, 'intValue')) return Number(v.intValue);
  if (Object.prototype.hasOwnProperty.call(v, 'doubleValue')) return v.doubleValue;
  if (Object.prototype.hasOwnProperty.call(v, 'arrayValue')) return (v.arrayValue.values ?? []).map(value);
  if (Object.prototype.hasOwnProperty.call(v, 'kvlistValue')) return Object.fromEntries((v.kvlistValue.values ?? []).map((kv: any) => [kv.key, value(kv.value)])); // eslint-disable-line @typescript-eslint/no-explicit-any
  return undefined;
}
const attrs = (list: any[] | undefined) => Object.fromEntries((list ?? []).map((kv) => [kv.key, value(kv.value)])); // eslint-disable-line @typescript-eslint/no-explicit-any
const hexOf = (b: Uint8Array | undefined) => (b && b.length ? Buffer.from(b).toString('hex') : '');

export interface MockReceiver {
  url: string;
  received: ReceivedLog[];
  /** the records of each export request, in arrival order */
  batches: ReceivedLog[][];
  requests: number;
  close(): Promise<void>;
}

export async function startMockReceiver(): Promise<MockReceiver> {
  const received: ReceivedLog[] = [];
  const batches: ReceivedLog[][] = [];
  const state = { requests: 0 };
  const server = new MockOtlpServer({
    logLevel: 'warn',
    services: ['http'],
    httpHostname: '127.0.0.1',
    httpPort: 0,
    onLogs: (req: any) => { // eslint-disable-line @typescript-eslint/no-explicit-any
      state.requests++;
      const batch: ReceivedLog[] = [];
      batches.push(batch);
      for (const rl of req.resourceLogs ?? []) {
        const resource = attrs(rl.resource?.attributes);
        for (const sl of rl.scopeLogs ?? []) {
          for (const lr of sl.logRecords ?? []) {
            batch.push({
              eventName: lr.eventName, attributes: attrs(lr.attributes), body: value(lr.body) as string,
              timeUnixNano: BigInt(lr.timeUnixNano.toString()), severityNumber: lr.severityNumber,
              traceId: hexOf(lr.traceId), spanId: hexOf(lr.spanId), resource,
            });
          }
        }
      }
      received.push(...batch);
    },
  });
  await server.start();
  return {
    url: server.httpUrl.toString().replace(/\/$/, ''),
    received,
    batches,
    get requests() {
      return state.requests;
    },
    close: () => server.close(),
  };
}

export type Fault =
  | { kind: 'pass' }
  | { kind: 'status'; status: number; retryAfter?: string }
  /** forwarded to the receiver, but the reply never comes back: the sender times out (and the receiver has the data) */
  | { kind: 'timeout' }
  /** the proxy stops listening for `ms`: connections are refused */
  | { kind: 'refuse'; ms: number };

export interface FaultProxy {
  url: string;
  /** what happened to each request, in order */
  /** the decoded (gunzipped) bodies forwarded to the receiver, in order */
  bodies: Buffer[];
  log: { fault: Fault['kind']; status?: number; bytes: number; gzip: boolean; authorization?: string; at: number }[];
  close(): Promise<void>;
}

/**
 * A test proxy in front of the receiver that applies one scripted fault per request (then passes
 * everything). It gunzips what Beacon sends (the mock server reads identity bodies only).
 */
export async function startFaultProxy(upstream: string, script: Fault[]): Promise<FaultProxy> {
  const log: FaultProxy['log'] = [];
  const bodies: Buffer[] = [];
  let server: http.Server;
  let port = 0;
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const fault = script.shift() ?? { kind: 'pass' };
      const raw = Buffer.concat(chunks);
      const gzip = req.headers['content-encoding'] === 'gzip';
      const entry: FaultProxy['log'][number] = { fault: fault.kind, bytes: raw.length, gzip, authorization: req.headers.authorization, at: Date.now() };
      log.push(entry);
      if (fault.kind === 'status') {
        entry.status = fault.status;
        res.writeHead(fault.status, { 'content-type': 'text/plain', ...(fault.retryAfter ? { 'retry-after': fault.retryAfter } : {}) });
        res.end(`injected ${fault.status}`);
        return;
      }
      if (fault.kind === 'refuse') {
        res.socket?.destroy();
        server.close();
        server.closeAllConnections();
        setTimeout(() => listen(), fault.ms);
        return;
      }
      const body = gzip ? gunzipSync(raw) : raw;
      bodies.push(body);
      const up = http.request(`${upstream}${req.url}`, { method: 'POST', headers: { 'content-type': req.headers['content-type'] ?? '', 'content-length': body.length } }, (ur) => {
        const rc: Buffer[] = [];
        ur.on('data', (c: Buffer) => rc.push(c));
        ur.on('end', () => {
          entry.status = ur.statusCode;
          if (fault.kind === 'timeout') return; // the receiver has it; the sender never hears back
          res.writeHead(ur.statusCode ?? 502, { 'content-type': ur.headers['content-type'] ?? 'application/x-protobuf' });
          res.end(Buffer.concat(rc));
        });
      });
      up.on('error', () => res.writeHead(502).end());
      up.end(body);
    });
  };
  const listen = () =>
    new Promise<void>((resolve) => {
      server = http.createServer(handler);
      server.listen(port, '127.0.0.1', () => {
        port = (server.address() as AddressInfo).port;
        resolve();
      });
    });
  await listen();
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
