import { AGENT_SPECS } from './agents/registry';
import { readState } from './install-state';

/**
 * The agents `beacon install` set up whose model calls and prompts reach Beacon only through their
 * own session store (`AgentSpec.storeOnly`: Cline exports only to its vendor's endpoint, and its hooks
 * carry no prompt or tokens): comma-separated, as `importFollow` takes them, or undefined when none.
 * The collector follows these when `importFollow` is unset, so `beacon install <agent>` alone is
 * enough for such an agent too (issue 34). An unreadable install state follows none: the
 * collector's start never fails on it (doctor says what is wrong with the file).
 */
export function storeOnlyAgentsInstalled(env: NodeJS.ProcessEnv): string | undefined {
  let installed: string[];
  try {
    installed = Object.keys(readState(env).agents ?? {}).map((k) => k.replace(/:(user|project)$/, ''));
  } catch {
    return undefined;
  }
  const ids = AGENT_SPECS.filter((s) => s.storeOnly === true && installed.includes(s.id)).map((s) => s.id);
  return ids.length > 0 ? ids.join(',') : undefined;
}
