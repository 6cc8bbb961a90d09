import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import protobuf from 'protobufjs';

/**
 * Our own OTLP subset (proto/otlp.proto), loaded by reflection. tsc does not copy .proto files, so the
 * file is found from the package root whether this runs from src/ (tests) or dist/src/ (installed).
 */
function findProtoFile(): string {
  let dir = __dirname;
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'proto', 'otlp.proto');
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  throw new Error('proto/otlp.proto not found next to the Beacon package');
}

const root = protobuf.loadSync(findProtoFile());

export const OtlpTypes = {
  traceRequest: root.lookupType('beacon.otlp.ExportTraceServiceRequest'),
  traceResponse: root.lookupType('beacon.otlp.ExportTraceServiceResponse'),
  metricsRequest: root.lookupType('beacon.otlp.ExportMetricsServiceRequest'),
  metricsResponse: root.lookupType('beacon.otlp.ExportMetricsServiceResponse'),
  logsRequest: root.lookupType('beacon.otlp.ExportLogsServiceRequest'),
  logsResponse: root.lookupType('beacon.otlp.ExportLogsServiceResponse'),
  status: root.lookupType('beacon.otlp.RpcStatus'),
};
