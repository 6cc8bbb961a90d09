import protobuf from 'protobufjs';
import { packageFile } from '../model/package-file';

/**
 * The OTLP logs messages of our own subset (proto/otlp.proto; field numbers checked against
 * opentelemetry-proto v1.11.0: LogRecord.event_name is 12, observed_time_unix_nano 11, …).
 */
const root = protobuf.loadSync(packageFile('proto', 'otlp.proto'));

export const LogsTypes = {
  request: root.lookupType('beacon.otlp.ExportLogsServiceRequest'),
  response: root.lookupType('beacon.otlp.ExportLogsServiceResponse'),
  status: root.lookupType('beacon.otlp.RpcStatus'),
};

/** The traces request, for `beacon doctor --send-test <agent>` (an agent whose records are spans, sent as protobuf). */
export const TraceTypes = {
  request: root.lookupType('beacon.otlp.ExportTraceServiceRequest'),
};
