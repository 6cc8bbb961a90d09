/**
 * The session-store readers of Gemini CLI 0.61.0, Qwen Code 0.24.4 and Copilot CLI 1.0.102 on files
 * their real CLIs wrote in the agents lab (test/fixtures/stores/*.jsonl: one run of the two-tool
 * script against the mock model, machine paths replaced by /home/alice): where each agent keeps them
 * (its override variable included), every model call once in Beacon's disjoint buckets with the
 * mock's numbers, the prompt, the write and the failing command with its exit code.
 */
import assert from 'node:assert/strict';
import { appendFileSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { NormalizedEvent } from '../../src/model/record';
import { sessionStoreNamed, type SessionStore } from '../../src/sources/store-registry';
import { readSessionFile, sessionFiles } from '../../src/sources/store-scan';
import { repoRoot, tempDir } from '../helpers/paths';

const fixture = (name: string) => join(repoRoot(), 'test', 'fixtures', 'stores', name);

/** The fixture put where the agent keeps it under a fresh home; the store's own walk finds it. */
function placed(storeName: string, fixtureName: string, relative: string, env?: NodeJS.ProcessEnv): { store: SessionStore; home: string; file: string } {
  const store = sessionStoreNamed(storeName)!;
  const home = tempDir(`store-${storeName}-`);
  const file = join(store.root(home, env), relative);
  mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
  copyFileSync(fixture(fixtureName), file);
  return { store, home, file };
}

function read(store: SessionStore, home: string, env?: NodeJS.ProcessEnv): { events: NormalizedEvent[]; warnings: string[] } {
  const warnings: string[] = [];
  const files = sessionFiles(store, store.root(home, env), (m) => warnings.push(m));
  assert.equal(files.length, 1, `one session file found: ${warnings.join('; ')}`);
  const r = readSessionFile(store, files[0]!, (m) => warnings.push(m));
  return { events: r.events, warnings };
}

const byAction = (events: NormalizedEvent[], action: string) => events.filter((e) => e.record.event.action === action).map((e) => e.record);
const usageOf = (events: NormalizedEvent[]) => byAction(events, 'model.invoked').map((r) => {
  const u = r.gen_ai!.usage!;
  return [u.input_tokens, u.cache_read?.input_tokens, u.output_tokens, u.reasoning?.output_tokens];
});

/** The mock's two tool steps (1200 in, 300 cached, 40 out, 8 reasoning) then its final (1500, 1000, 25, 5), input without the cached. */
const OPENAI_TRUTH = [[900, 300, 40, 8], [900, 300, 40, 8], [500, 1000, 25, 5]];

function assertTools(events: NormalizedEvent[], ids: [string, string], path: string): void {
  const write = byAction(events, 'file.modified');
  assert.equal(write.length, 1);
  assert.equal(write[0]!.file?.path, path);
  assert.equal(write[0]!.gen_ai?.tool?.call?.id, ids[0]);
  const failed = byAction(events, 'tool.failed');
  assert.equal(failed.length, 1, 'the failing command is a failed call');
  assert.deepEqual([failed[0]!.command?.command, failed[0]!.command?.exit_code, failed[0]!.gen_ai?.tool?.call?.id], ['ls /nonexistent-dir', 2, ids[1]]);
  assert.match(String(failed[0]!.gen_ai?.tool?.call?.result), /No such file or directory/);
  assert.ok(events.every((e) => e.record.harness.collection_method === 'poll'));
}

describe('Gemini CLI session store (0.61.0 chat file)', () => {
  const rel = 'proj/chats/session-2026-12-02T03-18-52d35956.jsonl';

  it('each rewritten message id once: three model calls with the mock tokens (output with the thoughts added), the prompt, the two tools', () => {
    const { store, home } = placed('gemini', 'gemini-cli.jsonl', rel);
    assert.equal(store.root(home), join(home, '.gemini', 'tmp'));
    const { events, warnings } = read(store, home);
    assert.deepEqual(warnings, []);
    // Gemini's output excludes thoughts: Beacon's output holds them (40 + 8)
    assert.deepEqual(usageOf(events), [[900, 300, 48, 8], [900, 300, 48, 8], [500, 1000, 30, 5]]);
    const calls = byAction(events, 'model.invoked');
    assert.ok(calls.every((c) => c.model === 'gemini-2.5-flash' && c.session?.id === '52d35956-4567-4676-ba87-ecc50cae1e76'));
    assert.equal(calls[0]!.timestamp, '2026-12-02T03:18:06.166000000Z');
    const prompts = byAction(events, 'prompt.submitted');
    assert.deepEqual(prompts.map((p) => p.prompt?.text), ['Write the lab note, then list the missing directory.'], 'the session context and the tool results are not prompts');
    assertTools(events, ['write_file__call_beacon_0001', 'run_shell_command__call_beacon_0002'], '/home/alice/proj/note.txt');
  });

  it("an older CLI's session-….json (one pretty-printed document) gives the same events as its JSON lines; an oversized one is skipped with a warning", () => {
    const lines = readFileSync(fixture('gemini-cli.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const messages = new Map(lines.filter((l) => typeof l.id === 'string').map((l) => [l.id, l]));
    const doc = JSON.stringify({ ...lines[0], messages: [...messages.values()] }, null, 2);
    const { store, home } = placed('gemini', 'gemini-cli.jsonl', rel);
    const jsonl = read(store, home).events;
    const h = tempDir('store-gemini-json-');
    const file = join(store.root(h), 'proj/chats/session-2026-12-02T03-18-52d35956.json');
    mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
    writeFileSync(file, doc);
    const { events, warnings } = read(store, h);
    assert.deepEqual(warnings, []);
    assert.ok(doc.split('\n').length > 100, 'the document spans many lines');
    assert.deepEqual(events.map((e) => e.record.event.id).sort(), jsonl.map((e) => e.record.event.id).sort(), 'the same event ids: a session in both forms counts once');
    const small: string[] = [];
    const [found] = sessionFiles(store, store.root(h), () => undefined);
    assert.equal(readSessionFile(store, found!, (m) => small.push(m), 1024).events.length, 0);
    assert.match(small.join('\n'), /1 line longer than [\d.]+ MiB, skipped \(first: line 1\)/);
  });

  it("a subagent's file is its parent session's (OTLP records its calls under the CLI's one session id), its task no prompt", () => {
    const { store, home, file } = placed('gemini', 'gemini-cli.jsonl', 'proj/chats/0f1e2d3c-parent/agent-7.jsonl');
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    writeFileSync(file, `${[{ ...lines[0], sessionId: 'agent-7', kind: 'subagent' }, ...lines.slice(1)].map((l) => JSON.stringify(l)).join('\n')}\n`);
    const { events } = read(store, home);
    assert.equal(usageOf(events).length, 3);
    assert.ok(events.every((e) => e.record.session?.id === '0f1e2d3c-parent'));
    assert.equal(byAction(events, 'prompt.submitted').length, 0);
  });

  it('GEMINI_CLI_HOME stands for the home; subagent files under chats/<parent>/ are sessions too', () => {
    const store = sessionStoreNamed('gemini-cli')!;
    assert.equal(store.root('/home/alice', { GEMINI_CLI_HOME: '/srv/gem' }), '/srv/gem/.gemini/tmp');
    assert.ok(store.isSessionFile('proj/chats/abc/def.jsonl'));
    assert.ok(!store.isSessionFile('proj/chats/notes.jsonl'), 'a main session file is session-….jsonl');
    assert.ok(!store.isSessionFile('proj/logs.json'));
  });

  it('a message with a hostile token count skips that line only', () => {
    const { store, home, file } = placed('gemini', 'gemini-cli.jsonl', rel);
    appendFileSync(file, `${JSON.stringify({ id: 'x1', timestamp: '2026-12-02T03:19:00.000Z', type: 'gemini', content: '', tokens: { input: -5, output: 'lots' }, model: 'm' })}\n`);
    const { events, warnings } = read(store, home);
    assert.equal(usageOf(events).length, 3);
    assert.match(warnings.join('\n'), /1 line not a JSON object \(or not a record the reader knows the shape of\), skipped \(first: line 17\)/);
  });
});

describe('Qwen Code session store (0.24.4 chat file)', () => {
  const rel = '-home-alice-proj/chats/333c3569-1f4d-4ff8-9b6b-a445b94c5359.jsonl';

  it('three model calls with the response ids of their telemetry copies and the mock tokens, the prompt, the two tools', () => {
    const { store, home } = placed('qwen', 'qwen-code.jsonl', rel);
    assert.equal(store.root(home), join(home, '.qwen', 'projects'));
    const { events, warnings } = read(store, home);
    assert.deepEqual(warnings, []);
    assert.deepEqual(usageOf(events), OPENAI_TRUTH);
    const calls = byAction(events, 'model.invoked');
    assert.deepEqual(calls.map((c) => [c.gen_ai?.response?.id, c.model, c.gen_ai?.provider?.name, c.harness.version]), [1, 2, 3].map((n) => [`chatcmpl-beacon-000${n}`, 'qwen3-coder-mock', 'openai', '0.24.4']));
    assert.equal(calls[0]!.gen_ai?.duration_ms, 286);
    assert.deepEqual(byAction(events, 'prompt.submitted').map((p) => p.prompt?.text), ['Write the lab note, then list the missing directory.']);
    assertTools(events, ['call_beacon_0001', 'call_beacon_0002'], '/home/alice/proj/note.txt');
    assert.equal(byAction(events, 'tool.failed')[0]!.command?.duration_ms, 99, 'the duration from the tool_call telemetry copy');
  });

  it('QWEN_RUNTIME_DIR (the sessions) wins over QWEN_HOME, which wins over ~/.qwen; ~ is the home', () => {
    const store = sessionStoreNamed('qwen-code')!;
    assert.equal(store.root('/home/alice', { QWEN_HOME: '~/qh', QWEN_RUNTIME_DIR: '/srv/rt' }), '/srv/rt/projects');
    assert.equal(store.root('/home/alice', { QWEN_HOME: '~/qh' }), '/home/alice/qh/projects');
    assert.equal(store.root('/home/alice', {}), '/home/alice/.qwen/projects');
    assert.ok(!store.isSessionFile('-p/chats/x.runtime.json'));
    assert.ok(store.isSessionFile('-p/chats/archive/x.jsonl'), 'an archived session');
    assert.ok(!store.isSessionFile('-p/chats/other/x.jsonl'));
  });

  it('a file without telemetry copies: its assistant records are the calls (no response id); a bad count skips its line', () => {
    const { store, home, file } = placed('qwen', 'qwen-code.jsonl', rel);
    const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l && JSON.parse(l).subtype !== 'ui_telemetry');
    const bad = JSON.stringify({ ...JSON.parse(lines.find((l) => JSON.parse(l).type === 'assistant')!), uuid: 'u-y', usageMetadata: { promptTokenCount: 1e30 } });
    writeFileSync(file, `${[...lines, bad].join('\n')}\n`);
    const { events, warnings } = read(store, home);
    assert.deepEqual(usageOf(events), OPENAI_TRUTH);
    assert.ok(byAction(events, 'model.invoked').every((c) => c.gen_ai?.response === undefined && c.model === 'qwen3-coder-mock'));
    assert.match(warnings.join('\n'), new RegExp(`1 line not a JSON object[^\\n]*\\(first: line ${lines.length + 1}\\)`));
  });
});

describe('Copilot CLI session store (1.0.102 events.jsonl)', () => {
  const rel = 'f85f4dcf-2aa5-4c0c-9bc4-779fe0aa71a0/events.jsonl';

  it('one call per usage record with its response id and the mock tokens, the prompt as sent, the two tools; the shutdown totals are no call', () => {
    const { store, home } = placed('copilot', 'copilot-cli.jsonl', rel);
    assert.equal(store.root(home), join(home, '.copilot', 'session-state'));
    const { events, warnings } = read(store, home);
    assert.deepEqual(warnings, []);
    assert.deepEqual(usageOf(events), OPENAI_TRUTH);
    const calls = byAction(events, 'model.invoked');
    assert.deepEqual(calls.map((c) => [c.gen_ai?.response?.id, c.model, c.gen_ai?.provider?.name, c.gen_ai?.response?.finish_reasons, c.harness.version, c.session?.id]), [
      ['chatcmpl-beacon-0001', 'gpt-4.1', 'openai', ['tool_calls'], '1.0.102', 'f85f4dcf-2aa5-4c0c-9bc4-779fe0aa71a0'],
      ['chatcmpl-beacon-0002', 'gpt-4.1', 'openai', ['tool_calls'], '1.0.102', 'f85f4dcf-2aa5-4c0c-9bc4-779fe0aa71a0'],
      ['chatcmpl-beacon-0003', 'gpt-4.1', 'openai', ['stop'], '1.0.102', 'f85f4dcf-2aa5-4c0c-9bc4-779fe0aa71a0'],
    ]);
    assert.ok(calls.every((c) => c.gen_ai?.usage?.cost_usd === undefined), "Copilot's cost is premium requests, not dollars");
    const prompt = byAction(events, 'prompt.submitted');
    assert.equal(prompt.length, 1);
    // what the user typed: Copilot's <current_datetime> line (in transformedContent) is not the prompt
    assert.equal(prompt[0]!.prompt?.text, 'Write the lab note, then list the missing directory.');
    assertTools(events, ['call_beacon_0001', 'call_beacon_0002'], '/home/alice/proj/note.txt');
  });

  it('COPILOT_HOME stands for ~/.copilot itself', () => {
    const store = sessionStoreNamed('copilot-cli')!;
    assert.equal(store.root('/home/alice', { COPILOT_HOME: '/srv/cp' }), '/srv/cp/session-state');
    assert.ok(!store.isSessionFile('.session-operation-locks/x.lock'));
    assert.ok(!store.isSessionFile('abc/workspace.yaml'));
  });
});
