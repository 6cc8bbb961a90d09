/**
 * Other agents' exports through the one-thread pipeline (decode → source → redact → row), beside
 * goose's 100-span export measured in the same run. A Codex turn sends ~550 spans that are nearly
 * all internal (tracing spans of its runtime): they must cost decoding only, since its source keeps
 * nothing from spans. The bodies are real: what Codex 0.171 and opencode 1.18 sent in one run each.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { toRows } from '../src/ingest/rows';
import { decodeProtoLogs } from '../src/receiver/signals/logs';
import { decodeJsonTraces, decodeProtoTraces } from '../src/receiver/signals/traces';
import { logEvents, spanEvents } from '../src/sources/dispatch';
import { repoRoot } from '../test/helpers/paths';
import { gooseExportTemplate } from './fixture';
import { rate } from './measure';

const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const fixture = (agent: string, file: string) => readFileSync(join(repoRoot(), 'test', 'fixtures', 'agents', agent, file));

export function benchAgents(): Record<string, number> {
  const goose = gooseExportTemplate(100).body;
  const codexTraces = fixture('codex', '1-traces.pb');
  const codexLogs = fixture('codex', '4-logs.pb');
  const codexSpans = decodeProtoTraces(codexTraces).length;
  const opencodeFiles = readdirSync(join(repoRoot(), 'test', 'fixtures', 'agents', 'opencode')).filter((f) => f.endsWith('-traces.json'));
  const opencodeBodies = opencodeFiles.map((f) => fixture('opencode', f));
  const opencodeSpans = opencodeBodies.reduce((n, b) => n + decodeJsonTraces(b).length, 0);
  const r: Record<string, number> = {};
  const decodeOnly = (body: Buffer) => () => decodeProtoTraces(body).length;
  const pipeline = (body: Buffer) => () => {
    const spans = decodeProtoTraces(body);
    toRows(spanEvents(spans).events);
    return spans.length;
  };
  // Interleaved rounds, so drift on a noisy machine hits every case alike.
  const sum = { goose: 0, codex: 0, codexDecode: 0, opencode: 0 };
  for (let round = 0; round < 3; round++) {
    sum.goose += rate(1, pipeline(goose));
    sum.codex += rate(1, pipeline(codexTraces));
    sum.codexDecode += rate(1, decodeOnly(codexTraces));
    sum.opencode += rate(1, () => opencodeBodies.reduce((n, b) => {
      const spans = decodeJsonTraces(b);
      toRows(spanEvents(spans).events);
      return n + spans.length;
    }, 0));
  }
  r.agentsGooseSpansPerSec = sum.goose / 3;
  r.agentsCodexSpansPerSec = sum.codex / 3;
  r.agentsCodexDecodeSpansPerSec = sum.codexDecode / 3;
  r.agentsOpencodeSpansPerSec = sum.opencode / 3;
  r.agentsCodexLogRecordsPerSec = rate(1, () => {
    const recs = decodeProtoLogs(codexLogs);
    toRows(logEvents(recs).events);
    return recs.length;
  });
  r.agentsCodexExportMs = 1000 / (r.agentsCodexSpansPerSec / codexSpans);
  r.agentsGooseExportMs = 1000 / (r.agentsGooseSpansPerSec / 100);
  console.log(`agents (one thread): a Codex turn's ${codexSpans}-span export (${fmt(codexTraces.length)} bytes protobuf) ${fmt(r.agentsCodexExportMs, 2)} ms = ${fmt(r.agentsCodexSpansPerSec)} spans/s, ${fmt(r.agentsCodexSpansPerSec / r.agentsCodexDecodeSpansPerSec, 2)}× its decode-only rate (what dropping its internal spans costs beyond decoding); goose's 100-span export ${fmt(r.agentsGooseExportMs, 2)} ms = ${fmt(r.agentsGooseSpansPerSec)} spans/s in the same rounds`);
  console.log(`  opencode's run (${opencodeSpans} spans over ${opencodeBodies.length} JSON exports) ${fmt(r.agentsOpencodeSpansPerSec)} spans/s; Codex log records ${fmt(r.agentsCodexLogRecordsPerSec)} records/s`);
  return r;
}
