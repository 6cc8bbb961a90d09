/** The three OTLP signals goose exports with one endpoint setting. */
export type Signal = 'traces' | 'metrics' | 'logs';
export type Encoding = 'protobuf' | 'json';

export const SIGNAL_PATHS: Record<string, Signal> = {
  '/v1/traces': 'traces',
  '/v1/metrics': 'metrics',
  '/v1/logs': 'logs',
};
