import { parseArgs } from 'node:util';
import { resolveEventLogPath } from '../config/paths';
import { callEventId, freshEventId } from '../model/event-id';
import type { Severity } from '../model/record';
import { nowUnixNano } from '../model/time';
import { sanitizeRecord } from '../redact/sanitize';
import { EventLog } from '../store/event-log';
import { toRow, type EventRow } from '../store/row';
import { hookEvents, policyCandidate, type HookEvent } from './events';
import { BLOCKING, SUBCOMMANDS, parsePayload, type Subcommand } from './payload';
import { consultPolicy, policyProvider, type PolicyVerdict } from './policy';

export interface HookIO {
  stdin: () => Promise<string>;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  env: NodeJS.ProcessEnv;
}

const ALLOW = '{"decision":"allow"}';
const SEVERITIES = new Set(['info', 'low', 'medium', 'high', 'critical']);
/** A hook holds goose's turn: wait for the collector's lock at most this long, then give up (allow). */
const BUSY_TIMEOUT_MS = 3000;

/**
 * `beacon-hooks --platform goose --log PATH --config PATH [--cli PATH] <subcommand>`, event JSON on stdin.
 * Never breaks goose: whatever goes wrong, blocking hooks still answer allow and the exit code is 0;
 * the error goes to stderr.
 */
export async function runHook(argv: string[], io: HookIO): Promise<number> {
  let sub: Subcommand | undefined;
  let verdict: PolicyVerdict = { decision: 'allow' };
  let platformKnown = false;
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { platform: { type: 'string' }, log: { type: 'string' }, config: { type: 'string' }, cli: { type: 'string' } },
      allowPositionals: true,
      strict: true,
    });
    // Another agent's hooks speak another protocol: on Qwen Code, for one, an "allow" disarms the
    // user's own permission prompts. Say nothing to a platform we do not speak.
    if ((values.platform ?? 'goose') !== 'goose') throw new Error(`unsupported platform "${values.platform}" (this adapter speaks goose); nothing recorded, no verdict given`);
    platformKnown = true;
    const name = positionals[0];
    if (!SUBCOMMANDS.includes(name as Subcommand)) throw new Error(`unknown subcommand "${name ?? ''}" (expected ${SUBCOMMANDS.join(', ')})`);
    sub = name as Subcommand;

    const payload = parsePayload(await io.stdin());
    const events = hookEvents(sub, payload, { now: nowUnixNano(), env: io.env });

    const provider = sub === 'pre-tool' && events.length > 0 ? policyProvider(io.env) : undefined;
    if (provider) {
      const candidate = policyCandidate(payload, { now: nowUnixNano(), env: io.env }) ?? events[0]!;
      const observed = sanitizeRecord(structuredClone(candidate.record), candidate.contentField).record;
      verdict = await consultPolicy(provider, { version: '1', phase: 'pre-tool', platform: 'goose', event: observed });
      if (verdict.decision === 'allow' && verdict.failure) io.stderr(`beacon-hooks: policy provider ignored (fail-open): ${verdict.failure}\n`);
      if (verdict.decision === 'deny') events.push(denialEvent(events[0]!, verdict));
    }

    if (events.length > 0) {
      const rows: EventRow[] = events.map((ev) => toRow(ev, sanitizeRecord(ev.record, ev.contentField).json));
      const log = EventLog.open(resolveEventLogPath(values.log, io.env), { busyTimeoutMs: BUSY_TIMEOUT_MS, hookConnection: true });
      try {
        log.append(rows);
      } finally {
        log.close();
      }
    }
  } catch (e) {
    io.stderr(`beacon-hooks: ${(e as Error).message}\n`);
  }
  if (sub && BLOCKING.has(sub)) {
    io.stdout(verdict.decision === 'deny' && sub === 'pre-tool' ? JSON.stringify({ decision: 'block', reason: verdict.reason }) : ALLOW);
  } else if (!sub && platformKnown) {
    // An unparseable goose command line cannot say whether goose is waiting for a verdict: allow is safe on every event.
    io.stdout(ALLOW);
  }
  return 0;
}

/** The provider's deny, recorded beside the observation it judged. */
function denialEvent(observed: HookEvent, v: Extract<PolicyVerdict, { decision: 'deny' }>): HookEvent {
  const record = structuredClone(observed.record);
  // The call's own id: goose's PreToolUseResult reports the same denial, and the two are one event.
  const session = record.session?.id;
  const callId = record.gen_ai?.tool?.call?.id;
  const id = session !== undefined && callId ? callEventId(session, 'approval.denied', callId) : freshEventId();
  record.event = { ...record.event, action: 'approval.denied', category: 'approval', id, fidelity: 'observed' };
  record.severity = (v.severity && SEVERITIES.has(v.severity) ? v.severity : 'high') as Severity;
  record.approval = { required: true, decision: 'deny', reason: v.reason };
  record.policy = { ...(v.ruleId ? { id: v.ruleId } : {}), decision: 'deny', enforcement: 'enforce', reason: v.reason };
  record.message = 'Tool call denied by policy provider';
  delete record.file?.diff;
  return { record, timeUnixNano: observed.timeUnixNano, contentField: observed.contentField };
}
