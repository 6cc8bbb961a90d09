import { chmodSync, existsSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ensurePrivateDir, readChecked } from '../model/file-checks';
import { shellQuote } from '../model/shell-quote';
import { FAST_ATTEMPT, HOOK_KEY, NEUTRAL_FALLBACK, POLICY_PROVIDER, READ_ARGUMENTS } from './hook-fast-path';

/**
 * The POSIX sh launcher every hook command Beacon writes sources, once the command has checked it
 * (launcher-guard.ts). Fast path: the payload goes to the running collector over loopback with curl,
 * and the collector records it and prints the agent's reply — no Node.js starts while the agent
 * waits (hook-fast-path.ts). Fallback, whenever the fast path does not answer 200 (collector down
 * or slow, another event log, no token, no curl): this install's hook adapter, with the Node.js
 * that ran the install pinned (goose's desktop app runs hooks with a login-shell PATH that may lack
 * `node`). Both get the same idempotency key, so an event sent both ways lands once.
 */
export function renderLauncher(node: string, bundle: string): string {
  return `#!/bin/sh
# Written by \`beacon install <agent>\`. The agent's hook command sources it once it has checked
# it, the arguments set, the payload it read in $payload; run as a command with the same arguments
# (the event as JSON on stdin), it records the event through its hook adapter.
# Fast path: curl hands the event to the running Beacon collector, which records it and answers.
# Fallback: this install's hook adapter records it straight into the event log.
node=${shellQuote(node)}
bundle=${shellQuote(bundle)}
${LAUNCHER_BODY}`;
}

/**
 * The launcher after its two pinned paths: the same for every install (see renderLauncher). The
 * fast path runs only when the command that sourced it kept the payload (\`beacon_kept\`) and checked
 * the collector's address file and the token as it checks the launcher (\`beacon_fast\`); run on its
 * own (an earlier install's command, doctor's probe), it goes straight to the hook adapter.
 */
const LAUNCHER_BODY = `${READ_ARGUMENTS}
${HOOK_KEY}
${POLICY_PROVIDER}
if [ "\${beacon_kept-}" = 1 ]; then
  [ "\${beacon_fast-}" = 1 ] && {
${FAST_ATTEMPT}
  }
  # Not recorded there: the adapter reads the payload kept, as its standard input. $(cat) dropped
  # trailing newlines: JSON whitespace, the same on both paths.
  exec 0<<BEACON_PAYLOAD
$payload
BEACON_PAYLOAD
fi
if [ ! -x "$node" ] || [ ! -r "$bundle" ]; then
  # The agent must never be broken by Beacon: its neutral answer (goose's blocking hooks want one),
  # and why nothing was recorded.
  printf 'beacon-hooks: event not recorded: %s or %s is missing (run '"'"'beacon install %s'"'"' again)\\n' "$node" "$bundle" "$platform" >&2
  ${NEUTRAL_FALLBACK}
  exit 0
fi
# Not exec: the status is 0 whatever becomes of Node.js (killed, out of memory): Copilot CLI denies
# the tool on exit 1, Gemini CLI on any exit >= 2, and every deny Beacon gives is a reply on stdout.
"$node" "$bundle" "$@"
exit 0
`;

/**
 * Replaced whole (a new file renamed over the old): goose may source the launcher at any moment, and
 * a half-written one would be an empty hook (an event lost) or a syntax error (exit 2, a deny).
 */
export function writeLauncher(path: string, content: string): boolean {
  ensurePrivateDir(dirname(path)); // another user's (or a 0777) bin/ could swap the launcher: refused (issue 22 item 1)
  if (existsSync(path) && readChecked(path, 1 << 20).toString('utf8') === content) return false;
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, content, { mode: 0o755, flag: 'wx' });
  chmodSync(tmp, 0o755);
  renameSync(tmp, path);
  return true;
}

