import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { EventLog } from '../../src/store/log/event-log';
import { listJoined } from '../../src/store/queries/joined-events';
import { agentBinary, runAgent, type AgentName } from './agent-cli';
import { jsonl, startCollector } from './daemon';
import { startMockModel } from './mock-model';
import { BEACON_BIN, tempDir } from './paths';

export const PROMPT = 'Write the lab note, then list the missing directory.';

/**
 * Issue 30's "done means" for one agent: a fresh home, `beacon install <agent>` alone (both halves,
 * default switches: content capture off), a collector running on the log, one real run of the CLI
 * against the mock model's two-tool script (write a file, then a command failing with exit 2).
 * Returns what a user would see: the records, the joined rows, and `beacon events --session` as printed.
 */
export async function installAloneRun(t: TestContext, agent: AgentName, id: string, flags: string[] = [], afterRun?: (home: string, log: string) => void, agentEnv: Record<string, string> = {}, options: { deny?: boolean } = {}) {
  const found = agentBinary(agent);
  if (!found.path) return void t.skip(found.skip);
  const base = tempDir(`install-alone-${agent}-`);
  const home = join(base, 'home');
  const work = join(base, 'work');
  const note = join(work, 'beacon-lab-note.txt');
  const sideEffect = join(work, 'SIDE-EFFECT');
  // the lab's deny run: a provider denying any call that mentions SIDE-EFFECT, and the failing command making one
  const command = options.deny ? `touch ${sideEffect} && ls /nonexistent-dir` : 'ls /nonexistent-dir';
  if (options.deny) {
    const provider = join(base, 'deny-side-effects.sh');
    writeFileSync(provider, `#!/bin/sh\ncase "$(cat)" in *SIDE-EFFECT*) echo '{"decision":"deny","reason":"no side effects here"}';; *) echo '{"decision":"allow"}';; esac\n`, { mode: 0o755 });
    agentEnv = { ...agentEnv, BEACON_POLICY_PROVIDER: provider };
  }
  const mock = await startMockModel({ twoTools: { path: note, content: 'hello from the lab\n', command } });
  const collector = await startCollector();
  try {
    const env: Record<string, string> = { ...agentEnv };
    const run = await runAgent(agent, {
      mockUrl: mock.url, otlpBaseUrl: 'http://127.0.0.1:9', protocol: 'http/protobuf', home, workdir: work, prompt: PROMPT, timeoutMs: 100_000, telemetry: false, env, flags,
      beforeRun() {
        mkdirSync(join(home, '.beacon', 'endpoint'), { recursive: true, mode: 0o700 });
        writeFileSync(join(home, '.beacon', 'endpoint', 'config.json'), JSON.stringify({ collector: { port: collector.port, log: collector.log } }));
        const r = spawnSync(process.execPath, [BEACON_BIN, 'install', id], {
          env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), CODEX_HOME: join(home, '.codex'), COPILOT_HOME: join(home, '.copilot'), SHELL: '/bin/bash', BEACON_SERVICE_NO_ACTIVATE: '1' }, encoding: 'utf8',
        });
        assert.equal(r.status, 0, r.stdout + r.stderr);
        for (const m of r.stdout.matchAll(/^ {4}export (\w+)=(.*)$/gm)) env[m[1]!] = m[2]!;
      },
    });
    assert.equal(run.code, 0, `exit ${run.code}\n${run.stderr.slice(-1500)}`);
    // the export's last batch may trail the agent's exit by its batch delay
    await new Promise((r) => setTimeout(r, 1500));
    afterRun?.(home, collector.log);
    const records = jsonl(spawnSync(process.execPath, [BEACON_BIN, 'events', '--json', '--log', collector.log], { encoding: 'utf8' }).stdout);
    const prompt = records.find((r) => r.event.action === 'prompt.submitted' && r.harness.collection_method === 'hook');
    const session: string = prompt?.session?.id;
    assert.ok(session, `a hook prompt record with a session: ${JSON.stringify(records.map((r) => [r.harness, r.event.action]))}`);
    const printed = spawnSync(process.execPath, [BEACON_BIN, 'events', '--log', collector.log, '--session', session], { encoding: 'utf8', env: { ...process.env, COLUMNS: '160' } }).stdout;
    t.diagnostic(`beacon events --session ${session}\n${printed}`);
    const log = EventLog.open(collector.log, { readonly: true });
    const calls = listJoined(log, { sessionId: session }).filter((x) => x.kind === 'tool_call');
    log.close();
    return { records: records.filter((r) => r.session?.id === session), all: records, calls, note, command, session, printed, sideEffectRan: existsSync(sideEffect) };
  } finally {
    await collector.stop();
    await mock.close();
    rmSync(base, { recursive: true, force: true });
  }
}
