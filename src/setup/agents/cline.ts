import { join } from 'node:path';
import { agentHookCommand, type AgentHookCall } from '../hook-command';
import { homeOf, kv, logsRequest, type AgentSpec } from './spec';

/**
 * Cline CLI (3.0.65, docs/agents/cline-facts.md): no OTLP Beacon can receive (its export goes to
 * Cline's own endpoint, or where an organisation's remote config says; nothing local switches it),
 * so the install is its hooks alone; its usage comes from `beacon import cline` (its session store)
 * or `beacon stream cline`. Hooks are files named by their event in a hooks directory
 * (`$CLINE_DIR/hooks`, default `~/.cline/hooks`; a project's `.clinerules/hooks`), every file of an
 * event run: Beacon's own `<Event>.bash` sits beside the user's `<Event>`, `<Event>.sh`, `<Event>.py`.
 */
const clineDir = (env: NodeJS.ProcessEnv) => env.CLINE_DIR?.trim() || join(homeOf(env), '.cline');

const EVENTS = ['TaskStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'TaskComplete'];

/** One hook file: `#!/bin/sh` (Cline runs a file by its shebang) and the `sh -c` line every command-hook agent runs. */
const hookFile = (event: string) => (call: Omit<AgentHookCall, 'event'>) =>
  `#!/bin/sh\n# Written by \`beacon install cline\`; \`beacon uninstall cline\` removes it. Edits are refused by both.\n${agentHookCommand({ ...call, event })}\n`;

export const cline: AgentSpec = {
  id: 'cline',
  title: 'Cline',
  aliases: ['cline-cli'],
  binaries: ['cline'],
  testedVersion: { package: 'cline', version: '3.0.65' },
  protocols: ['http'],
  configDirs: ({ env }) => [clineDir(env)],
  settingsFile: () => undefined,
  keys: () => [],
  envLines: () => [],
  contentExport: 'nothing to Beacon: Cline sends its OTLP only to Cline\'s own endpoint (its hooks record tool calls; its session store, which the collector follows, its prompts and model calls)',
  contentState: () => 'no OTLP to Beacon: Cline has no local OTLP endpoint switch; hooks carry tool arguments, the session store the prompt and usage',
  storeOnly: true,
  noOtlp: 'no OTLP to set up: Cline sends its telemetry only to Cline\'s own endpoint. Its prompts, model calls and tokens come from its session store, which the collector follows from its next start (restart a running one); beacon import cline reads it at once',
  traps: () => [
    { id: 'otlp', status: 'ok', message: 'Cline exports no OTLP to a local endpoint: model calls and their tokens come from `beacon import cline` (its session store) or `beacon stream cline`' },
    { id: 'deny', status: 'ok', message: 'a policy provider\'s deny is Cline\'s cancel: it ends the whole task, not only the tool call' },
  ],
  hooks: {
    file: () => undefined,
    events: EVENTS,
    arrayPath: () => [],
    entry: () => undefined,
    commandsOf: () => [],
    pluginFiles: (scope, { env, cwd }) => {
      const dir = scope === 'user' ? join(clineDir(env), 'hooks') : join(cwd, '.clinerules', 'hooks');
      return EVENTS.map((event) => ({ path: join(dir, `${event}.bash`), event, render: hookFile(event) }));
    },
  },
  testRecord: (session, now) => ({
    signal: 'logs', encoding: 'json',
    request: logsRequest('cline', 'cline', [kv('session.id', session), kv('event.name', 'beacon.doctor.test')], now),
  }),
};
