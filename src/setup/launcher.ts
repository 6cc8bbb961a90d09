import { chmodSync, existsSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ensurePrivateDir, readChecked } from '../model/file-checks';
import { shellQuote } from '../model/shell-quote';

/**
 * The POSIX sh launcher goose runs for every hook. Fast path: the payload goes to the running
 * collector over loopback with curl, and the collector records it and prints goose's reply — no
 * Node.js starts while goose waits. Fallback, whenever the fast path does not answer 200 (collector
 * down or slow, another event log, no token, no curl): this install's hook adapter, with the Node.js
 * that ran the install pinned (goose's desktop app runs hooks with a login-shell PATH that may lack
 * `node`). Both get the same idempotency key, so an event sent both ways lands once.
 */
export function renderLauncher(node: string, bundle: string): string {
  return `#!/bin/sh
# Written by \`beacon install goose\`. goose's \`sh -c\` sources it for every hook, the arguments set
# first and the event as JSON on stdin (hooks.json); run as a command with the same arguments, it
# does the same.
# Fast path: curl hands the event to the running Beacon collector, which records it and answers.
# Fallback: this install's hook adapter records it straight into the event log.
node=${shellQuote(node)}
bundle=${shellQuote(bundle)}
${LAUNCHER_BODY}`;
}

/** The launcher after its two pinned paths: the same for every install (see renderLauncher). */
const LAUNCHER_BODY = `log= platform= prev=
for arg do
  case $prev in
    --log) log=$arg ;;
    --platform) platform=$arg ;;
  esac
  prev=$arg
done
# One key per invocation: events without an identity of their own take their id from it, on
# whichever path records them. On Linux this shell's pid, start time (clock ticks since boot) and
# the boot's id name this process uniquely, read without a fork; elsewhere the pid and the second.
hook_key() {
  if read -r stat </proc/$$/stat && read -r boot </proc/sys/kernel/random/boot_id; then
    set -- \${stat##*) }
    BEACON_HOOK_KEY="$$-\${20}-$boot"
  else
    BEACON_HOOK_KEY="$$-$(date +%s)"
  fi
} 2>/dev/null
hook_key
export BEACON_HOOK_KEY
# The policy provider, resolved once here where goose set it (its directory, its PATH): the collector
# has neither, and both paths must run the same file. A name that resolves to nothing is no provider.
case \${BEACON_POLICY_PROVIDER:-} in
  '' | /*) ;;
  */*) BEACON_POLICY_PROVIDER="$PWD/$BEACON_POLICY_PROVIDER"; export BEACON_POLICY_PROVIDER ;;
  *)
    BEACON_POLICY_PROVIDER=$(command -v "$BEACON_POLICY_PROVIDER" 2>/dev/null)
    case $BEACON_POLICY_PROVIDER in /*) ;; *) BEACON_POLICY_PROVIDER= ;; esac
    export BEACON_POLICY_PROVIDER ;;
esac
token="\${log%/*}/hook-token"
# A collector writing this log says where it listens, its pid and the pid's start time, in a file of
# ours beside the log that it removes when it stops (src/config/collector-address.ts). No file, or
# its collector gone — killed, or the pid reused since (the start time differs; pid 0 or 1 is never
# one) — and there is no curl to make, and no port to hand the token to that someone else may have
# taken since. Both checks are the shell's own (\`read\` of /proc, \`kill -0\` without /proc).
collector_alive() {
  case $1 in '' | 0 | 1 | *[!0-9]*) return 1 ;; esac
  if [ -r /proc/$$/stat ]; then
    [ -n "$2" ] && read -r st </proc/$1/stat || return 1
    started=$2
    set -- \${st##*) }
    [ "\${20}" = "$started" ]
  else
    kill -0 "$1"
  fi
} 2>/dev/null
address="$log.collector-url" url= pid= started= port=
if [ "$platform" = goose ] && [ -n "$log" ] && [ -r "$token" ] && [ -O "$address" ] && read -r url pid started 2>/dev/null <"$address"; then
  case $url in
    http://127.0.0.1:*) port=\${url#http://127.0.0.1:} ;;
    http://\\[::1\\]:*) port=\${url#http://\\[::1\\]:} ;;
  esac
  case $port in ''|*[!0-9]*) url= ;; esac
  collector_alive "$pid" "$started" || url=
fi
if [ -n "$url" ] && command -v curl >/dev/null 2>&1; then
  case $prev in
    session-start|prompt-submit|pre-tool|pre-tool-result|post-tool|stop|session-end)
      # Kept for the fallback. $(cat) drops trailing newlines: JSON whitespace, the same on both paths.
      payload=$(cat)
      # The here-document feeds curl without a process for the writer (a pipe would need one).
      if reply=$(curl -sf --noproxy '*' --connect-timeout 1 --max-time 4 \
        -H @"$token" -H 'Content-Type: application/json' -H "X-Beacon-Hook-Key: $BEACON_HOOK_KEY" \
        -H "X-Beacon-Log: $log" -H "X-Beacon-Policy-Provider: \${BEACON_POLICY_PROVIDER:-}" \
        --data-binary @- "$url/v1/hooks/goose/$prev" 2>/dev/null <<BEACON_PAYLOAD
$payload
BEACON_PAYLOAD
      ); then
        # Only what the collector answers (a verdict or nothing) reaches goose.
        case $reply in '' | '{"decision":'*) printf %s "$reply"; exit 0 ;; esac
      fi
      # Not recorded there: the adapter below reads the payload kept, as its standard input.
      exec 0<<BEACON_PAYLOAD
$payload
BEACON_PAYLOAD
      ;;
  esac
fi
# No attempt made (no collector runs): the adapter reads goose's standard input itself.
if [ ! -x "$node" ] || [ ! -r "$bundle" ]; then
  # goose must never be broken by Beacon: answer a blocking hook, say why nothing was recorded.
  echo "beacon-hooks: event not recorded: $node or $bundle is missing (run 'beacon install goose' again)" >&2
  case $prev in pre-tool|stop) printf '{"decision":"allow"}' ;; esac
  exit 0
fi
exec "$node" "$bundle" "$@"
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

