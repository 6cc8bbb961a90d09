import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { Check, CheckStatus } from '../doctor';
import type { AgentInstallOptions, AgentUninstallOptions } from '../agent-install';
import type { DoctorContext } from '../doctor';
import type { SettingsFormat } from './settings-edit';
import { otlpHeadersValue } from '../../config/otlp-token';
import type { HookSpec } from './hook-spec';

/**
 * One coding agent Beacon sets up: where its settings live, the keys Beacon owns there, the
 * variables only its environment can set, the traps doctor knows, and a record shaped like its own
 * for `beacon doctor --send-test`. Adding an agent is one module like this and one registry line.
 */

/** How the agent reaches the collector: OTLP/HTTP (its port) or OTLP/gRPC (`grpcPort`, 4317). */
export type Protocol = 'http' | 'grpc';

export const PROTOCOL_NAMES: Record<Protocol, string> = { http: 'OTLP/HTTP', grpc: 'OTLP/gRPC' };

/** The collector an install points the agent at. */
export interface Target {
  protocol: Protocol;
  /** the base URL of that transport: http://127.0.0.1:<port> (OTLP/HTTP) or http://127.0.0.1:<grpcPort> (OTLP/gRPC) */
  base: string;
  port: number;
  /** the collector's otlpToken, when set: the agent must send `Authorization: Bearer <token>` */
  token?: string;
}

export type Scope = 'user' | 'project';

export interface SettingsFile {
  format: SettingsFormat;
  path: string;
}

/** A key Beacon owns in the agent's settings file. */
export interface OwnedKey {
  path: string[];
  value: unknown;
  /** a content switch (prompts, tool details): set by --capture-content */
  content?: boolean;
  /** what goes wrong without it (doctor says it) */
  why?: string;
  /** holds the otlpToken: install shows it masked and makes the settings file 0600 */
  secret?: boolean;
}

/** A variable only the agent's environment can set: printed by install, checked by doctor. */
export interface EnvLine {
  name: string;
  value: string;
  content?: boolean;
  /** carries the otlpToken */
  secret?: boolean;
}

/** The environment line that carries the collector's otlpToken, for agents that read headers from their environment only. */
export function tokenEnvLines(t: Target): EnvLine[] {
  return t.token ? [{ name: 'OTEL_EXPORTER_OTLP_HEADERS', value: otlpHeadersValue(t.token), secret: true }] : [];
}

export interface AgentContext {
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** A doctor finding, before it gets its id (doctor prefixes the agent's name). */
export interface Finding {
  id: string;
  status: CheckStatus;
  message: string;
  fix?: string;
}

/** A record shaped like the agent's own, for `beacon doctor --send-test`. */
export interface TestRecord {
  signal: 'logs' | 'traces';
  encoding: 'protobuf' | 'json';
  /** the OTLP export request, in OTLP/JSON form (hex ids, string int64s) */
  request: object;
}

export interface AgentSpec {
  /** Beacon's name for it: the harness name its records carry */
  id: string;
  title: string;
  /** other spellings `beacon install` accepts */
  aliases: string[];
  /** executables on PATH that mean the agent is on this machine */
  binaries: string[];
  /** OTLP transports the agent can use with Beacon, the installer's choice first */
  protocols: readonly Protocol[];
  /** config directories that mean the agent has been used here */
  configDirs(ctx: AgentContext): string[];
  /** its settings file at a scope; undefined: no such scope (or configured by environment only) */
  settingsFile(scope: Scope, ctx: AgentContext): SettingsFile | undefined;
  keys(target: Target, capture: boolean): OwnedKey[];
  envLines(target: Target, capture: boolean): EnvLine[];
  /** what the agent exports with content capture on (install says it) */
  contentExport: string;
  /** content capture on or off, from the settings values read and the environment */
  contentState(values: (path: string[]) => unknown, env: NodeJS.ProcessEnv): string;
  /** the traps of the facts sheet that apply, judged for this setup */
  traps(ctx: AgentContext, target: Target, values: (path: string[]) => unknown): Finding[];
  testRecord(session: string, now: bigint, env: NodeJS.ProcessEnv): TestRecord;
  /** an agent with no OTLP export Beacon can receive (Cline, Pi): why, and where its usage comes from; install says it instead of content capture */
  noOtlp?: string;
  /** its model calls and prompts reach Beacon only through its own session store (Cline: its hooks carry neither), so the collector follows that store once it is installed */
  storeOnly?: true;
  /** how the agent runs Beacon's hooks (hook-spec.ts): the half of the install that sees every call whatever the telemetry switches say */
  hooks?: HookSpec;
  /** spellings beyond `aliases` that mean it (goose's: model/harness.ts) */
  matches?(name: string): boolean;
  /** a name that is not this agent though it looks like it, and why (said instead of "unknown agent") */
  notThis?(name: string): string | undefined;
  /** why it counts as present beyond its binaries and config directories (an app bundle, Beacon's own plugin of it) */
  presentBy?(ctx: AgentContext): string | undefined;
  /** the steps of an agent whose setup is not settings keys and hook entries (goose: its plugin directory and YAML config) */
  ownSetup?: OwnSetup;
  /**
   * The version Beacon's support of the agent was checked against: doctor shows the installed
   * version beside it. For the npm CLIs, the agents lab's pin (test/agents/package.json, kept equal
   * by a unit test); for goose (a Rust binary outside npm and the lab), the newest goose whose
   * source the fact sheets were checked against.
   */
  testedVersion?: TestedVersion;
}

export interface TestedVersion {
  /** the npm package the agents lab pins; absent: an agent outside npm, whose `<binary> --version` doctor runs */
  package?: string;
  version: string;
  /** said beside the version when the lab does not run the agent: what the version was checked against */
  checkedAgainst?: string;
  /** how to update an agent outside npm */
  update?: string;
}

/**
 * What only one agent's setup needs, run in place of the settings-file machinery by the same
 * commands: install and uninstall say what they did, doctor gives the agent's checks after the
 * collector's, send-test posts its own test records. Loaded when called, so that a doctor run for
 * another agent never loads it.
 */
export interface OwnSetup {
  install(o: AgentInstallOptions): string[];
  uninstall(o: AgentUninstallOptions): string[];
  /** every check of the agent, the collector's and the log's included, in the order a user fixes them */
  doctor(ctx: DoctorContext): Promise<Check[]>;
}

/** Test events are marked by their session id: `beacon events --session beacon-doctor-test-…` finds them (model/send-test.ts: reports leave them out). */
export { TEST_SESSION_PREFIX } from '../../model/send-test';

export function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME || homedir();
}

export function xdgConfig(env: NodeJS.ProcessEnv): string {
  return env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(homeOf(env), '.config');
}

// ---- OTLP/JSON building blocks for test records ----------------------------------------------

export type KV = { key: string; value: Record<string, unknown> };

export function kv(key: string, v: string | number | boolean): KV {
  if (typeof v === 'string') return { key, value: { stringValue: v } };
  if (typeof v === 'boolean') return { key, value: { boolValue: v } };
  return { key, value: Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v } };
}

export function logsRequest(service: string, scope: string, attributes: KV[], now: bigint, extra: { body?: string; resource?: KV[] } = {}): object {
  return {
    resourceLogs: [{
      resource: { attributes: [kv('service.name', service), kv('service.version', 'beacon-doctor-test'), ...(extra.resource ?? [])] },
      scopeLogs: [{
        scope: { name: scope },
        logRecords: [{
          timeUnixNano: String(now), observedTimeUnixNano: String(now), severityNumber: 9, severityText: 'INFO',
          ...(extra.body !== undefined ? { body: { stringValue: extra.body } } : {}),
          attributes,
        }],
      }],
    }],
  };
}

export function spanRequest(service: string, scope: string, name: string, attributes: KV[], now: bigint, ids: { traceId: string; spanId: string }): object {
  return {
    resourceSpans: [{
      resource: { attributes: [kv('service.name', service), kv('service.version', 'beacon-doctor-test')] },
      scopeSpans: [{
        scope: { name: scope },
        spans: [{ ...ids, name, kind: 3, startTimeUnixNano: String(now - 1_000_000n), endTimeUnixNano: String(now), attributes, status: { code: 1 } }],
      }],
    }],
  };
}

/** Judges an endpoint value against the collector: ok, or what is wrong with it. */
export function judgeUrl(value: unknown, want: string): { ok: boolean; message: string } {
  if (typeof value !== 'string' || value === '') return { ok: false, message: 'not set' };
  if (value === want) return { ok: true, message: value };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, message: `"${value}" is not a URL` };
  }
  if (url.port === '4317' && new URL(want).port !== '4317') return { ok: false, message: `${value} is the OTLP/gRPC port: this setup wants OTLP/HTTP on ${new URL(want).port} (or beacon install --protocol grpc)` };
  return { ok: false, message: `${value}, not this collector's ${want}` };
}
