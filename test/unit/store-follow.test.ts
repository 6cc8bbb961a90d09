/**
 * The follower (src/importer/follow.ts) in-process, fs.watch off: the poll alone finds a new file
 * and a grown one (what a file system without working events gets); the reader of a file being
 * written is kept between passes, so a tool call waiting for its result is recorded once, whole;
 * a file quiet long enough is read as finished (a call that never got its result recorded as far
 * as it is known). A store read whole (a database) is read again only when it or its WAL changed.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { importFile } from '../../src/importer/file-import';
import { StoreFollower } from '../../src/importer/follow';
import type { NormalizedEvent } from '../../src/model/record';
import type { SessionStore } from '../../src/sources/store-registry';
import { sessionFiles } from '../../src/sources/store-scan';
import { LogTarget } from '../../src/importer/target';
import { importWhole, type WholeSource } from '../../src/importer/whole-import';
import { promptEvent } from '../../src/sources/agent-events';
import { AGENT as CLAUDE } from '../../src/sources/claude-code/index';
import { storeObservation } from '../../src/sources/store-events';
import { claudeCodeStore } from '../../src/sources/claude-code/store-claude-code';
import { qwenCodeStore } from '../../src/sources/qwen-code/store-qwen-code';
import { readFileSync } from 'node:fs';
import { EventLog } from '../../src/store/log/event-log';
import { repoRoot, tempDir } from '../helpers/paths';

const SESSION = '7d3f9e30-4c79-4e50-9b65-3f4d1a2e9c33';
const line = (o: unknown) => `${JSON.stringify(o)}\n`;
const base = (t: string) => ({ sessionId: SESSION, version: '2.1.197', cwd: '/work', timestamp: `2026-11-24T10:00:${t}Z` });
const toolUse = (t: string, id: string) => line({ ...base(t), type: 'assistant', uuid: `a-${id}`, message: { id: `msg_${id}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', stop_reason: 'tool_use', content: [{ type: 'tool_use', id, name: 'Bash', input: { command: 'false' } }], usage: { input_tokens: 10, output_tokens: 2, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } } });
const failed = (t: string, id: string) => line({ ...base(t), type: 'user', uuid: `r-${id}`, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'Exit code 1', is_error: true }] } });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, f: () => T | undefined, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(50);
  }
}

function setup() {
  const root = join(tempDir('follow-unit-'), 'projects');
  const logPath = join(tempDir('follow-unit-log-'), 'events.db');
  const target = new LogTarget(logPath);
  const stored = () => {
    const log = EventLog.open(logPath, { readonly: true });
    try {
      return log.list().map((r) => JSON.parse(r.record));
    } finally {
      log.close();
    }
  };
  return { root, target, stored };
}

describe('the store follower', () => {
  it('polling alone: a new file in a new directory, then a tool call recorded once, whole, when its result comes', async () => {
    const { root, target, stored } = setup();
    mkdirSync(root, { recursive: true, mode: 0o700 });
    const warnings: string[] = [];
    const follower = new StoreFollower({ stores: [{ store: claudeCodeStore, root }], target, warn: (m) => warnings.push(m), pollMs: 150, watch: false }).start();
    try {
      await sleep(200);
      assert.equal(follower.health().watching, 0, 'no fs.watch');
      mkdirSync(join(root, '-work'), { mode: 0o700 });
      const file = join(root, '-work', `${SESSION}.jsonl`);
      writeFileSync(file, toolUse('01.000', 'toolu_f'), { mode: 0o600 });
      await until('the file is being read', () => (follower.health().open === 1 ? true : undefined));
      await sleep(400); // passes go by: the call waits for its result, nothing recorded of it yet
      assert.deepEqual(stored().filter((r) => r.gen_ai?.tool), []);
      appendFileSync(file, failed('02.000', 'toolu_f'));
      const calls = await until('the failed call', () => {
        const c = stored().filter((r) => r.gen_ai?.tool?.call?.id === 'toolu_f');
        return c.length > 0 ? c : undefined;
      });
      await sleep(400);
      assert.deepEqual(stored().filter((r) => r.gen_ai?.tool?.call?.id === 'toolu_f').map((r) => r.event.action), ['tool.failed'], 'once, as it ended');
      assert.equal(calls[0].gen_ai.tool.call.result, 'Exit code 1');
      assert.equal(stored().filter((r) => r.event.action === 'model.invoked').length, 1);
      assert.deepEqual(warnings, []);
    } finally {
      await follower.stop();
      target.close();
    }
  });

  it('a file quiet long enough is read as finished: a call without its result is recorded as far as it is known', async () => {
    const { root, target, stored } = setup();
    mkdirSync(join(root, '-work'), { recursive: true, mode: 0o700 });
    writeFileSync(join(root, '-work', `${SESSION}.jsonl`), toolUse('01.000', 'toolu_q'), { mode: 0o600 });
    const follower = new StoreFollower({ stores: [{ store: claudeCodeStore, root }], target, warn: () => {}, pollMs: 150, quietMs: 600, watch: false }).start();
    try {
      const calls = await until('the unanswered call', () => {
        const c = stored().filter((r) => r.gen_ai?.tool?.call?.id === 'toolu_q');
        return c.length > 0 ? c : undefined;
      });
      assert.deepEqual(calls.map((r) => [r.event.action, r.gen_ai.tool.call.result]), [['command.executed', undefined]]);
      assert.equal(follower.health().open, 0, 'its reader dropped');
    } finally {
      await follower.stop();
      target.close();
    }
  });
});

describe("the follower on Qwen Code's chat file (its reader settles as it reads)", () => {
  it("shows each call as its line comes, not once the file has gone quiet; the tool call once its result comes", async () => {
    // the real 0.24.4 file of the two-tool run: api_response copy, assistant record, tool_call copy, tool_result, per call
    const lines = readFileSync(join(repoRoot(), 'test', 'fixtures', 'stores', 'qwen-code.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => `${l}\n`);
    const second = lines.findIndex((l) => l.includes('"response_id":"chatcmpl-beacon-0002"'));
    assert.ok(second > 0);
    const { root, target, stored } = setup();
    const dir = join(root, '-home-alice-proj', 'chats');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, '333c3569-1f4d-4ff8-9b6b-a445b94c5359.jsonl');
    writeFileSync(file, lines.slice(0, second + 2).join(''), { mode: 0o600 }); // up to call 2's request
    const follower = new StoreFollower({ stores: [{ store: qwenCodeStore, root }], target, warn: () => {}, pollMs: 150, quietMs: 60_000, watch: false }).start();
    const responses = () => stored().filter((r) => r.event.action === 'model.invoked').map((r) => r.gen_ai.response.id);
    try {
      await until('both calls so far', () => (responses().length === 2 ? true : undefined));
      await follower.idle(); // the pass that recorded them has kept the file's reader
      assert.deepEqual(responses(), ['chatcmpl-beacon-0001', 'chatcmpl-beacon-0002']);
      assert.deepEqual(stored().filter((r) => r.gen_ai?.tool).map((r) => r.gen_ai.tool.call.id), ['call_beacon_0001'], 'call 2 waits for its result');
      assert.equal(follower.health().open, 1, 'the file is still being read');
      appendFileSync(file, lines.slice(second + 2).join(''));
      await until('the last call and the failed command', () => (responses().length === 3 && stored().some((r) => r.event.action === 'tool.failed') ? true : undefined));
      await sleep(400);
      assert.deepEqual(stored().filter((r) => r.gen_ai?.tool).map((r) => [r.gen_ai.tool.call.id, r.event.action]), [['call_beacon_0001', 'file.modified'], ['call_beacon_0002', 'tool.failed']]);
      assert.equal(responses().length, 3, 'each call once');
    } finally {
      await follower.stop();
      target.close();
    }
  });
});

describe('a store read whole (a database) with a cursor', () => {
  it('is read again only when it or its -wal changed; what it held before adds nothing', async () => {
    const { target, stored } = setup();
    const db = join(tempDir('whole-'), 'sessions.db');
    writeFileSync(db, 'v1', { mode: 0o600 });
    let reads = 0;
    const prompts = ['first'];
    const source: WholeSource = {
      harness: 'claude-code',
      path: db,
      *read() {
        reads++;
        yield prompts.map((text, i) => promptEvent(CLAUDE, storeObservation({ time: BigInt(Date.UTC(2026, 10, 24)) * 1_000_000n + BigInt(i), sessionId: SESSION, key: `prompt:${i}` }), text));
      },
    };
    try {
      assert.deepEqual(await importWhole(source, { target, warn: () => {} }), { read: true, added: 1 });
      assert.deepEqual(await importWhole(source, { target, warn: () => {} }), { read: false, added: 0 }, 'unchanged: not read');
      prompts.push('second');
      writeFileSync(`${db}-wal`, 'a commit', { mode: 0o600 }); // the database itself untouched: only its WAL grew
      assert.deepEqual(await importWhole(source, { target, warn: () => {} }), { read: true, added: 1 });
      assert.equal(reads, 2);
      assert.deepEqual(stored().map((r) => r.prompt.text).sort(), ['first', 'second']);
    } finally {
      target.close();
    }
  });
});

describe('a session file that is one JSON document (SessionStore.isJsonDocument)', () => {
  it('is read whole, its newlines inside, and read again from its start whenever it is rewritten', async () => {
    const { target, stored } = setup();
    const root = tempDir('document-store-');
    const file = join(root, 'session-1.json');
    const documentStore: SessionStore = {
      harness: 'claude-code', names: ['document-test'], root: () => root, depth: 1,
      isSessionFile: (rel) => rel.endsWith('.json'),
      isJsonDocument: () => true,
      reader: () => {
        const out: NormalizedEvent[] = [];
        return {
          line: (v) => {
            for (const [i, text] of (v.prompts as string[]).entries()) out.push(promptEvent(CLAUDE, storeObservation({ time: BigInt(Date.UTC(2026, 10, 25)) * 1_000_000n + BigInt(i), sessionId: SESSION, key: `doc:${i}` }), text));
            return [];
          },
          end: () => out,
        };
      },
    };
    const once = async () => {
      const [f] = sessionFiles(documentStore, root, () => {});
      return importFile(documentStore, f!, { target, warn: () => {}, finished: false });
    };
    try {
      writeFileSync(file, JSON.stringify({ prompts: ['one'] }, null, 2), { mode: 0o600 });
      assert.deepEqual(await once(), { bytes: statSync(file).size, added: 1 }, 'read whole although the follow reads it (not finished)');
      assert.deepEqual(await once(), { bytes: 0, added: 0 });
      writeFileSync(file, JSON.stringify({ prompts: ['one', 'two'] }, null, 2));
      assert.deepEqual(await once(), { bytes: statSync(file).size, added: 1 }, 'from its start: one new prompt, the first merged');
      assert.deepEqual(stored().map((r) => r.prompt.text).sort(), ['one', 'two']);
    } finally {
      target.close();
    }
  });
});
