// The hook adapter (bundled to dist/beacon-hooks-adapter.js, started by dist/beacon-hooks.js):
// the agent waits for this process on every tool call and turn: it loads only the hook path
// (no fastify, protobufjs or pino) and always exits 0.
import { fstatSync, readFileSync, writeSync } from 'node:fs';
import { beaconVersion } from '../config/paths';
import { runHook } from '../hooks/main';
import { HOOK_ADAPTERS } from '../sources/hook-registry';

/** The agent writes the event and closes stdin. Read synchronously: `process.stdin` would load the
 *  whole stream and net stack (~3 ms) for one small JSON document. A terminal gives no payload. */
async function readStdin(): Promise<string> {
  try {
    if (fstatSync(0).isCharacterDevice()) return '';
    return readFileSync(0, 'utf8');
  } catch {
    return '';
  }
}

const HELP = `usage: beacon-hooks --platform AGENT --log PATH --config PATH <event>

The hook adapter of every agent Beacon answers hooks for: the agent runs it (from the hook entries
beacon install writes) with the event's JSON on stdin. It records the event in the event log and
answers on stdout exactly what the agent reads as "no opinion" (for most agents nothing at all),
or the agent's own deny when a policy provider (BEACON_POLICY_PROVIDER) denies a tool call.
Whatever goes wrong it gives that neutral answer and exits 0, the error on stderr.

platforms and their events:
${HOOK_ADAPTERS.map((a) => `  ${a.platform}: ${a.events.join(', ')}`).join('\n')}

options:
  --platform AGENT  the agent whose payloads these are
  --log PATH        the event log (default ~/.beacon/endpoint/events.db, or $BEACON_ENDPOINT_LOG)
  --config PATH     the config file
  -h, --help        show this help
  -V, --version     print the version

example:
  echo '{"session_id":"s1","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t1"}' | beacon-hooks --platform claude-code PreToolUse
`;

/** --help/--version never reach the hook path: no agent passes them, and they must not print a verdict. */
function infoRequest(argv: string[]): string | undefined {
  for (const a of argv) {
    if (a === '--') break;
    if (a === '--help' || a === '-h') return HELP;
    if (a === '--version' || a === '-V') return `beacon-hooks ${beaconVersion()}\n`;
  }
  return undefined;
}

const info = infoRequest(process.argv.slice(2));
if (info !== undefined) writeSync(1, info);
else runHook(process.argv.slice(2), {
  stdin: readStdin,
  stdout: (s) => writeSync(1, s),
  stderr: (s) => writeSync(2, s),
  env: process.env,
}).then(
  () => {
    process.exitCode = 0;
  },
  () => {
    process.exitCode = 0;
  },
);
