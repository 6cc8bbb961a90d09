import { existsSync, readFileSync, statSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { detectAgent, shellRc } from './agent-detect';
import { getPath, parseSettings } from './agents/settings-edit';
import { PROTOCOL_NAMES, type AgentContext, type AgentSpec, type Protocol, type Target } from './agents/spec';
import type { GrpcHealth } from '../model/health';
import type { Check, CheckStatus } from './doctor';
import { RECENT_WINDOW_NS, agentEventStats, collectionCheck, hookEventChecks, hookFailuresCheck, hooksSince, lastEventCheck, type AgentEventStats, type EventsSince } from './agent-hook-events';
import { versionCheck } from './agent-version';
import { agentHookChecks, type HookDoctorContext } from './agent-hook-checks';

/** The agent's settings as it reads them: project scope over user scope, per key. */
export interface AgentSettings {
  values: (path: string[]) => unknown;
  files: string[];
  errors: Check[];
}

/** Read and parsed once per doctor run: the protocol it is set up for and its checks both read them. */
export function agentValues(spec: AgentSpec, ctx: AgentContext): AgentSettings {
  const docs: { file: string; doc: Record<string, unknown> }[] = [];
  const errors: Check[] = [];
  for (const scope of ['project', 'user'] as const) {
    const sf = spec.settingsFile(scope, ctx);
    if (!sf || !existsSync(sf.path) || docs.some((d) => d.file === sf.path)) continue;
    const p = parseSettings(sf.format, readFileSync(sf.path, 'utf8'));
    if (p.error !== undefined) errors.push({ id: spec.id, status: 'fail', message: `${sf.path} does not parse (${p.error}): ${spec.title} may ignore it`, fix: 'fix the file' });
    else docs.push({ file: sf.path, doc: p.doc });
  }
  return {
    values: (path) => docs.map((d) => getPath(d.doc, path)).find((v) => v !== undefined),
    files: docs.map((d) => d.file),
    errors,
  };
}

/** `beacon doctor <agent>`: set up or not, pointing at this collector, its traps, content, and its last event. */
export function agentChecks(spec: AgentSpec, ctx: AgentContext & { target: Target; log: string }, settings = agentValues(spec, ctx), stats = agentEventStats(spec, ctx.log, nowNs())): Check[] {
  const { values, files, errors } = settings;
  const out: Check[] = [...errors];
  const wanted = spec.keys(ctx.target, false).filter((k) => !k.content);
  const wrong = wanted.filter((k) => !isDeepStrictEqual(values(k.path), k.value));
  let notSetUp = false;
  if (wanted.length > 0) {
    if (wrong.length === 0) out.push({ id: spec.id, status: 'ok', message: `set up in ${files.join(' and ')}: exports to ${ctx.target.base} over ${PROTOCOL_NAMES[ctx.target.protocol]}` });
    else if (wrong.length === wanted.length && wrong.every((k) => values(k.path) === undefined)) {
      out.push({ id: spec.id, status: 'fail', message: `not set up: ${files.length ? `${files.join(' and ')} ${files.length > 1 ? 'have' : 'has'} none of Beacon's keys` : 'it has no settings file yet'}`, fix: `beacon install ${spec.id}` });
      notSetUp = true;
    } else {
      out.push({
        id: spec.id, status: 'fail',
        message: `${files.join(' and ') || 'its settings'}: ${wrong.map((k) => `${k.path.join('.')} is ${k.secret ? (values(k.path) === undefined ? 'unset' : 'without the otlpToken') : JSON.stringify(values(k.path)) ?? 'unset'}, want ${k.secret ? 'the collector\'s otlpToken' : JSON.stringify(k.value)}${k.why ? ` (${k.why})` : ''}`).join('; ')}`,
        fix: `beacon install ${spec.id}${wrong.some((k) => values(k.path) !== undefined) ? ' --force' : ''}`,
      });
    }
  }
  const lines = spec.envLines(ctx.target, false);
  if (lines.length > 0) {
    const bad = lines.filter((l) => ctx.env[l.name] !== l.value);
    const rc = shellRc(ctx.env);
    out.push(bad.length === 0
      ? { id: `${spec.id}-env`, status: 'ok', message: `this shell sets ${lines.map((l) => (l.secret ? `${l.name} (with the otlpToken)` : `${l.name}=${l.value}`)).join(' ')}` }
      : {
          id: `${spec.id}-env`, status: 'fail',
          message: `${spec.title} reads these from its environment only, and this shell has ${bad.map((l) => `${l.name}=${l.secret ? (ctx.env[l.name] === undefined ? '(unset)' : '(without the otlpToken)') : ctx.env[l.name] ?? '(unset)'}`).join(', ')} (${spec.title} started elsewhere may see another environment)`,
          fix: `add to ${rc.file}: ${bad.map((l) => (l.secret ? `the ${l.name} line beacon install ${spec.id} prints` : rc.line(l))).join('; ')}`,
        });
  }
  const version = versionCheck(spec, ctx);
  if (version) out.push(version);
  // The traps judge a setup: with none, they would only repeat "not set up" (as a second failure).
  if (!notSetUp) for (const f of spec.traps(ctx, ctx.target, values)) out.push({ ...f, id: `${spec.id}-${f.id}` });
  out.push({ id: `${spec.id}-content`, status: 'ok', message: spec.contentState(values, ctx.env) });
  if ('id' in stats) out.push(stats);
  else {
    out.push(lastEventCheck(spec, stats, eventsSince(files, nowNs())));
    for (const c of [collectionCheck(spec, stats), hookFailuresCheck(spec, stats)]) if (c) out.push(c);
  }
  return out;
}

/**
 * Since when events must have arrived for "events arrive": the newest change of the settings files
 * doctor read (install's last write, or a later edit: either way a session started since then reads
 * them). The install record keeps no time; an agent set up by environment only gets the last 7 days.
 */
export function eventsSince(files: string[], now: bigint): EventsSince {
  let newest = 0;
  let file = '';
  for (const f of files) {
    const m = statSync(f, { throwIfNoEntry: false })?.mtimeMs ?? 0;
    if (m > newest) [newest, file] = [m, f];
  }
  if (newest === 0) return { ns: now - RECENT_WINDOW_NS, what: 'in the last 7 days' };
  return { ns: BigInt(Math.floor(newest)) * 1_000_000n, what: `since the setup (${file} last changed ${new Date(newest).toISOString()})` };
}

const NO_EVENTS: AgentEventStats = { last: null, n: 0n, testLast: null, testN: 0n, hookLast: null, hookN: 0n, hookTestN: 0n, failN: 0n, failLast: null, otlpLast: null };
const nowNs = () => BigInt(Date.now()) * 1_000_000n;

/**
 * `beacon doctor <agent>`: the OTLP half (agentChecks), then the hook half — registered, the
 * agent's switches and trust, the launcher (its probe starts first: a Node.js start, the longest
 * wait), the newest hook event and the hook failures — from one pass over the agent's events.
 */
export async function agentDoctorChecks(spec: AgentSpec, ctx: HookDoctorContext & { target: Target }, settings = agentValues(spec, ctx)): Promise<Check[]> {
  const now = nowNs();
  const hooks = agentHookChecks(spec, ctx);
  const stats: AgentEventStats | Check = agentEventStats(spec, ctx.log, now);
  const checks = agentChecks(spec, ctx, settings, stats);
  const half = await hooks;
  checks.push(...half.checks);
  // No log yet (or one that cannot be read: said above): no hook event either, and the reasons still hold.
  if (spec.hooks) checks.push(...hookEventChecks(spec, 'id' in stats ? NO_EVENTS : stats, now, half.reasons, hooksSince(half.installedAtMs, now)));
  return checks;
}

/**
 * The protocol the agent's settings are set up for: of the ones it can use, the one whose keys
 * (endpoint, protocol) its settings hold most of; HTTP when none is set (install's default).
 */
export function configuredTarget(spec: AgentSpec, ctx: AgentContext, targets: Record<Protocol, Target>, { values } = agentValues(spec, ctx)): Target {
  let best = targets[spec.protocols[0] ?? 'http'];
  let bestScore = 0;
  for (const p of spec.protocols) {
    const score = spec.keys(targets[p], false).filter((k) => !k.content && isDeepStrictEqual(values(k.path), k.value)).length
      + spec.envLines(targets[p], false).filter((l) => ctx.env[l.name] === l.value).length;
    if (score > bestScore) [best, bestScore] = [targets[p], score];
  }
  return best;
}

/** An agent set up for OTLP/gRPC: the collector's gRPC listener, from its /health (absent: a collector without gRPC). */
export function grpcListenerCheck(spec: AgentSpec, target: Target, grpc: Partial<GrpcHealth> | undefined): Check {
  const id = `${spec.id}-grpc`;
  if (!grpc || typeof grpc.state !== 'string') return { id, status: 'fail', message: `${spec.title} exports over OTLP/gRPC to ${target.base}, and the collector reports no OTLP/gRPC (an older Beacon, or not running)`, fix: `restart the collector (beacon service install), or beacon install ${spec.id} --protocol http --force` };
  const fixPort = `run the collector with --grpc-port ${target.port} (config grpcPort), or beacon install ${spec.id} --protocol http --force`;
  if (grpc.state === 'off') return { id, status: 'fail', message: `${spec.title} exports over OTLP/gRPC to ${target.base}, but the collector's OTLP/gRPC is off (grpcPort 0)`, fix: fixPort };
  // The collector tries to listen again every few seconds by itself: freeing the port is enough then.
  if (grpc.state === 'down') return { id, status: 'fail', message: `${spec.title} exports over OTLP/gRPC to ${target.base}, but the collector's OTLP/gRPC is down: ${grpc.error ?? 'it could not listen'}${grpc.retrying ? ' (it tries again every few seconds)' : ''}`, fix: grpc.retrying ? `free port ${target.port}: the collector then listens on it by itself` : `free port ${target.port}, then restart the collector` };
  const port = Number(String(grpc.address ?? '').slice(String(grpc.address ?? '').lastIndexOf(':') + 1));
  if (port !== target.port) return { id, status: 'fail', message: `${spec.title} exports over OTLP/gRPC to ${target.base}, but the collector's OTLP/gRPC listens on ${grpc.address}`, fix: fixPort };
  return { id, status: 'ok', message: `the collector's OTLP/gRPC listens on ${grpc.address} (${grpc.exports ?? 0} gRPC exports since it started)` };
}

/** The no-argument doctor's line for an agent found on this machine. */
export function agentSummary(spec: AgentSpec, ctx: AgentContext & { targets: Record<Protocol, Target>; log: string }, stats?: AgentEventStats | Check): Check | undefined {
  const found = detectAgent(spec, ctx);
  if (!found) return undefined;
  const settings = agentValues(spec, ctx);
  const checks = agentChecks(spec, { ...ctx, target: configuredTarget(spec, ctx, ctx.targets, settings) }, settings, stats);
  const rank: Record<CheckStatus, number> = { ok: 0, warn: 1, fail: 2 };
  const worst = checks.reduce((a, c) => (rank[c.status] > rank[a.status] ? c : a), checks[0]!);
  // An agent with no OTLP keys to check (Cline: hooks only) has no setup line of its own here.
  const main = checks.find((c) => c.id === spec.id || c.id === `${spec.id}-env`)
    ?? { id: spec.id, status: 'ok', message: `no OTLP export to set up: its events come from Beacon's hooks (beacon doctor ${spec.id} checks them)` };
  const events = checks.find((c) => c.id === `${spec.id}-events`)!;
  const version = checks.find((c) => c.id === `${spec.id}-version`);
  // Found but never set up is a note, not a failure: the user may not want Beacon to record it
  // (an agent with settings keys and environment lines, opencode, fails both when never set up).
  const notSetUp = main.status === 'fail' && /not set up|reads these from its environment only/.test(main.message) && !checks.some((c) => c !== main && c.id !== `${spec.id}-env` && c.status === 'fail');
  return {
    id: `agent:${spec.id}`,
    status: notSetUp ? 'warn' : worst.status,
    message: `${spec.title} (${found}${version ? `; version ${version.message}` : ''}): ${main.message}; ${events.message}${worst !== main && worst !== events && worst !== version && worst.status !== 'ok' ? `; ${worst.message}` : ''}`,
    fix: worst.status === 'ok' ? undefined : `beacon doctor ${spec.id}${notSetUp ? `, or beacon install ${spec.id}` : ''}`,
  };
}
