// The hook adapter (bundled to dist/beacon-hooks-adapter.js, started by dist/beacon-hooks.js):
// goose waits for this process on every tool call and turn: it loads only the hook path
// (no fastify, protobufjs or pino) and always exits 0.
import { fstatSync, readFileSync, writeSync } from 'node:fs';
import { beaconVersion } from '../config/paths';
import { runHook } from '../hooks/main';
import { SUBCOMMANDS } from '../sources/goose/hook-payload';

/** goose writes the event and closes stdin. Read synchronously: `process.stdin` would load the
 *  whole stream and net stack (~3 ms) for one small JSON document. A terminal gives no payload. */
async function readStdin(): Promise<string> {
  try {
    if (fstatSync(0).isCharacterDevice()) return '';
    return readFileSync(0, 'utf8');
  } catch {
    return '';
  }
}

const HELP = `usage: beacon-hooks --platform goose --log PATH --config PATH <subcommand>

goose's hook adapter: goose runs it (from the beacon-endpoint plugin's hooks.json, written by
beacon install goose) with the event JSON on stdin. It records the event in the event log and, on
blocking events, answers on stdout ({"decision":"allow"}, or "block" from a policy provider).
Whatever goes wrong it answers allow and exits 0, the error on stderr.

subcommands: ${SUBCOMMANDS.join(', ')}

options:
  --platform goose  the runtime whose payloads these are (goose only)
  --log PATH        the event log (default ~/.beacon/endpoint/events.db, or $BEACON_ENDPOINT_LOG)
  --config PATH     the config file
  -h, --help        show this help
  -V, --version     print the version

example:
  echo '{"session_id":"s1","tool_name":"shell","tool_input":{"command":"ls"}}' | beacon-hooks --platform goose pre-tool
`;

/** --help/--version never reach the hook path: goose never passes them, and they must not print a verdict. */
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
