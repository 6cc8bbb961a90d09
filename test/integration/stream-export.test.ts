/**
 * Issue 32 item 4: a `beacon stream` run's records, written beside a running collector, reach its
 * runtime.jsonl export and its OTLP forwarding (to @elastic/mockotlpserver) like any other writer's:
 * the same lines `beacon events --json` prints, each record the body of one forwarded LogRecord.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EventLog } from '../../src/store/log/event-log';
import { jsonl, runBeacon, startCollector } from '../helpers/daemon';
import { waitCaughtUp, waitFor } from '../helpers/forward';
import { startMockReceiver, type MockReceiver } from '../helpers/otlp-receiver';
import { BEACON_BIN, tempDir } from '../helpers/paths';

const SID = '5c0a7e1d-2b4f-4c3a-9d8e-6f1a2b3c4d5e';
const j = (o: unknown) => JSON.stringify(o);
/** A Claude Code run in stream-json: the write, the failing Bash, the message, an unknown record, the result's usage. */
const STREAM = [
  j({ type: 'system', subtype: 'init', cwd: '/w', session_id: SID, model: 'claude-sonnet-4-5', tools: ['Bash', 'Write'] }),
  j({ type: 'assistant', message: { id: 'msg_x1', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_x1', name: 'Write', input: { file_path: '/w/note.txt', content: 'hello\n' } }] }, session_id: SID }),
  j({ type: 'user', message: { role: 'user', content: [{ tool_use_id: 'toolu_x1', type: 'tool_result', content: 'File created successfully at: /w/note.txt' }] }, session_id: SID, timestamp: '2026-12-02T00:07:05.571Z' }),
  j({ type: 'assistant', message: { id: 'msg_x2', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_x2', name: 'Bash', input: { command: 'ls /nonexistent-dir' } }] }, session_id: SID }),
  j({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', content: 'Exit code 2\nls: cannot access', is_error: true, tool_use_id: 'toolu_x2' }] }, session_id: SID, timestamp: '2026-12-02T00:07:05.785Z' }),
  j({ type: 'assistant', message: { id: 'msg_x3', role: 'assistant', content: [{ type: 'text', text: 'Done.' }] }, session_id: SID }),
  j({ type: 'beacon_test_unheard_of', n: 1 }),
  j({ type: 'result', subtype: 'success', session_id: SID, total_cost_usd: 0.01, usage: { input_tokens: 3900, cache_creation_input_tokens: 120, cache_read_input_tokens: 1600, output_tokens: 105 } }),
].join('\n');

describe('a stream run\'s records in the JSONL export and the OTLP forwarding', () => {
  let mock: MockReceiver;
  before(async () => {
    mock = await startMockReceiver();
  });
  after(async () => mock?.close());

  it('every record of the run is exported as the line beacon events prints and forwarded with it as the body', async () => {
    const dir = tempDir('stream-export-');
    const log = join(dir, 'events.db');
    const exportPath = join(dir, 'runtime.jsonl');
    const cfg = join(dir, 'config.json');
    writeFileSync(cfg, JSON.stringify({ collector: { exportPath, forward: [{ name: 'gateway', type: 'otlp', from: 'start', batchDelayMs: 100, timeoutMs: 1000, endpoint: mock.url, compression: 'none' }] } }));
    const c = await startCollector({ log, args: ['--config', cfg] });
    try {
      const r = spawnSync(process.execPath, [BEACON_BIN, 'stream', 'claude-code', '--log', log, '--tee'], { input: STREAM, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout, STREAM);
      const records: string[] = runBeacon(['events', '--log', log, '--json', '--session', SID, '--since', '3650d']).stdout.split('\n').filter(Boolean);
      assert.deepEqual(jsonl(records.join('\n')).map((e) => e.event.action).sort(), ['agent.message', 'agent.unknown', 'file.modified', 'tool.failed', 'usage.reported']);

      const exported = () => (existsSync(exportPath) ? readFileSync(exportPath, 'utf8').split('\n').filter(Boolean) : []);
      await waitFor(exported, (lines) => records.every((l) => lines.includes(l)), 'every stream record in the export');
      await waitCaughtUp(c, log, 'the forwarder acknowledged the stream\'s commits');
    } finally {
      assert.equal(await c.stop(), 0);
    }

    const stored = EventLog.open(log, { readonly: true });
    try {
      const rows = stored.list({ order: 'seq' }).filter((row) => JSON.parse(row.record).session?.id === SID);
      assert.equal(rows.length, 5);
      for (const row of rows) {
        const rec = JSON.parse(row.record);
        const got = mock.received.filter((x) => x.attributes['log.record.uid'] === rec.event.id);
        assert.equal(got.length, 1, `${rec.event.action} forwarded once`);
        assert.equal(got[0]!.body, row.record, 'the Beacon JSON is the body');
        assert.equal(got[0]!.attributes['harness.collection_method'], 'stream');
        assert.equal(got[0]!.attributes['session.id'], SID);
        if (rec.event.action === 'usage.reported') assert.equal(got[0]!.attributes['gen_ai.usage.input_tokens'], 3900);
      }
    } finally {
      stored.close();
    }
  });
});
