import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { isExecutable } from '../../model/executables';
import { isGooseName } from '../../model/harness';
import { gooseDesktopApps, gooseLocations, hooksFile, pluginRoot } from '../goose-paths';
import { kv, spanRequest, tokenEnvLines, type AgentSpec } from './spec';

const GOOSE_AI = new Set(['gooseai', 'goose-ai', 'goose.ai']);

/**
 * goose: set up unlike the others, so its steps are its own (ownSetup, loaded when run): Beacon's
 * hooks plugin (`~/.agents/plugins/beacon-endpoint/`, a directory Beacon writes whole) and — only with
 * --configure-otlp — `otel_exporter_otlp_endpoint`/`_timeout` in its YAML config.yaml, which
 * otherwise stays the user's. It exports over OTLP/HTTP only and reads OTLP headers (the otlpToken)
 * from its environment only. Present: `goose` on PATH, its desktop app, its config directory, or
 * Beacon's plugin for it.
 */
export const goose: AgentSpec = {
  id: 'goose',
  title: 'goose',
  aliases: [],
  matches: isGooseName,
  notThis: (name) => (GOOSE_AI.has(name.trim().toLowerCase())
    ? `"${name}" is GooseAI, an LLM inference service from another company, not the goose agent; Beacon installs nothing for it. Did you mean "goose"?`
    : undefined),
  binaries: ['goose'],
  protocols: ['http'],
  configDirs: ({ env, cwd }) => [dirname(gooseLocations(env, cwd).configYaml)],
  presentBy({ env, cwd }) {
    const app = gooseDesktopApps(env.HOME ?? '').find(isExecutable);
    if (app) return `its desktop app ${app}`;
    const loc = gooseLocations(env, cwd);
    const agents = [loc.projectAgentsDir, loc.userAgentsDir].find((d) => existsSync(hooksFile(d)));
    return agents ? `Beacon's plugin for it, ${pluginRoot(agents)}` : undefined;
  },
  // config.yaml is YAML and edited only when asked: its keys are ownSetup's, not the settings machinery's.
  settingsFile: () => undefined,
  keys: () => [],
  envLines: (t) => tokenEnvLines(t),
  contentExport: 'reasoning, tool arguments and results (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true in its environment)',
  contentState: (_values, env) => ((env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT ?? '').trim().toLowerCase() === 'true' ? 'content capture on' : "content capture off (goose's default)"),
  traps: () => [],
  testRecord: (session, now) => ({
    signal: 'traces', encoding: 'json',
    request: spanRequest('goose', 'goose', 'execute_tool', [
      kv('gen_ai.operation.name', 'execute_tool'), kv('gen_ai.tool.name', 'beacon_doctor_test'), kv('gen_ai.tool.call.id', `${session}-otlp`), kv('session.id', session), kv('gen_ai.conversation.id', session),
    ], now, { traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex') }),
  }),
  // goose is no npm package and the agents lab runs none: its wire was checked against goose's source
  // up to 1.51.x (shared/docs/goose-wire-delta-2.md), so any 1.51 release is the tested one.
  testedVersion: { version: '1.51', checkedAgainst: "the newest goose whose source code Beacon's goose support was checked against (the agents lab runs no goose)", update: 'goose update' },
  ownSetup: {
    install: (o) => (require('../goose-install') as typeof import('../goose-install')).installGooseAgent(o),
    uninstall: (o) => (require('../goose-install') as typeof import('../goose-install')).uninstallGooseAgent(o),
    doctor: (ctx) => (require('../goose-doctor') as typeof import('../goose-doctor')).gooseDoctor(ctx),
  },
};
