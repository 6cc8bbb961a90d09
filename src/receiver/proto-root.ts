import protobuf from 'protobufjs';
import { packageFile } from '../model/package-file';

/** Our own OTLP subset (proto/otlp.proto), loaded by reflection. */
const root = protobuf.loadSync(packageFile('proto', 'otlp.proto'));

export const OtlpTypes = {
  traceRequest: root.lookupType('beacon.otlp.ExportTraceServiceRequest'),
  traceResponse: root.lookupType('beacon.otlp.ExportTraceServiceResponse'),
  metricsRequest: root.lookupType('beacon.otlp.ExportMetricsServiceRequest'),
  metricsResponse: root.lookupType('beacon.otlp.ExportMetricsServiceResponse'),
  logsRequest: root.lookupType('beacon.otlp.ExportLogsServiceRequest'),
  logsResponse: root.lookupType('beacon.otlp.ExportLogsServiceResponse'),
  status: root.lookupType('beacon.otlp.RpcStatus'),
  retryInfo: root.lookupType('beacon.otlp.RetryInfo'),
};
