import { BeaconError } from '../model/errors';

/** Files for a TLS connection: a CA bundle to trust (else the system's), a client certificate and key. */
export interface TlsFiles {
  ca?: string;
  cert?: string;
  key?: string;
}

interface DestinationBase {
  name: string;
  /** where a destination seen for the first time starts: the log's end (default) or its oldest event */
  from: 'start' | 'end';
  /** a batch is sent once it holds this many records, or `batchDelayMs` after its first one */
  maxBatchRecords: number;
  batchDelayMs: number;
  /** one attempt (connect, send, acknowledgement) */
  timeoutMs: number;
}

export interface OtlpDestination extends DestinationBase {
  type: 'otlp';
  /** the endpoint with /v1/logs appended, as OTLP exporters do */
  url: string;
  /** as configured: `${env:NAME}` is replaced by `resolveHeaders` when forwarding starts. Values may
   *  hold credentials and are never logged or shown. */
  headers: Record<string, string>;
  compression: 'gzip' | 'none';
  tls: TlsFiles;
}

export interface SyslogDestination extends DestinationBase {
  type: 'syslog';
  host: string;
  port: number;
  /** false: plain TCP, only when the config says so */
  tls: TlsFiles | false;
  appName: string;
  /** RFC 5424 facility code (0..23) */
  facility: number;
}

export type ForwardDestination = OtlpDestination | SyslogDestination;

const FACILITIES: Record<string, number> = {
  kern: 0, user: 1, mail: 2, daemon: 3, auth: 4, syslog: 5, lpr: 6, news: 7, uucp: 8, cron: 9, authpriv: 10, ftp: 11,
  ntp: 12, audit: 13, alert: 14, clock: 15, local0: 16, local1: 17, local2: 18, local3: 19, local4: 20, local5: 21, local6: 22, local7: 23,
};

const BASE_KEYS = ['name', 'type', 'from', 'maxBatchRecords', 'batchDelayMs', 'timeoutMs', 'tls'];
const KEYS_OF = { otlp: [...BASE_KEYS, 'endpoint', 'headers', 'compression'], syslog: [...BASE_KEYS, 'address', 'appName', 'facility'] };

/**
 * The `forward` list of the collector config, checked. Messages name keys, never values (a header
 * value may be a credential).
 */
export function parseForwardDestinations(value: unknown, expandPath: (p: string) => string): ForwardDestination[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw usage('"forward" must be a list of destinations');
  const names = new Set<string>();
  return value.map((raw, i) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw usage(`forward[${i}] must be an object`);
    const d = raw as Record<string, unknown>;
    const where = typeof d.name === 'string' ? `forward destination "${d.name}"` : `forward[${i}]`;
    if (typeof d.name !== 'string' || !/^[A-Za-z0-9._-]{1,64}$/.test(d.name)) throw usage(`${where}: "name" must be 1-64 letters, digits, '.', '_' or '-'`);
    if (names.has(d.name)) throw usage(`${where}: two destinations have this name (the name identifies its cursor)`);
    names.add(d.name);
    if (d.type !== 'otlp' && d.type !== 'syslog') throw usage(`${where}: "type" must be "otlp" or "syslog"`);
    const unknown = Object.keys(d).filter((k) => !KEYS_OF[d.type as 'otlp' | 'syslog'].includes(k));
    if (unknown.length) throw usage(`${where}: unknown key ${unknown.map((k) => `"${k}"`).join(', ')}`);
    const base: DestinationBase = {
      name: d.name,
      from: d.from === undefined || d.from === 'end' ? 'end' : d.from === 'start' ? 'start' : fail(`${where}: "from" must be "start" or "end"`),
      // OTLP: at most 512 records per request. Syslog: a batch is one TLS session (its clean close is
      // the acknowledgement), so larger batches amortize the handshake.
      maxBatchRecords: d.type === 'otlp' ? count(d.maxBatchRecords, 512, 1, 512, `${where}: "maxBatchRecords"`) : count(d.maxBatchRecords, 2000, 1, 10_000, `${where}: "maxBatchRecords"`),
      batchDelayMs: count(d.batchDelayMs, 5000, 0, 3_600_000, `${where}: "batchDelayMs"`),
      timeoutMs: count(d.timeoutMs, 10_000, 100, 600_000, `${where}: "timeoutMs"`),
    };
    return d.type === 'otlp' ? otlp(d, base, where, expandPath) : syslog(d, base, where, expandPath);
  });
}

function otlp(d: Record<string, unknown>, base: DestinationBase, where: string, expandPath: (p: string) => string): OtlpDestination {
  if (typeof d.endpoint !== 'string') throw usage(`${where}: "endpoint" (the collector's base URL, e.g. https://otel.example.com:4318) is required`);
  let url: URL;
  try {
    url = new URL(d.endpoint);
  } catch {
    throw usage(`${where}: "endpoint" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usage(`${where}: "endpoint" must be http:// or https://`);
  if (url.username || url.password) throw usage(`${where}: put credentials in "headers", not in the endpoint URL`);
  const path = url.pathname.replace(/\/+$/, '');
  if (/\/v1\/logs$/.test(path)) throw usage(`${where}: "endpoint" is the base URL; Beacon appends /v1/logs itself`);
  url.pathname = `${path}/v1/logs`;
  const headers: Record<string, string> = {};
  if (d.headers !== undefined) {
    if (typeof d.headers !== 'object' || d.headers === null || Array.isArray(d.headers)) throw usage(`${where}: "headers" must be an object of strings`);
    for (const [k, v] of Object.entries(d.headers)) {
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(k)) throw usage(`${where}: header name "${k}" is not a valid HTTP header name`);
      if (typeof v !== 'string') throw usage(`${where}: header "${k}" must be a string`);
      headers[k.toLowerCase()] = v;
      if (/[\r\n\0]/.test(v)) throw usage(`${where}: header "${k}" holds a line break or NUL`);
    }
  }
  const compression = d.compression === undefined || d.compression === 'gzip' ? 'gzip' : d.compression === 'none' ? 'none' : fail(`${where}: "compression" must be "gzip" or "none"`);
  return { ...base, type: 'otlp', url: url.toString(), headers, compression, tls: tlsFiles(d.tls, where, expandPath) || {} };
}

/**
 * Header values with `${env:NAME}` replaced from the collector's environment (the Collector's own
 * syntax), resolved only where the collector forwards, so `beacon doctor` needs none of them.
 */
export function resolveHeaders(d: OtlpDestination, env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(d.headers)) {
    out[k] = v.replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => {
      const value = env[name];
      if (value === undefined) throw usage(`forward destination "${d.name}": header "${k}" uses \${env:${name}}, which is not set in the collector's environment`);
      if (/[\r\n\0]/.test(value)) throw usage(`forward destination "${d.name}": \${env:${name}} holds a line break or NUL`);
      return value;
    });
  }
  return out;
}

function syslog(d: Record<string, unknown>, base: DestinationBase, where: string, expandPath: (p: string) => string): SyslogDestination {
  const m = typeof d.address === 'string' ? /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(d.address) : null;
  if (!m || Number(m[3]) < 1 || Number(m[3]) > 65535) throw usage(`${where}: "address" must be host:port (RFC 5425's port is 6514)`);
  const appName = d.appName === undefined ? 'beacon' : d.appName;
  if (typeof appName !== 'string' || !/^[!-~]{1,48}$/.test(appName)) throw usage(`${where}: "appName" must be 1-48 printable ASCII characters without spaces (RFC 5424)`);
  let facility = 16; // local0
  if (d.facility !== undefined) {
    if (typeof d.facility === 'string' && d.facility in FACILITIES) facility = FACILITIES[d.facility]!;
    else if (typeof d.facility === 'number' && Number.isInteger(d.facility) && d.facility >= 0 && d.facility <= 23) facility = d.facility;
    else throw usage(`${where}: "facility" must be 0..23 or a name (${Object.keys(FACILITIES).join(', ')})`);
  }
  return { ...base, type: 'syslog', host: m[1] ?? m[2]!, port: Number(m[3]), tls: tlsFiles(d.tls, where, expandPath), appName, facility };
}

function tlsFiles(v: unknown, where: string, expandPath: (p: string) => string): TlsFiles | false {
  if (v === false) return false;
  if (v === undefined || v === true) return {};
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw usage(`${where}: "tls" must be an object {ca, cert, key} (or false for plain TCP)`);
  const out: TlsFiles = {};
  for (const [k, p] of Object.entries(v)) {
    if (k !== 'ca' && k !== 'cert' && k !== 'key') throw usage(`${where}: unknown key "tls.${k}" (ca, cert, key)`);
    if (typeof p !== 'string' || p === '') throw usage(`${where}: "tls.${k}" must be a file path`);
    out[k] = expandPath(p);
  }
  if ((out.cert === undefined) !== (out.key === undefined)) throw usage(`${where}: a client certificate needs both "tls.cert" and "tls.key"`);
  return out;
}

function count(v: unknown, dflt: number, min: number, max: number, what: string): number {
  if (v === undefined) return dflt;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw usage(`${what} must be a whole number ${min}..${max}`);
  return v;
}

// A config file's mistake, like the rest of the file's (exit 1).
const usage = (m: string) => new BeaconError('bad_data', m);
function fail(m: string): never {
  throw usage(m);
}
