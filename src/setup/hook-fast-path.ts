import { shellQuote } from '../model/shell-quote';
import { HOOK_ADAPTERS } from '../sources/hook-registry';

/**
 * The hook fast path, as the launcher's POSIX sh text (launcher.ts): the payload goes to the running
 * collector's `POST /v1/hooks/<platform>/<event>` with curl, and what the collector answers is all
 * the agent reads. The agent waits for a blocking hook, so this is what it costs beside a bare
 * `sh -c 'curl …'` (bench/hooks.ts): besides curl, only the `cat` that keeps the payload for the
 * fallback and the guard's one `find` start, and the `find` runs while `cat` reads
 * (launcher-guard.ts).
 *
 * What it trusts was checked by the hook command before it sourced the launcher (issue 29 item 2):
 * the log's directory, the hook token and the collector's address file are the user's, no link, and
 * writable by neither group nor others, the same checks as the launcher's own. The mode matters for
 * them as much as for the launcher: the address file says where the token and the payload go, and a
 * file of the user's made writable by others (a `chmod -R`) would let another user point it at a
 * port of theirs and answer the agent ("allow" skips Claude's and Copilot's own approval prompt).
 * The command says so with `beacon_fast=1` and hands over the payload it read (`beacon_kept=1`).
 */

/** `--log`, `--platform` and the event (the last argument, `$prev`) from the arguments the command set. */
export const READ_ARGUMENTS = `log= platform= prev=
for arg do
  case $prev in
    --log) log=$arg ;;
    --platform) platform=$arg ;;
  esac
  prev=$arg
done`;

/**
 * One key per invocation: events without an identity of their own take their id from it, on
 * whichever path records them. On Linux this shell's pid, start time (clock ticks since boot) and
 * the boot's id name this process uniquely, read without a fork; elsewhere the pid and the second.
 */
export const HOOK_KEY = `hook_key() {
  if read -r stat </proc/$$/stat && read -r boot </proc/sys/kernel/random/boot_id; then
    set -- \${stat##*) }
    BEACON_HOOK_KEY="$$-\${20}-$boot"
  else
    BEACON_HOOK_KEY="$$-$(date +%s)"
  fi
} 2>/dev/null
hook_key
export BEACON_HOOK_KEY`;

/**
 * The policy provider, resolved once here where the agent set it (its directory, its PATH): the
 * collector has neither, and both paths must run the same file. A name that resolves to nothing is
 * no provider.
 */
export const POLICY_PROVIDER = `case \${BEACON_POLICY_PROVIDER:-} in
  '' | /*) ;;
  */*) BEACON_POLICY_PROVIDER="$PWD/$BEACON_POLICY_PROVIDER"; export BEACON_POLICY_PROVIDER ;;
  *)
    BEACON_POLICY_PROVIDER=$(command -v "$BEACON_POLICY_PROVIDER" 2>/dev/null)
    case $BEACON_POLICY_PROVIDER in /*) ;; *) BEACON_POLICY_PROVIDER= ;; esac
    export BEACON_POLICY_PROVIDER ;;
esac`;

/**
 * A collector writing this log says where it listens, its pid and the pid's start time, in a file
 * beside the log that it removes when it stops (src/config/collector-address.ts). Its collector gone
 * — killed, or the pid reused since (the start time differs; pid 0 or 1 is never one) — and there is
 * no curl to make, and no port to hand the token to that someone else may have taken since. Both
 * checks are the shell's own (`read` of /proc, `kill -0` without /proc).
 */
const COLLECTOR_ALIVE = `collector_alive() {
  case $1 in '' | 0 | 1 | *[!0-9]*) return 1 ;; esac
  if read -r st </proc/$$/stat; then
    [ -n "$2" ] && read -r st </proc/$1/stat || return 1
    started=$2
    set -- \${st##*) }
    [ "\${20}" = "$started" ]
  else
    kill -0 "$1"
  fi
} 2>/dev/null`;

/** The platforms the collector's route answers, the only ones that reach a URL. */
const PLATFORMS = HOOK_ADAPTERS.map((a) => a.platform);
if (PLATFORMS.some((p) => !/^[a-z][a-z-]*$/.test(p))) throw new Error('a hook platform name the fast path cannot put in a URL');

/** The adapters whose replies start narrower than `{`: that reply passed on, any other ignored (the fallback answers). */
const REPLY_SHAPES = HOOK_ADAPTERS.filter((a) => a.replyStart !== undefined)
  .map((a) => `    ${a.platform}:${shellQuote(a.replyStart!)}*) printf %s "$reply"; exit 0 ;;\n    ${a.platform}:*) ;;\n`).join('');

/**
 * The fallback's answer when the hook adapter cannot run at all (Node.js or the bundle gone): each
 * agent's neutral answer for the events that have one (adapter.reply without a denial; goose's
 * blocking hooks want "allow"), nothing for the rest.
 */
export const NEUTRAL_FALLBACK = (() => {
  const byReply = new Map<string, string[]>();
  for (const a of HOOK_ADAPTERS) {
    for (const e of a.events) {
      const r = a.reply(e);
      if (r !== undefined) byReply.set(r, [...(byReply.get(r) ?? []), `${a.platform}:${e}`]);
    }
  }
  return `case $platform:$prev in ${[...byReply].map(([r, arms]) => `${arms.join(' | ')}) printf ${shellQuote(r)} ;;`).join(' ')} esac`;
})();

/**
 * The attempt, with the payload in `$payload`. Names are checked before they reach the URL: the
 * platform against the adapters' names, the event against the characters every agent's event names
 * use (`PreToolUse`, `pre-tool`, `tool.execute.before`); the route answers 404 to an unknown one,
 * and the fallback answers it neutrally. What reaches the agent's stdout is only an answer the
 * collector gives: one shaped as the adapter's replies start (`replyStart`: goose's `{"decision":…}`),
 * else a JSON object, or nothing. Anything else — no collector alive, no curl, a refusal, a busy writer — returns, and the
 * launcher's fallback records the event.
 */
export const FAST_ATTEMPT = `${COLLECTOR_ALIVE}
beacon_try() {
  case $platform in ${PLATFORMS.join(' | ')}) ;; *) return ;; esac
  case $prev in '' | *[!A-Za-z.-]*) return ;; esac
  read -r url pid started <"$log.collector-url" 2>/dev/null || return
  case $url in
    http://127.0.0.1:*) port=\${url#http://127.0.0.1:} ;;
    'http://[::1]:'*) port=\${url#'http://[::1]:'} ;;
    *) return ;;
  esac
  case $port in '' | *[!0-9]*) return ;; esac
  collector_alive "$pid" "$started" && command -v curl >/dev/null 2>&1 || return
  # The here-document feeds curl without a process for the writer (a pipe would need one).
  reply=$(curl -sf --noproxy '*' --connect-timeout 1 --max-time 4 \\
    -H @"\${log%/*}/hook-token" -H 'Content-Type: application/json' -H "X-Beacon-Hook-Key: $BEACON_HOOK_KEY" \\
    -H "X-Beacon-Log: $log" -H "X-Beacon-Policy-Provider: \${BEACON_POLICY_PROVIDER:-}" \\
    --data-binary @- "$url/v1/hooks/$platform/$prev" 2>/dev/null <<BEACON_PAYLOAD
$payload
BEACON_PAYLOAD
  ) || return
  case $platform:$reply in
    *:) exit 0 ;;
${REPLY_SHAPES}    *:'{'*) printf %s "$reply"; exit 0 ;;
  esac
}
beacon_try`;
