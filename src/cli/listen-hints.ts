import { BeaconError } from '../model/errors';
import { hostPort } from '../config/hosts';

/** 4317 is OTLP/gRPC's port (Beacon serves gRPC there, --grpc-port); goose exports over HTTP (4318). OTLP/HTTP there gets nothing from gRPC exporters. */
export function portWarning(port: number): string | undefined {
  if (port === 4317) {
    return 'port 4317 is the OTLP/gRPC port: --port is OTLP/HTTP, and goose exports over HTTP to 4318 by convention; an exporter configured for 4317 expects gRPC, which this collector serves on --grpc-port (default 4317)';
  }
  return undefined;
}

/** A listen failure in words a user can act on: who holds the port, what to do. */
export function explainListenError(e: unknown, host: string, port: number): unknown {
  const code = (e as NodeJS.ErrnoException).code;
  const where = hostPort(host, port);
  if (code === 'EADDRINUSE') {
    return new BeaconError(
      'unavailable',
      `cannot listen on ${where}: the port is in use — another Beacon collector (the service? beacon service status), ` +
        `or another OpenTelemetry collector (an otelcol or agent listening on ${port}). ` +
        `See who holds it: ss -ltnp 'sport = :${port}' (Linux) or lsof -iTCP:${port} -sTCP:LISTEN (macOS); ` +
        `or run Beacon on another port: --port N, and point goose at it.`,
      { cause: e },
    );
  }
  if (code === 'EACCES') return new BeaconError('unavailable', `cannot listen on ${where}: permission denied (ports below 1024 need privileges; use 4318)`, { cause: e });
  if (code === 'EADDRNOTAVAIL') return new BeaconError('unavailable', `cannot listen on ${where}: no such address on this machine`, { cause: e });
  return e;
}
