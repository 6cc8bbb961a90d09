import { installAgent, uninstallAgent, type AgentInstallOptions, type AgentUninstallOptions } from './agent-install';
import type { AgentSpec } from './agents/spec';

/**
 * `beacon install <agent>` / `beacon uninstall <agent>` for any agent: its own steps when its setup
 * is its own (goose: spec.ownSetup), else the settings-file and hook-file machinery (agent-install.ts).
 */
export function installAny(spec: AgentSpec, o: AgentInstallOptions): string[] {
  return spec.ownSetup ? spec.ownSetup.install(o) : installAgent(spec, o);
}

export function uninstallAny(spec: AgentSpec, o: AgentUninstallOptions): string[] {
  return spec.ownSetup ? spec.ownSetup.uninstall(o) : uninstallAgent(spec, o);
}
