import type { Check, CheckStatus } from './doctor';

/** goose's three signals, each switched off or redirected on its own (goose otel/otlp.rs). */
const SIGNALS = [
  { signal: 'traces', what: 'traces (model and tool calls)' },
  { signal: 'logs', what: 'security and approval log records' },
  { signal: 'metrics', what: 'counters' },
] as const;

/** The variables that leave config.yaml saying "local" while goose exports nothing, signal by signal (as seen here: check goose's own launch environment too). */
export function environmentChecks(env: NodeJS.ProcessEnv, base: string): Check[] {
  const out: Check[] = [];
  const note = ' (in this shell; goose started elsewhere may see another environment)';
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') {
    out.push({ id: 'env-sdk-disabled', status: 'fail', message: `OTEL_SDK_DISABLED=true turns goose's export off${note}`, fix: 'unset OTEL_SDK_DISABLED' });
  }
  for (const { signal, what } of SIGNALS) out.push(...signalChecks(env, base, signal, what, note));
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT) {
    // An override that matches (or says localhost for it) is worth knowing; one that points elsewhere takes the telemetry away.
    const { localhost, ...judged } = judgeEndpoint(env.OTEL_EXPORTER_OTLP_ENDPOINT, base);
    out.push({ id: 'env-endpoint', status: judged.status === 'ok' || localhost ? 'warn' : 'fail', message: `OTEL_EXPORTER_OTLP_ENDPOINT overrides config.yaml: ${judged.message}${note}`, fix: judged.fix ?? 'unset it to let config.yaml decide' });
  }
  if (out.length === 0) out.push({ id: 'environment', status: 'ok', message: `no OTEL_* variable turns a signal off or redirects it${note}` });
  out.push(...gooseSignalChecks(env, note));
  return out;
}

/** One signal's exporter, protocol and endpoint variables. */
function signalChecks(env: NodeJS.ProcessEnv, base: string, signal: 'traces' | 'logs' | 'metrics', what: string, note: string): Check[] {
  const out: Check[] = [];
  const SIG = signal.toUpperCase();
  const exporter = (env[`OTEL_${SIG}_EXPORTER`] ?? '').trim().toLowerCase();
  if (exporter !== '' && exporter !== 'otlp') {
    out.push({ id: `env-${signal}-exporter`, status: 'fail', message: `OTEL_${SIG}_EXPORTER=${env[`OTEL_${SIG}_EXPORTER`]} sends goose's ${what} elsewhere${note}`, fix: `unset OTEL_${SIG}_EXPORTER` });
  }
  for (const key of [`OTEL_EXPORTER_OTLP_${SIG}_PROTOCOL`, ...(signal === 'traces' ? ['OTEL_EXPORTER_OTLP_PROTOCOL'] : [])]) {
    const v = (env[key] ?? '').trim().toLowerCase();
    if (v !== '' && v !== 'http/protobuf' && v !== 'http/json') {
      const skipped = key === 'OTEL_EXPORTER_OTLP_PROTOCOL' ? 'every signal' : `its ${what}`;
      out.push({ id: 'env-protocol', status: 'fail', message: `${key}=${env[key]}: goose skips ${skipped} when the protocol is not HTTP${note}`, fix: `unset ${key} or set it to http/protobuf` });
    }
  }
  const endpoint = env[`OTEL_EXPORTER_OTLP_${SIG}_ENDPOINT`];
  if (endpoint) {
    const path = `/v1/${signal}`;
    if (!new RegExp(`${path}/?$`).test(endpoint)) {
      out.push({ id: `env-${signal}-endpoint`, status: 'fail', message: `OTEL_EXPORTER_OTLP_${SIG}_ENDPOINT=${endpoint} is used verbatim and lacks ${path}${note}`, fix: `use ${base}${path} or unset it` });
    } else {
      const judged = judgeEndpoint(endpoint.replace(new RegExp(`${path}/?$`), ''), base);
      if (judged.status !== 'ok' && !judged.localhost) out.push({ id: `env-${signal}-endpoint`, status: 'fail', message: `OTEL_EXPORTER_OTLP_${SIG}_ENDPOINT sends goose's ${what} elsewhere: ${judged.message}${note}`, fix: `use ${base}${path} or unset it` });
    }
  }
  return out;
}

/** What goose's content capture and log level mean for what reaches Beacon over OTLP. */
function gooseSignalChecks(env: NodeJS.ProcessEnv, note: string): Check[] {
  const capture = (env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT ?? '').trim().toLowerCase() === 'true';
  const out: Check[] = [{
    id: 'content-capture', status: 'ok',
    message: capture
      ? `content capture on: goose exports reasoning, tool arguments and results over OTLP${note}`
      : `content capture off (goose's default): goose ≥ 1.50 exports no commands, paths or tool outcomes over OTLP — the hooks record them${note}`,
  }];
  // goose's logs layer takes RUST_LOG (when valid), else OTEL_LOG_LEVEL, else INFO: its security records are INFO and WARN.
  const level = (env.RUST_LOG ?? '').split(',').find((d) => !d.includes('=') && d.trim() !== '')?.trim().toLowerCase() ?? (env.RUST_LOG ? undefined : (env.OTEL_LOG_LEVEL ?? '').trim().toLowerCase());
  if (level === 'warn' || level === 'error' || level === 'off') {
    out.push({ id: 'log-level', status: 'warn', message: `${env.RUST_LOG ? 'RUST_LOG' : 'OTEL_LOG_LEVEL'}=${level} keeps goose's INFO security records (egress, approvals, passed scans) from being exported${note}`, fix: 'leave RUST_LOG/OTEL_LOG_LEVEL at info or lower' });
  }
  return out;
}


/** Is an OTLP/HTTP endpoint value this collector, as goose uses it (the base URL, HTTP, loopback as we listen)? */
export function judgeEndpoint(value: string, base: string): { status: CheckStatus; message: string; fix?: string; localhost?: true } {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { status: 'fail', message: `"${value}" is not a URL`, fix: `use ${base}` };
  }
  if (url.port === '4317') return { status: 'fail', message: `${value} is the OTLP gRPC port; goose exports over HTTP only and the export fails`, fix: `use ${base} (port 4318)` };
  if (/\/v1\/traces\/?$/.test(url.pathname)) return { status: 'fail', message: `${value} ends in /v1/traces; goose appends it, so traces would go to /v1/traces/v1/traces`, fix: `use the base URL ${base}` };
  if (url.pathname !== '/' && url.pathname !== '') return { status: 'fail', message: `${value} has a path; the collector serves /v1/traces at its root`, fix: `use ${base}` };
  const ours = new URL(base);
  if (url.hostname === 'localhost' && url.port === ours.port && ours.hostname === '127.0.0.1') {
    // Same warning wherever the value comes from (config.yaml or the environment), with the reason.
    return { status: 'warn', message: `${value} says localhost: the collector listens on 127.0.0.1 only (IPv4 loopback), and localhost may resolve to ::1 (IPv6) first, where nothing listens; the export then depends on the client falling back`, fix: `use ${base}`, localhost: true };
  }
  if (url.origin !== ours.origin) return { status: 'warn', message: `${value} is not this collector (${base})`, fix: `use ${base}, unless you forward to another collector on purpose` };
  return { status: 'ok', message: `exports to ${value}` };
}
