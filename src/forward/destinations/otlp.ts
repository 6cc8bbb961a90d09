import { isLoopback } from '../../model/loopback';
import { judgeName } from '../../redact/names';
import { configError, fail, tlsFiles, type DestinationBase, type DestinationType, type Secrets, type TlsFiles } from '../destination';

/** OTLP/HTTP logs (protobuf) to an OpenTelemetry Collector or any OTLP receiver. */
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

export const otlpDestination: DestinationType<OtlpDestination> = {
  type: 'otlp',
  keys: ['endpoint', 'headers', 'compression', 'allowCredentialsOverHttp'],
  // At most 512 records per request.
  maxBatchRecords: { default: 512, max: 512 },
  parse,
  secrets: resolveHeaders,
  // Loaded here, in the forward worker: the sender brings protobufjs, which the config (which lists this type) need not load.
  sender: (d, headers) => new (require('../otlp-sender') as typeof import('../otlp-sender')).OtlpSender(d, headers),
};

function parse(d: Record<string, unknown>, base: DestinationBase, where: string, expandPath: (p: string) => string): OtlpDestination {
  if (typeof d.endpoint !== 'string') throw configError(`${where}: "endpoint" (the collector's base URL, e.g. https://otel.example.com:4318) is required`);
  let url: URL;
  try {
    url = new URL(d.endpoint);
  } catch {
    throw configError(`${where}: "endpoint" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw configError(`${where}: "endpoint" must be http:// or https://`);
  if (url.username || url.password) throw configError(`${where}: put credentials in "headers", not in the endpoint URL`);
  const path = url.pathname.replace(/\/+$/, '');
  if (/\/v1\/logs$/.test(path)) throw configError(`${where}: "endpoint" is the base URL; Beacon appends /v1/logs itself`);
  url.pathname = `${path}/v1/logs`;
  const headers: Record<string, string> = {};
  if (d.headers !== undefined) {
    if (typeof d.headers !== 'object' || d.headers === null || Array.isArray(d.headers)) throw configError(`${where}: "headers" must be an object of strings`);
    for (const [k, v] of Object.entries(d.headers)) {
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(k)) throw configError(`${where}: header name "${k}" is not a valid HTTP header name`);
      if (typeof v !== 'string') throw configError(`${where}: header "${k}" must be a string`);
      headers[k.toLowerCase()] = v;
      if (/[\r\n\0]/.test(v)) throw configError(`${where}: header "${k}" holds a line break or NUL`);
    }
  }
  if (url.protocol === 'http:' && !isLoopback(url.hostname) && d.allowCredentialsOverHttp !== true) {
    // a credential in clear text on the network (issue 22 item 10): said at start, not discovered later
    const named = Object.keys(headers).filter((k) => judgeName(k) !== 'plain');
    if (named.length > 0) {
      throw configError(`${where}: header ${named.map((k) => `"${k}"`).join(', ')} would go to ${url.host} in clear text (http://): use https://, or set "allowCredentialsOverHttp": true if the network between is yours`);
    }
  }
  if (d.allowCredentialsOverHttp !== undefined && typeof d.allowCredentialsOverHttp !== 'boolean') throw configError(`${where}: "allowCredentialsOverHttp" must be true or false`);
  const compression = d.compression === undefined || d.compression === 'gzip' ? 'gzip' : d.compression === 'none' ? 'none' : fail(`${where}: "compression" must be "gzip" or "none"`);
  return { ...base, type: 'otlp', url: url.toString(), headers, compression, tls: tlsFiles(d.tls, where, expandPath) || {} };
}

/**
 * Header values with `${env:NAME}` replaced from the collector's environment (the Collector's own
 * syntax), resolved only where the collector forwards, so `beacon doctor` needs none of them.
 */
export function resolveHeaders(d: OtlpDestination, env: NodeJS.ProcessEnv): Secrets {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(d.headers)) {
    out[k] = v.replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => {
      const value = env[name];
      if (value === undefined) throw configError(`forward destination "${d.name}": header "${k}" uses \${env:${name}}, which is not set in the collector's environment`);
      if (/[\r\n\0]/.test(value)) throw configError(`forward destination "${d.name}": \${env:${name}} holds a line break or NUL`);
      return value;
    });
  }
  return out;
}
