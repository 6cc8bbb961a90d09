/**
 * Issue 30 item 5, end to end: the hook command `beacon install <agent>` wrote, run as the agent
 * runs it (`sh -c '<command>'`, the payload on stdin; opencode: the plugin file itself, imported and
 * called), answers neutrally (exit 0, empty stdout) and records the call into the log.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { beaconIn, fakeHome } from '../helpers/fake-home';
import { HOOK_CASES, parsed } from '../helpers/agent-hook-cases';

const CWD_NOTE = 'beacon-e2e';
const commandFor = (agent: string) => `echo ${CWD_NOTE}-${agent} && ls /nonexistent-dir`;

/** The pre-tool payload each CLI sends for its shell tool (shared/docs/agent-hooks-facts.md). */
const PRE_TOOL: Record<string, { event: string; payload: (cwd: string) => object }> = {
  'claude-code': { event: 'PreToolUse', payload: (cwd) => ({ session_id: 'e2e-claude', cwd, transcript_path: '/h/t.jsonl', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: commandFor('claude-code') }, tool_use_id: 'toolu_e2e_1' }) },
  codex: { event: 'PreToolUse', payload: (cwd) => ({ session_id: 'e2e-codex', cwd, transcript_path: '/h/t.jsonl', hook_event_name: 'PreToolUse', model: 'gpt-5.5', tool_name: 'Bash', tool_input: { command: commandFor('codex') }, tool_use_id: 'call_e2e_1' }) },
  'gemini-cli': { event: 'BeforeTool', payload: (cwd) => ({ session_id: 'e2e-gemini', cwd, transcript_path: '/h/t.jsonl', hook_event_name: 'BeforeTool', timestamp: new Date().toISOString(), tool_name: 'run_shell_command', tool_input: { command: commandFor('gemini-cli') } }) },
  'qwen-code': { event: 'PreToolUse', payload: (cwd) => ({ session_id: 'e2e-qwen', cwd, transcript_path: '/h/t.jsonl', hook_event_name: 'PreToolUse', timestamp: new Date().toISOString(), permission_mode: 'yolo', tool_name: 'run_shell_command', tool_input: { command: commandFor('qwen-code') }, tool_use_id: 'toolu_1_x', tool_call_id: 'call_e2e_1' }) },
  'copilot-cli': { event: 'preToolUse', payload: (cwd) => ({ sessionId: 'e2e-copilot', timestamp: Date.now(), cwd, toolName: 'bash', toolArgs: { command: commandFor('copilot-cli'), description: 'list' } }) },
};

function recorded(h: ReturnType<typeof fakeHome>, agent: string): unknown[] {
  const r = beaconIn(h, ['events', '--json', '--log', join(h.home, '.beacon', 'endpoint', 'events.db')]);
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((e) => e.harness?.name === agent);
}

describe('the hook command beacon install wrote, run as the agent runs it, records into the log', () => {
  for (const c of HOOK_CASES) {
    it(`${c.agent}: sh -c '<the installed ${PRE_TOOL[c.agent]!.event} command>' with its payload answers neutrally and records the command`, () => {
      const h = fakeHome({ XDG_CONFIG_HOME: '', CODEX_HOME: '', CLAUDE_CONFIG_DIR: '', COPILOT_HOME: '', BEACON_POLICY_PROVIDER: '' });
      const r = beaconIn(h, ['install', c.agent]);
      assert.equal(r.status, 0, r.stderr);
      const { event, payload } = PRE_TOOL[c.agent]!;
      const entry = parsed(readFileSync(c.file(h), 'utf8')).hooks[event]!.at(-1) as { hooks?: Array<{ command: string }>; bash?: string };
      const command = entry.bash ?? entry.hooks![0]!.command;
      const run = spawnSync('/bin/sh', ['-c', command], { input: JSON.stringify(payload(h.cwd)), cwd: h.cwd, env: h.env, encoding: 'utf8', timeout: 20_000 });
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stdout, '', 'the neutral answer: nothing on stdout');
      const events = recorded(h, c.agent);
      assert.ok(events.some((e) => JSON.stringify(e).includes(commandFor(c.agent))), `a ${c.agent} record with the command line:\n${JSON.stringify(events)}`);
    });
  }

  it('opencode: the installed plugin, imported as opencode imports it, forwards tool.execute.before and records the command', async () => {
    const h = fakeHome({ XDG_CONFIG_HOME: '', BEACON_POLICY_PROVIDER: '' });
    const r = beaconIn(h, ['install', 'opencode']);
    assert.equal(r.status, 0, r.stderr);
    // opencode loads plugins as ES modules; Node 20 needs the .mjs name to do the same.
    const copy = join(h.home, 'beacon-plugin.mjs');
    copyFileSync(join(h.home, '.config', 'opencode', 'plugins', 'beacon.js'), copy);
    const { BeaconHooks } = await import(pathToFileURL(copy).href) as { BeaconHooks: (ctx: object) => Promise<Record<string, (i: object, o: object) => Promise<void>>> };
    const saved = { HOME: process.env.HOME, PATH: process.env.PATH };
    process.env.HOME = h.home; // the plugin's sh inherits opencode's environment
    try {
      const hooks = await BeaconHooks({ directory: h.cwd });
      await hooks['tool.execute.before']!({ tool: 'bash', sessionID: 'ses_e2e_opencode', callID: 'call_e2e_1' }, { args: { command: commandFor('opencode') } });
    } finally {
      process.env.HOME = saved.HOME;
    }
    const events = recorded(h, 'opencode');
    assert.ok(events.some((e) => JSON.stringify(e).includes(commandFor('opencode'))), JSON.stringify(events));
  });
});
