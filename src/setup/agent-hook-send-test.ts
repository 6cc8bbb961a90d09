import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { inspectLog } from '../store/log/log-file';
import { hookAdapter } from '../sources/hook-registry';
import { escapeControls } from '../model/terminal';
import type { AgentSpec } from './agents/spec';
import type { Check } from './doctor';
import { readHookScopes, type HookDoctorContext } from './agent-hook-checks';
import { agentHookCommand } from './hook-command';
import { openLogReadonly } from './read-log';
import { TEST_SESSION_PREFIX } from './agents/spec';

type Payload = (session: string, call: string, cwd: string, event: string, phase: 'pre' | 'post') => object;

const claudeShape: Payload = (session, call, cwd, event, phase) => ({
  session_id: session, cwd, hook_event_name: event, tool_name: 'beacon_doctor_test', tool_input: {}, tool_use_id: call,
  ...(phase === 'post' ? { tool_response: {} } : {}),
});

/**
 * A harmless tool call in each agent's own payload dialect (agent-hooks-facts.md), and the event that
 * finishes it, so that sessions and the dashboard keep no unfinished call per --send-test. The
 * pre-tool event is the adapter's own (its policy event); this table is the rest of what the hook
 * data (HookSpec) does not say.
 */
const DIALECTS: Record<string, { post: string; payload: Payload }> = {
  'claude-code': { post: 'PostToolUse', payload: claudeShape },
  codex: { post: 'PostToolUse', payload: (s, c, cwd, e, phase) => ({ ...claudeShape(s, c, cwd, e, phase), ...(phase === 'post' ? { tool_response: '' } : {}) }) },
  'gemini-cli': { post: 'AfterTool', payload: (s, c, cwd, e, phase) => ({ ...claudeShape(s, c, cwd, e, phase), ...(phase === 'post' ? { tool_response: { llmContent: '', returnDisplay: '' } } : {}) }) },
  'qwen-code': { post: 'PostToolUse', payload: claudeShape },
  'copilot-cli': { post: 'postToolUse', payload: (s, _c, cwd, _e, phase) => ({ sessionId: s, timestamp: Date.now(), cwd, toolName: 'beacon_doctor_test', toolArgs: {}, ...(phase === 'post' ? { toolResult: { resultType: 'success', textResultForLlm: '' } } : {}) }) },
  opencode: { post: 'tool.execute.after', payload: (s, c, cwd, _e, phase) => (phase === 'pre' ? { directory: cwd, input: { tool: 'beacon_doctor_test', sessionID: s, callID: c }, output: { args: {} } } : { directory: cwd, input: { tool: 'beacon_doctor_test', sessionID: s, callID: c, args: {} }, output: { title: '', output: '', metadata: {} } }) },
  cline: { post: 'PostToolUse', payload: (s, c, cwd, _e, phase) => ({ taskId: s, sessionContext: { rootSessionId: s }, workspaceRoots: [cwd], ...(phase === 'pre' ? { tool_call: { id: c, name: 'beacon_doctor_test', input: {} } } : { tool_result: { id: c, name: 'beacon_doctor_test', input: {}, output: {} } }) }) },
  pi: { post: 'tool_result', payload: (s, c, cwd, _e, phase) => ({ cwd, sessionId: s, event: { type: phase === 'pre' ? 'tool_call' : 'tool_result', toolName: 'beacon_doctor_test', toolCallId: c, input: {}, ...(phase === 'post' ? { content: [], isError: false } : {}) } }) },
};

/**
 * `beacon doctor --send-test <agent>`'s hook half: Beacon's own command for the agent's pre-tool
 * event — built here for the log and config the installed entry names, with Beacon's launcher, never
 * the settings file's text (issue 29 item 1) — run as the agent runs it (`sh -c`, the payload on
 * stdin), then its record looked up in the log. It stays there, under a beacon-doctor-test-… session.
 */
export function hookSendTest(spec: AgentSpec, ctx: HookDoctorContext): Check[] {
  const id = `${spec.id}-send-test-hook`;
  const adapter = hookAdapter(spec.id);
  const dialect = DIALECTS[spec.id];
  const pre = spec.hooks!.events.find((e) => adapter?.policyEvents.has(e));
  if (!adapter || !dialect || !pre) return [{ id, status: 'warn', message: `no hook test for ${spec.title}: doctor knows no pre-tool payload for it` }];
  const entries = readHookScopes(spec, ctx).flatMap((s) => s.entries.map((e) => ({ ...e, file: s.file }))).filter((e) => e.event === pre && e.call.platform === spec.id);
  const installed = entries.find((e) => resolve(ctx.cwd, e.call.launcher) === ctx.launcher);
  if (!installed) {
    return [entries.length > 0
      ? { id, status: 'fail', message: `not run: ${entries[0]!.file} runs ${escapeControls(entries[0]!.call.launcher)}, not Beacon's launcher ${ctx.launcher} (see ${spec.id}-hook-launcher above)` }
      : { id, status: 'warn', message: `no hook test: no ${pre} hook of Beacon's is installed`, fix: `beacon install ${spec.id}` }];
  }
  const session = `${TEST_SESSION_PREFIX}${new Date().toISOString().replace(/[-:.]/g, '').slice(0, 15)}-${randomBytes(3).toString('hex')}`;
  const call = `${session}-hook`;
  const { log, config } = installed.call;
  const run = (event: string, phase: 'pre' | 'post') => spawnSync('sh', ['-c', agentHookCommand({ launcher: ctx.launcher, platform: spec.id, log, config, event })], {
    input: JSON.stringify(dialect.payload(session, call, ctx.cwd, event, phase)), encoding: 'utf8', timeout: 15_000, env: { PATH: '/usr/bin:/bin', HOME: ctx.env.HOME ?? '' },
  });
  const r = run(pre, 'pre');
  if (r.status !== 0 || (r.stdout ?? '').trim() !== '') {
    return [{ id, status: 'fail', message: `Beacon's ${pre} hook command exited ${r.status ?? r.signal} and answered "${escapeControls((r.stdout ?? '').trim().slice(0, 80))}" (${spec.title}'s neutral answer is nothing)${r.stderr ? `: ${escapeControls(r.stderr.trim().split('\n')[0]!)}` : ''}`, fix: `beacon install ${spec.id}` }];
  }
  run(dialect.post, 'post');
  const recorded = hookRecordsOf(log, session);
  if (recorded === 0) {
    return [{ id, status: 'fail', message: `Beacon's ${pre} hook command answered, but no hook event of session ${session} is in ${log}${r.stderr ? `: ${escapeControls(r.stderr.trim().split('\n')[0]!)}` : ''}`, fix: `beacon doctor ${spec.id} (the launcher check), or beacon install ${spec.id}` }];
  }
  return [{ id, status: 'ok', message: `a ${spec.title}-shaped ${pre} went through Beacon's hook command (${ctx.launcher}) and is in ${log}: beacon events --session ${session}` }];
}

function hookRecordsOf(log: string, session: string): number {
  if (inspectLog(log).kind !== 'file') return 0;
  try {
    const l = openLogReadonly(log);
    try {
      return l.list({ sessionId: session }).filter((row) => JSON.parse(row.record).harness?.collection_method === 'hook').length;
    } finally {
      l.close();
    }
  } catch {
    return 0;
  }
}
