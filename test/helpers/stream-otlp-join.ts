/**
 * A real run in stream mode with the agent's OTLP export on, both into one collector's log: the
 * stream piped through `beacon stream <agent> --tee --log <the collector's log>`, the export sent to
 * the collector. What issue 32 asks of the two paths of one session: joined (both methods under the
 * stream's own session id) and not doubled (token-usage equals the mock's truth once: the export's
 * per-call records count, the stream's run report does not).
 */
import { EventLog } from '../../src/store/log/event-log';
import { listJoined } from '../../src/store/queries/joined-events';
import { jsonl, runBeacon, startCollector } from './daemon';
import type { AgentName } from './agent-cli';
import { sessionUsage, streamLabRun, type Buckets, type StreamLabRun } from './stream-lab';

export interface JoinedRun {
  lab: StreamLabRun;
  /** the stream's own session id (its records') */
  session: string;
  usage: { model_calls: number; usage: Buckets; total_tokens: number };
  /** the collection methods of `beacon events --session`'s records, sorted */
  methods: string[];
  /** the stream recorded a run report (usage.reported) in that session */
  streamReported: boolean;
  /** the session's tool calls the stream saw, as `beacon events` joins them: call id and the paths that saw it */
  streamCalls: Array<{ callId: string | null; seenBy: string[] }>;
}

/** One joined run; waits (up to 30 s) for the export's model calls, which land as the agent exits. */
export async function joinedStreamRun(name: AgentName): Promise<JoinedRun> {
  const collector = await startCollector();
  try {
    const lab = await streamLabRun(name, { log: collector.log, otlpBaseUrl: collector.url });
    const first = lab.records.find((r) => r.harness?.collection_method === 'stream');
    const session = String(first?.session?.id ?? '');
    let usage = sessionUsage(collector.log, session);
    for (const until = Date.now() + 30_000; usage.model_calls < lab.modelCalls && Date.now() < until; usage = sessionUsage(collector.log, session)) await new Promise((res) => setTimeout(res, 500));
    const events = jsonl(runBeacon(['events', '--log', collector.log, '--json', '--session', session]).stdout);
    const methods = [...new Set(events.map((e) => String(e.harness.collection_method)))].sort();
    const streamReported = events.some((e) => e.event.action === 'usage.reported' && e.harness.collection_method === 'stream');
    const log = EventLog.open(collector.log, { readonly: true });
    const calls = listJoined(log, { sessionId: session }).flatMap((x) => (x.kind === 'tool_call' && x.seenBy.includes('stream') ? [{ callId: x.callId, seenBy: [...x.seenBy].sort() }] : []));
    log.close();
    return { lab, session, usage, methods, streamReported, streamCalls: calls };
  } finally {
    await collector.stop();
  }
}
