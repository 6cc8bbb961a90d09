import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { handleHook } from '../../src/hooks/pipeline';
import { hookAdapter } from '../../src/sources/hook-registry';
import { EventLog } from '../../src/store/log/event-log';
import { EventLogWriter } from '../../src/store/writer/event-log-writer';
import { tempDir } from '../helpers/paths';

/** The hook pipeline as one call (payload → events → rows → sink → reply), with the collector's writer thread as its sink. */
const goose = hookAdapter('goose')!;

describe('hook pipeline in-process, on the writer thread', () => {
  it('stores through any sink and answers; a sink that fails still answers allow, with the error', async () => {
    const path = join(tempDir(), 'events.db');
    const writer = await EventLogWriter.start({ path, busyTimeoutMs: 1000 });
    const payload = (id: string, name: string, input: unknown) => JSON.stringify({ event: 'PostToolUse', session_id: 'pipe', tool_call_id: id, tool_name: name, tool_input: input });
    const pre = await handleHook(goose, 'pre-tool', JSON.stringify({ event: 'PreToolUse', session_id: 'pipe', tool_call_id: 'c1', tool_name: 'shell', tool_input: { command: 'ls' } }), { sink: writer, env: {} });
    assert.deepEqual(pre, { reply: '{"decision":"allow"}', errors: [], recorded: true });
    const post = await handleHook(goose, 'post-tool', payload('c2', 'edit', { path: 'a.ts', before: 'x', after: 'y' }), { sink: writer, env: {} });
    assert.deepEqual(post, { errors: [], recorded: true }, 'a non-blocking event has no reply');
    await writer.close();

    const log = EventLog.open(path, { readonly: true });
    const actions = log.list().map((r) => JSON.parse(r.record)).map((e) => `${e.event.action}:${e.gen_ai.tool.call.id}:${e.file?.diff ? 'diff' : ''}`);
    log.close();
    assert.deepEqual(actions.sort(), ['file.modified:c2:diff', 'tool.invoked:c1:']);

    // the writer is closed: its append refuses (503 to an export); the hook still allows goose
    const after = await handleHook(goose, 'pre-tool', JSON.stringify({ event: 'PreToolUse', session_id: 'pipe', tool_call_id: 'c3', tool_name: 'shell', tool_input: { command: 'ls' } }), { sink: writer, env: {} });
    assert.equal(after.reply, '{"decision":"allow"}');
    assert.equal(after.recorded, false);
    assert.match(after.errors.join(), /shutting down/);
  });
});
