import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { jsonl, runBeacon, startCollector, type RunningCollector } from '../helpers/daemon';

/** Real clients: the OpenTelemetry JS SDK's OTLP exporters (protobuf and JSON, plain and gzip). */
function gooseLikeSpans(sessionId: string): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'goose', 'service.version': '1.47.0' }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  const tracer = provider.getTracer('goose');
  const chat = tracer.startSpan('stream_response_from_provider', {
    attributes: {
      'session.id': sessionId,
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-sonnet-4-5',
      'gen_ai.response.model': 'claude-sonnet-4-5-20250929',
      'gen_ai.response.id': `msg_${sessionId}`,
      'gen_ai.response.finish_reasons': '["end_turn"]',
      'gen_ai.usage.input_tokens': 2000,
      'gen_ai.usage.output_tokens': 50,
      'gen_ai.usage.cache_read.input_tokens': 1500,
      'gen_ai.usage.cache_creation.input_tokens': 100,
    },
  });
  chat.end();
  const tool = tracer.startSpan('dispatch_tool_call', {
    attributes: { 'session.id': sessionId, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'github__create_issue', 'gen_ai.tool.call.id': `call_${sessionId}` },
  });
  tool.end();
  const noise = tracer.startSpan('reply', { attributes: { 'session.id': sessionId, 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.usage.input_tokens': 2000 } });
  noise.end();
  return memory.getFinishedSpans();
}

function exportWith(exporter: { export(spans: ReadableSpan[], cb: (r: ExportResult) => void): void }, spans: ReadableSpan[]): Promise<ExportResult> {
  return new Promise((resolve) => exporter.export(spans, resolve));
}

describe('real OTLP exporters against the daemon', () => {
  let c: RunningCollector;
  before(async () => {
    c = await startCollector();
  });
  after(async () => {
    await c.stop();
  });

  const cases = [
    { name: 'protobuf', make: (url: string) => new ProtoExporter({ url }) },
    { name: 'protobuf+gzip', make: (url: string) => new ProtoExporter({ url, compression: 'gzip' as never }) },
    { name: 'json', make: (url: string) => new JsonExporter({ url }) },
    { name: 'json+gzip', make: (url: string) => new JsonExporter({ url, compression: 'gzip' as never }) },
  ];
  for (const { name, make } of cases) {
    it(`${name}: export succeeds and the model call and MCP tool call are stored`, async () => {
      const session = `sdk_${name.replace('+', '_')}`;
      const exporter = make(`${c.url}/v1/traces`);
      const result = await exportWith(exporter, gooseLikeSpans(session));
      assert.equal(result.code, ExportResultCode.SUCCESS, String(result.error));
      await exporter.shutdown();
      const evs = jsonl(runBeacon(['events', '--log', c.log, '--json', '--session', session]).stdout);
      assert.deepEqual(evs.map((e) => e.event.action), ['model.invoked', 'mcp.tool_invoked']);
      assert.deepEqual(evs[0].gen_ai.usage, { input_tokens: 400, output_tokens: 50, cache_read: { input_tokens: 1500 }, cache_creation: { input_tokens: 100 } });
      assert.deepEqual(evs[1].mcp, { server: 'github', tool: 'create_issue' });
      assert.equal(evs[1].gen_ai.tool.call.id, `call_${session}`);
    });
  }
});
