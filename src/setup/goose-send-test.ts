import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { openLogReadonly } from './read-log';
import { inspectLog } from '../store/log/log-file';
import type { Check, DoctorContext } from './doctor';
import { gooseLocations, hooksFile } from './goose-paths';
import { commandsIn, hookCommandLine, parseHookCommand } from './goose-hooks-file';
import { TEST_SESSION_PREFIX } from './agents/spec';
import { hooksLauncherPath } from '../config/paths';
import { escapeControls } from '../model/terminal';
import { resolve } from 'node:path';


const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** One goose-shaped `execute_tool` span (a tool call: no tokens, nothing for token-usage to count). */
function testSpan(session: string, callId: string): object {
  const now = BigInt(Date.now()) * 1_000_000n;
  const kv = (key: string, v: string) => ({ key, value: { stringValue: v } });
  return {
    resourceSpans: [{
      resource: { attributes: [kv('service.name', 'goose')] },
      scopeSpans: [{
        scope: { name: 'goose' },
        spans: [{
          traceId: hex(16), spanId: hex(8), name: 'execute_tool', kind: 1,
          startTimeUnixNano: String(now - 1_000_000n), endTimeUnixNano: String(now),
          attributes: [kv('gen_ai.operation.name', 'execute_tool'), kv('gen_ai.tool.name', 'beacon_doctor_test'), kv('gen_ai.tool.call.id', callId), kv('session.id', session), kv('gen_ai.conversation.id', session)],
          status: { code: 1 },
        }],
      }],
    }],
  };
}

/**
 * `beacon doctor --send-test`: the whole path, for real. A span posted to the collector as goose
 * would, a PreToolUse payload through the installed hook command as goose runs it (`sh -c`), then
 * both looked up in the log doctor reads. They stay there, marked by their session id.
 */
export async function sendTestChecks(ctx: DoctorContext, base: string): Promise<Check[]> {
  const session = `${TEST_SESSION_PREFIX}${new Date().toISOString().replace(/[-:.]/g, '').slice(0, 15)}-${hex(3)}`;
  const out: Check[] = [];

  let spanSent = false;
  try {
    const r = await fetch(`${base}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', ...(ctx.otlpToken ? { authorization: `Bearer ${ctx.otlpToken}` } : {}) }, body: JSON.stringify(testSpan(session, `${session}-otlp`)), signal: AbortSignal.timeout(10_000) });
    spanSent = r.ok;
    if (!r.ok) out.push({ id: 'send-test-otlp', status: 'fail', message: `POST ${base}/v1/traces answered ${r.status}: ${(await r.text()).slice(0, 200)}`, fix: 'see the collector check above' });
  } catch (e) {
    out.push({ id: 'send-test-otlp', status: 'fail', message: `POST ${base}/v1/traces failed: ${(e as Error).message}`, fix: 'start the collector (see above)' });
  }

  const loc = gooseLocations(ctx.env, ctx.cwd);
  const file = [hooksFile(loc.projectAgentsDir), hooksFile(loc.userAgentsDir)].find((f) => existsSync(f));
  const installed = file ? commandsIn(readFileSync(file, 'utf8')).map(parseHookCommand).find((c) => c?.sub === 'pre-tool') : undefined;
  const launcher = hooksLauncherPath(ctx.env);
  // Beacon's own command for the installed log and config, never the file's text: a project's hooks
  // file runs what it names (issue 29 item 1), and doctor runs nothing a project names.
  const command = (sub: string) => hookCommandLine(launcher, installed!.log, installed!.config, sub);
  let hookRan = false;
  if (!installed) {
    out.push({ id: 'send-test-hook', status: 'fail', message: 'no installed pre-tool hook command to run', fix: 'beacon install goose' });
  } else if (resolve(ctx.cwd, installed.launcher) !== launcher) {
    out.push({ id: 'send-test-hook', status: 'fail', message: `not run: ${file} runs ${escapeControls(installed.launcher)}, not Beacon's launcher ${launcher} (see plugin-command above)` });
  } else {
    const payload = { event: 'PreToolUse', session_id: session, tool_call_id: `${session}-hook`, tool_name: 'beacon_doctor_test', tool_input: {}, cwd: ctx.cwd };
    const run = (cmd: string, body: object) => spawnSync('sh', ['-c', cmd], { input: JSON.stringify(body), encoding: 'utf8', timeout: 15_000, env: { PATH: '/usr/bin:/bin', HOME: ctx.env.HOME ?? '' } });
    const r = run(command('pre-tool'), payload);
    hookRan = r.status === 0 && r.stdout.trim() === '{"decision":"allow"}';
    // the test call is finished as goose would finish it, so sessions and the dashboard do not keep
    // an unfinished call for every --send-test (issue 24 item 7)
    if (hookRan) run(command('post-tool'), { ...payload, event: 'PostToolUse', tool_response: { status: 'ok' } });
    if (!hookRan) out.push({ id: 'send-test-hook', status: 'fail', message: `the hook command exited ${r.status ?? r.signal} and answered "${(r.stdout ?? '').trim().slice(0, 80)}"${r.stderr ? `: ${r.stderr.trim().split('\n')[0]}` : ''}`, fix: 'beacon install goose' });
  }

  const methods = new Set<string>();
  if (inspectLog(ctx.log).kind === 'file') {
    try {
      const log = openLogReadonly(ctx.log);
      try {
        for (const row of log.list({ sessionId: session })) methods.add(JSON.parse(row.record).harness?.collection_method);
      } finally {
        log.close();
      }
    } catch {
      // reported below as not found
    }
  }
  if (spanSent) {
    out.push(methods.has('otlp')
      ? { id: 'send-test-otlp', status: 'ok', message: `a test span reached ${ctx.log} through the collector at ${base}` }
      : { id: 'send-test-otlp', status: 'fail', message: `the collector accepted a test span but it is not in ${ctx.log}: the collector writes another log`, fix: 'run the collector and the hooks on one log (--log / BEACON_ENDPOINT_LOG)' });
  }
  if (hookRan) {
    out.push(methods.has('hook')
      ? { id: 'send-test-hook', status: 'ok', message: `a test hook event reached ${ctx.log} through ${launcher}` }
      : { id: 'send-test-hook', status: 'fail', message: `the hook answered but its event is not in ${ctx.log}: the hooks write another log`, fix: 'beacon install goose --log <the collector\'s log>' });
  }
  out.push({ id: 'send-test', status: 'ok', message: `test events are marked by their session: beacon events --session ${session}` });
  return out;
}
