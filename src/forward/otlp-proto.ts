import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import protobuf from 'protobufjs';

/**
 * The OTLP logs messages of our own subset (proto/otlp.proto; field numbers checked against
 * opentelemetry-proto v1.11.0: LogRecord.event_name is 12, observed_time_unix_nano 11, …). Found from
 * the package root, from src/ under tests and from dist/src/ when installed.
 */
function protoFile(): string {
  for (let dir = __dirname, i = 0; i < 6; i++, dir = dirname(dir)) {
    const candidate = join(dir, 'proto', 'otlp.proto');
    if (existsSync(candidate)) return candidate;
  }
  throw new Error('proto/otlp.proto not found next to the Beacon package');
}

const root = protobuf.loadSync(protoFile());

export const LogsTypes = {
  request: root.lookupType('beacon.otlp.ExportLogsServiceRequest'),
  response: root.lookupType('beacon.otlp.ExportLogsServiceResponse'),
  status: root.lookupType('beacon.otlp.RpcStatus'),
};
