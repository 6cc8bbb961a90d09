import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { isGooseName } from '../model/harness';
import { BeaconError } from '../model/errors';
import { configureOtlp, otlpSnippet, readGooseConfig } from './goose-config';
import { gooseLocations, hooksFile } from './goose-paths';
import { REGISTRATIONS, installHooksFile, renderHooksJson, shellQuote, uninstallHooksFile } from './hooks-file';

const GOOSE_AI = new Set(['gooseai', 'goose-ai', 'goose.ai']);

/** Install targets are named in Beacon's spellings; GooseAI (an inference service) is refused by name. */
export function resolveHarness(name: string | undefined): 'goose' {
  if (name === undefined) throw new BeaconError('usage', 'which harness? supported: goose');
  if (isGooseName(name)) return 'goose';
  if (GOOSE_AI.has(name.trim().toLowerCase())) {
    throw new BeaconError('usage', `"${name}" is GooseAI, an LLM inference service from another company, not the goose agent; Beacon installs nothing for it. Did you mean "goose"?`);
  }
  throw new BeaconError('usage', `unsupported harness "${name}" (supported: goose)`);
}

export interface InstallContext {
  scope: 'user' | 'project';
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** event log and config paths the hook commands carry */
  log: string;
  config: string;
  /** launcher goose runs, and what it runs */
  launcher: string;
  node: string;
  hooksBundle: string;
  /** the collector's base URL, for goose's otel_exporter_otlp_endpoint */
  endpoint: string;
}

/** A POSIX sh launcher pinning this install's Node.js and bundle: goose's PATH (desktop app) may have neither. */
export function renderLauncher(node: string, bundle: string): string {
  return `#!/bin/sh\n# Written by \`beacon install goose\`; goose runs it for every hook. It starts this install's hook\n# adapter with the Node.js that ran the install, whatever PATH goose was started with.\nexec ${shellQuote(node)} ${shellQuote(bundle)} "$@"\n`;
}

function writeLauncher(path: string, content: string): boolean {
  if (existsSync(path) && readFileSync(path, 'utf8') === content) return false;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, content, { mode: 0o755 });
  chmodSync(path, 0o755);
  return true;
}

/** `beacon install goose`: both collection paths in one step; returns what it did, line by line. */
export function installGoose(ctx: InstallContext, configure: boolean): string[] {
  const loc = gooseLocations(ctx.env, ctx.cwd);
  const agents = ctx.scope === 'user' ? loc.userAgentsDir : loc.projectAgentsDir;
  const report: string[] = [];
  const launcherChanged = writeLauncher(ctx.launcher, renderLauncher(ctx.node, ctx.hooksBundle));
  report.push(`${launcherChanged ? 'wrote' : 'kept'} the hook launcher ${ctx.launcher}`);
  const file = hooksFile(agents);
  const r = installHooksFile(file, renderHooksJson(ctx.launcher, ctx.log, ctx.config));
  report.push(`${r.changed ? 'wrote' : 'already installed:'} ${file} (${REGISTRATIONS.length} hook registrations, ${ctx.scope} scope)`);
  if (ctx.scope === 'project') report.push('project scope replaces a user-scope beacon-endpoint plugin for goose sessions started in this directory');

  if (configure) {
    const c = configureOtlp(loc.configYaml, ctx.endpoint);
    report.push(c.changed ? `set the OTLP endpoint in ${loc.configYaml}${c.backup ? ` (backup: ${c.backup})` : ''}` : `${loc.configYaml} already exports to ${ctx.endpoint}`);
  } else {
    const view = readGooseConfig(loc.configYaml);
    if (view.endpoint === ctx.endpoint) report.push(`${loc.configYaml} already exports to ${ctx.endpoint}`);
    else report.push(`goose's config stays yours: add these lines to ${loc.configYaml} (or rerun with --configure-otlp):\n\n${otlpSnippet(ctx.endpoint)}`);
  }
  report.push('restart goose (or start a new session): plugins are discovered when a session begins. Then run `beacon doctor`.');
  return report;
}

export function uninstallGoose(ctx: Pick<InstallContext, 'scope' | 'env' | 'cwd'>): string[] {
  const loc = gooseLocations(ctx.env, ctx.cwd);
  const agents = ctx.scope === 'user' ? loc.userAgentsDir : loc.projectAgentsDir;
  const r = uninstallHooksFile(hooksFile(agents), agents);
  return [r.removed ? `removed ${r.file}` : `nothing to remove: ${r.file} does not exist`, 'goose config.yaml left as it is (remove otel_exporter_otlp_endpoint yourself to stop the OTLP export).'];
}
