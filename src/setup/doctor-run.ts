import { hostPort } from '../config/hosts';
import { detectAgent } from './agent-detect';
import { agentsEventStats } from './agent-hook-events';
import { agentDoctorChecks, agentSummary, agentValues, configuredTarget, grpcListenerCheck } from './agent-doctor';
import { AGENT_SPECS } from './agents/registry';
import type { AgentSpec, Protocol, Target } from './agents/spec';
import { SEND_TEST_WITHHELD, collectorCheck, collectorChecks, logChecks, type Check, type DoctorContext } from './doctor';

/**
 * `beacon doctor [agent]` for any agent: the collector's checks and the agent's own, named or found
 * on this machine. Plain `beacon doctor` checks only the agents it finds (agent-detect.ts): one with
 * a setup of its own (goose) in full, each other one on a line; none found, it says so.
 */
export interface DoctorRun extends DoctorContext {
  /** the config file and launcher Beacon's hook entries name */
  config: string;
  launcher: string;
  /** where an agent's export goes over each protocol */
  targets: Record<Protocol, Target>;
}

const baseOf = (o: DoctorRun) => `http://${hostPort(o.host, o.port)}`;

/** `beacon doctor <agent>`: every check of that agent. */
export async function doctorNamed(spec: AgentSpec, o: DoctorRun): Promise<Check[]> {
  if (spec.ownSetup) return spec.ownSetup.doctor(o);
  const { env, cwd } = o;
  const base = baseOf(o);
  const settings = agentValues(spec, { env, cwd });
  const target = configuredTarget(spec, { env, cwd }, o.targets, settings);
  const agentDoctor = agentDoctorChecks(spec, { env, cwd, target, log: o.log, config: o.config, launcher: o.launcher }, settings);
  const { service: _service, ...ctx } = o;
  const collector = await collectorCheck(base, ctx, o.fetchTimeoutMs ?? 1500);
  const checks = [collector.check, ...(await agentDoctor)];
  // Set up for gRPC: is the collector's gRPC listener where the agent sends?
  if (target.protocol === 'grpc' && collector.health) checks.splice(1, 0, grpcListenerCheck(spec, target, collector.health.grpc));
  if (o.sendTest) checks.push(...(collector.untrusted ? [SEND_TEST_WITHHELD] : await sendTest(spec, o, target)));
  return checks;
}

/** Loaded for --send-test only: its OTLP encoder is protobufjs (45 modules, ~30 ms of every doctor run). */
async function sendTest(spec: AgentSpec, o: DoctorRun, target: Target): Promise<Check[]> {
  const { agentSendTest } = require('./agent-send-test') as typeof import('./agent-send-test');
  return agentSendTest(spec, baseOf(o), o.log, o.env, target, { cwd: o.cwd, config: o.config, launcher: o.launcher });
}

/** Plain `beacon doctor`: the agents found here, and only those. */
export async function doctorFound(o: DoctorRun): Promise<Check[]> {
  const found = AGENT_SPECS.filter((a) => detectAgent(a, o) !== undefined);
  const own = found.filter((a) => a.ownSetup);
  const lines = found.filter((a) => !a.ownSetup);
  // Each line is worked out while the collector's probes run.
  const full = own.length > 0 ? Promise.all(own.map((a) => a.ownSetup!.doctor(o))) : undefined;
  const machine = full ? undefined : collectorChecks(o, baseOf(o));
  // every line's events from one pass over the log (no index holds the agent)
  const stats = agentsEventStats(lines, o.log, BigInt(Date.now()) * 1_000_000n);
  const summaries = lines.map((a) => agentSummary(a, { env: o.env, cwd: o.cwd, targets: o.targets, log: o.log }, stats.get(a.id))).filter((c): c is Check => c !== undefined);
  const checks: Check[] = [];
  if (full) checks.push(...(await full).flat());
  else {
    const m = await machine!;
    // The log's own check; each agent's line says its collection and hook failures (the log-wide ones are goose's full check's).
    checks.push(...m.checks, ...logChecks(o.log).filter((c) => c.id === 'event-log'));
    if (o.sendTest && m.untrusted) checks.push(SEND_TEST_WITHHELD);
    else if (o.sendTest) for (const a of lines) checks.push(...(await sendTest(a, o, configuredTarget(a, o, o.targets, agentValues(a, o)))));
  }
  checks.push(...summaries);
  if (found.length === 0) {
    checks.push({
      id: 'agents', status: 'warn',
      message: `no agent found on this machine (none of ${AGENT_SPECS.flatMap((a) => a.binaries).join(', ')} on PATH, no config directory): no agent to check`,
      fix: `install one, then beacon install <agent>; beacon doctor <${AGENT_SPECS.map((a) => a.id).join('|')}> checks one by name`,
    });
  }
  return checks;
}
