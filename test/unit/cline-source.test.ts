/**
 * Cline 3.0.65's hooks and session store, read from what its real CLI wrote in the agents lab (one
 * run of the two-tool script against the mock model, test/fixtures/cline/: its hook payloads as
 * captured on stdin, its `<id>.messages.json`; machine paths replaced by /home/alice): the session
 * id, the write with its diff, the failing command with its exit code, each model call once in
 * Beacon's disjoint buckets with the mock's numbers, the prompt, and Cline's deny shape.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { hookAdapter } from '../../src/sources/hook-registry';
import { streamAdapter } from '../../src/sources/stream-registry';
import { sessionStoreNamed } from '../../src/sources/store-registry';
import { readSessionFile, sessionFiles } from '../../src/sources/store-scan';
import { repoRoot, tempDir } from '../helpers/paths';

const FIXTURES = join(repoRoot(), 'test', 'fixtures', 'cline');
const SESSION = '1796213134588_75teq';
const payloads = JSON.parse(readFileSync(join(FIXTURES, 'hook-payloads.json'), 'utf8')) as Record<string, object[]>;

describe('Cline hooks (payloads its CLI sent)', () => {
  const cline = hookAdapter('cline')!;
  const read = (event: string, i = 0) => cline.read(event, JSON.stringify(payloads[event]![i]), { now: 1n, env: {}, key: `${event}-${i}` }).events;

  it('the write is file.modified with its diff, the failing command tool.failed with exit code 2, all in the store\'s session', () => {
    const [write] = read('PostToolUse', 0);
    assert.equal(write!.record.event.action, 'file.modified');
    assert.equal(write!.record.session?.id, SESSION);
    assert.equal(write!.record.file?.path, '/home/alice/proj/hello.txt');
    assert.match(String(write!.record.file?.diff), /^\+hello from beacon$/m);
    assert.equal(write!.record.gen_ai?.tool?.call?.id, 'call_beacon_0001');
    const [cmd] = read('PostToolUse', 1);
    assert.equal(cmd!.record.event.action, 'tool.failed');
    assert.equal(cmd!.record.command?.command, 'ls /nonexistent-beacon-lab');
    assert.equal(cmd!.record.command?.exit_code, 2);
    assert.equal(cmd!.record.gen_ai?.tool?.call?.id, 'call_beacon_0002');
  });

  it('TaskStart starts the session, TaskComplete carries the answer, PreToolUse is an observation', () => {
    assert.equal(read('TaskStart')[0]!.record.event.action, 'session.started');
    assert.equal(read('TaskComplete')[0]!.record.response?.text, 'The command printed beacon-lab. Done.');
    assert.equal(read('PreToolUse', 1)[0]!.record.event.action, 'tool.invoked');
  });

  it('neutral is nothing on stdout; a deny is Cline\'s cancel, on PreToolUse only', () => {
    assert.equal(cline.reply('PreToolUse'), undefined);
    assert.deepEqual(JSON.parse(cline.reply('PreToolUse', { reason: 'pipe to shell' })!), { cancel: true, errorMessage: 'pipe to shell' });
    assert.equal(cline.reply('PostToolUse', { reason: 'x' }), undefined);
  });

  it('an event Beacon does not install is refused, the payload never quoted', () => {
    assert.throws(() => cline.read('PreCompact', JSON.stringify({ secret: 'sk-live' }), { now: 1n, env: {} }), (e: Error) => !e.message.includes('sk-live'));
  });
});

describe('Cline session store', () => {
  const store = sessionStoreNamed('cline')!;
  const placed = (env?: NodeJS.ProcessEnv) => {
    const home = tempDir('store-cline-');
    const file = join(store.root(home, env), SESSION, `${SESSION}.messages.json`);
    mkdirSync(join(file, '..'), { recursive: true });
    copyFileSync(join(FIXTURES, 'session.messages.json'), file);
    return { home, file };
  };

  it('lives under ~/.cline/data/sessions, or where CLINE_DIR, CLINE_DATA_DIR, CLINE_SESSION_DATA_DIR put it', () => {
    assert.equal(store.root('/h'), '/h/.cline/data/sessions');
    assert.equal(store.root('/h', { CLINE_DIR: '/c' }), '/c/data/sessions');
    assert.equal(store.root('/h', { CLINE_DIR: '/c', CLINE_DATA_DIR: '/d' }), '/d/sessions');
    assert.equal(store.root('/h', { CLINE_SESSION_DATA_DIR: '/s' }), '/s');
    assert.ok(store.isSessionFile(`${SESSION}/${SESSION}.messages.json`));
    assert.ok(!store.isSessionFile(`${SESSION}/${SESSION}.json`), 'the manifest is not read: the messages file has everything');
  });

  it('three model calls with the mock\'s numbers (input less the cache), the prompt unwrapped, the write and the failing command', () => {
    const { home, file } = placed();
    assert.deepEqual(sessionFiles(store, store.root(home), (w) => assert.fail(w)).map((f) => f.path), [file]);
    const { events } = readSessionFile(store, { path: file }, (w) => assert.fail(w));
    const calls = events.filter((e) => e.record.event.action === 'model.invoked');
    assert.deepEqual(calls.map((e) => [e.record.gen_ai?.usage?.input_tokens, e.record.gen_ai?.usage?.cache_read?.input_tokens, e.record.gen_ai?.usage?.output_tokens]), [[900, 300, 40], [900, 300, 40], [500, 1000, 25]]);
    assert.ok(calls.every((e) => e.record.session?.id === SESSION && e.record.model === 'mock-model'));
    assert.equal(events.find((e) => e.record.event.action === 'prompt.submitted')?.record.prompt?.text, 'Create hello.txt then run ls on a missing path');
    assert.match(String(events.find((e) => e.record.event.action === 'file.modified')?.record.file?.diff), /^\+hello from beacon$/m);
    const failed = events.find((e) => e.record.event.action === 'tool.failed')!;
    assert.equal(failed.record.command?.exit_code, 2);
    assert.equal(failed.record.gen_ai?.tool?.call?.id, 'call_beacon_0002');
  });

  it('a call not yet answered (the file read mid-turn, as the collector\'s follow does) is left for the read that has its result', () => {
    const { file } = placed();
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    const cut = doc.messages.findIndex((m: { content: Array<{ tool_use_id?: string }> }) => m.content.some((b) => b.tool_use_id === 'call_beacon_0002'));
    writeFileSync(file, JSON.stringify({ ...doc, messages: doc.messages.slice(0, cut) }));
    const { events } = readSessionFile(store, { path: file }, (w) => assert.fail(w));
    assert.deepEqual(events.filter((e) => e.record.gen_ai?.tool).map((e) => e.record.gen_ai?.tool?.call?.id), ['call_beacon_0001']);
    assert.equal(events.filter((e) => e.record.event.action === 'model.invoked').length, 2, 'the call that asked for it is complete, and counted');
  });
});

describe('Cline --json stream', () => {
  it('each model call once with the mock\'s numbers, the write, the failing command with exit code 2, the answer', () => {
    const adapter = streamAdapter('cline')!;
    const parser = adapter.createParser({ sessionId: SESSION });
    const events = readFileSync(join(FIXTURES, 'stream.jsonl'), 'utf8').split('\n').filter(Boolean).flatMap((l) => parser.line(l)).concat(parser.end());
    const records = events.map((e) => adapter.record(e, { sessionId: SESSION, runId: 'r1' })).filter((r) => r !== undefined).map((r) => r!.record);
    assert.deepEqual(records.filter((r) => r.gen_ai?.usage).map((r) => [r.gen_ai!.usage!.input_tokens, r.gen_ai!.usage!.cache_read?.input_tokens, r.gen_ai!.usage!.output_tokens]), [[900, 300, 40], [900, 300, 40], [500, 1000, 25]]);
    assert.equal(records.find((r) => r.event.action === 'file.modified')?.gen_ai?.tool?.call?.id, 'call_beacon_0001');
    const failed = records.find((r) => r.event.action === 'tool.failed')!;
    assert.deepEqual([failed.command?.command, failed.command?.exit_code], ['ls /nonexistent-beacon-lab', 2]);
    assert.ok(records.every((r) => r.session?.id === SESSION && r.harness.name === 'cline'));
    assert.ok(!events.some((e) => e.harness?.type === 'unknown'), 'every line of a real run is understood');
  });
});
