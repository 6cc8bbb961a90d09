import { existsSync, readFileSync } from 'node:fs';
import { getPath, parseSettings } from './agents/settings-edit';
import type { AgentSpec } from './agents/spec';
import type { Check } from './doctor';
import { parseAgentHookCommand } from './hook-command';
import type { HookDoctorContext, ScopeHooks } from './agent-hook-checks';

/**
 * Codex runs a hook from hooks.json only once the user trusted it (openai/codex
 * codex-rs/hooks/src/engine/discovery.rs): the trust is kept in the *user's* config.toml, under
 * `[hooks.state."<hooks.json path>:<event_label>:<group>:<handler>"]` (`hook_key` in
 * codex-rs/hooks/src/lib.rs; the label is the event in snake case), as `trusted_hash` — a sha256 of
 * the hook's normalized definition, so a changed hook is "modified" and untrusted again — and
 * `enabled = false` when the user turned it off (config_rules.rs: only user layers write state).
 * Doctor reads whether each of Beacon's hooks has that record; it does not recompute the hash (its
 * serialization is Codex's internals and changes between versions), so "trusted" here means Codex
 * has trusted a form of it, and Codex itself says when it changed since.
 */
export function codexTrustCheck(spec: AgentSpec, scopes: ScopeHooks[], ctx: HookDoctorContext): Check | undefined {
  const id = `${spec.id}-hook-trust`;
  const config = spec.settingsFile('user', ctx);
  if (!config) return undefined;
  const text = existsSync(config.path) ? readFileSync(config.path, 'utf8') : '';
  const parsed = parseSettings(config.format, text);
  if (parsed.error !== undefined) return undefined;
  const state = getPath(parsed.doc, ['hooks', 'state']);
  const keys: string[] = [];
  for (const s of scopes) {
    if (s.error || !s.exists) continue;
    const doc = parseSettings('json', readFileSync(s.file, 'utf8')).doc;
    for (const event of spec.hooks!.events) {
      const groups = getPath(doc, spec.hooks!.arrayPath(event));
      (Array.isArray(groups) ? groups : []).forEach((group, g) => {
        const hooks = (group as { hooks?: unknown } | null)?.hooks;
        (Array.isArray(hooks) ? hooks : []).forEach((h, i) => {
          if (typeof h?.command === 'string' && parseAgentHookCommand(h.command)) keys.push(`${s.file}:${snake(event)}:${g}:${i}`);
        });
      });
    }
  }
  if (keys.length === 0) return undefined;
  const entry = (k: string) => (typeof state === 'object' && state !== null ? (state as Record<string, { enabled?: unknown; trusted_hash?: unknown } | undefined>)[k] : undefined);
  const disabled = keys.filter((k) => entry(k)?.enabled === false);
  const untrusted = keys.filter((k) => typeof entry(k)?.trusted_hash !== 'string');
  const label = (k: string) => k.split(':').slice(-3, -2)[0];
  if (disabled.length > 0) return { id, status: 'fail', message: `${config.path} turns off ${disabled.length} of Beacon's ${keys.length} hooks ([hooks.state] enabled = false: ${[...new Set(disabled.map(label))].join(', ')}): Codex runs none of them`, fix: 'turn them back on in the Codex TUI (/hooks)' };
  if (untrusted.length > 0) return { id, status: 'warn', message: `${untrusted.length} of Beacon's ${keys.length} hooks are not trusted in ${config.path} (no [hooks.state] trusted_hash: ${[...new Set(untrusted.map(label))].join(', ')}): Codex runs an untrusted hook never, and says nothing`, fix: spec.hooks!.afterInstall };
  return { id, status: 'ok', message: `Codex keeps a trust record for each of Beacon's ${keys.length} hooks in ${config.path} (it asks again for one changed since)` };
}

/** `PreToolUse` → `pre_tool_use` (Codex's hook_event_key_label). */
const snake = (event: string) => event.replace(/(?<=[a-z0-9])([A-Z])/g, '_$1').toLowerCase();
