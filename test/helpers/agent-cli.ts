/**
 * Runs the real agent CLIs of the agents lab (pinned in test/agents/package.json, installed by
 * `npm ci --prefix test/agents`) non-interactively against the mock model (mock-model.ts), with
 * their OpenTelemetry export pointed at an OTLP/HTTP endpoint, exactly as
 * shared/docs/agents-otlp-facts.md describes each one.
 *
 * Offline by construction: every URL is 127.0.0.1, every update check and vendor-telemetry switch
 * the facts sheet names is off, and the child's environment is built from scratch (nothing of the
 * caller's OPENAI_*, OTEL_*, proxy or CI variables leaks in). Each run gets its own HOME.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { freePort } from './ports';
import { dirname, join } from 'node:path';
import { repoRoot } from './paths';
import { MOCK_API_KEY } from './mock-model';

export type AgentName = 'codex' | 'claude' | 'gemini' | 'qwen' | 'opencode' | 'copilot' | 'pi';
export type OtlpProtocol = 'http/protobuf' | 'http/json';

export interface AgentInfo {
  name: AgentName;
  /** the npm package and the version test/agents pins */
  package: string;
  version: string;
  /** the command in test/agents/node_modules/.bin */
  bin: string;
  /** the model API the agent is configured to call on the mock */
  wire: 'responses' | 'chat' | 'anthropic' | 'gemini';
  /** model calls one run makes against the mock (opencode adds a title-generation side call) */
  modelCalls: number;
  /** the OTLP signals one run exports, as observed */
  signals: ReadonlyArray<'traces' | 'logs' | 'metrics'>;
  /** OTLP encodings the agent can send over HTTP (JSON-only exporters ignore 'http/protobuf') */
  protocols: readonly OtlpProtocol[];
  /** whether OTEL_EXPORTER_OTLP_COMPRESSION=gzip yields gzip bodies (Codex: it disables all export; Copilot: ignored) */
  gzip: boolean;
}

export const AGENTS: Readonly<Record<AgentName, AgentInfo>> = {
  codex: { name: 'codex', package: '@openai/codex', version: '0.171.0', bin: 'codex', wire: 'responses', modelCalls: 2, signals: ['traces', 'logs', 'metrics'], protocols: ['http/protobuf', 'http/json'], gzip: false },
  claude: { name: 'claude', package: '@anthropic-ai/claude-code', version: '2.1.332', bin: 'claude', wire: 'anthropic', modelCalls: 2, signals: ['traces', 'logs', 'metrics'], protocols: ['http/protobuf', 'http/json'], gzip: true },
  gemini: { name: 'gemini', package: '@google/gemini-cli', version: '0.61.0', bin: 'gemini', wire: 'gemini', modelCalls: 2, signals: ['traces', 'logs', 'metrics'], protocols: ['http/json'], gzip: true },
  qwen: { name: 'qwen', package: '@qwen-code/qwen-code', version: '0.24.4', bin: 'qwen', wire: 'chat', modelCalls: 2, signals: ['traces', 'logs', 'metrics'], protocols: ['http/json'], gzip: false },
  opencode: { name: 'opencode', package: 'opencode-ai', version: '1.18.33', bin: 'opencode', wire: 'chat', modelCalls: 3, signals: ['traces', 'logs'], protocols: ['http/json'], gzip: false },
  copilot: { name: 'copilot', package: '@github/copilot', version: '1.0.102', bin: 'copilot', wire: 'chat', modelCalls: 2, signals: ['traces', 'metrics'], protocols: ['http/protobuf', 'http/json'], gzip: false },
  // Pi exports no OTLP at all (docs/agents/pi-facts.md): its extension, stream and session store are its paths
  pi: { name: 'pi', package: '@mariozechner/pi-coding-agent', version: '0.73.1', bin: 'pi', wire: 'chat', modelCalls: 2, signals: [], protocols: [], gzip: false },
};

export const AGENT_NAMES = Object.keys(AGENTS) as AgentName[];

export const AGENTS_DIR = join(repoRoot(), 'test', 'agents');
export const LAB_PROMPT = 'Run the shell command `echo beacon-lab` and tell me what it printed.';

/** The installed binary of an agent, or why there is none (the test then skips it, saying so). */
export function agentBinary(name: AgentName): { path: string; skip?: undefined } | { path?: undefined; skip: string } {
  const a = AGENTS[name];
  const bin = join(AGENTS_DIR, 'node_modules', '.bin', a.bin);
  const install = `run \`npm ci --prefix test/agents\``;
  if (!existsSync(bin)) return { skip: `${a.package} is not installed (${bin} missing): ${install}` };
  const pkgJson = join(AGENTS_DIR, 'node_modules', ...a.package.split('/'), 'package.json');
  try {
    const v = JSON.parse(readFileSync(pkgJson, 'utf8')).version;
    if (v !== a.version) return { skip: `${a.package} ${v} is installed, the lab pins ${a.version}: ${install}` };
  } catch (e) {
    return { skip: `${a.package}: cannot read ${pkgJson}: ${(e as Error).message}` };
  }
  // claude and opencode ship a small placeholder that their postinstall replaces with the native binary.
  if (name === 'claude' || name === 'opencode') {
    try {
      if (statSync(bin).size < 1_000_000) return { skip: `${a.package}: ${bin} is the placeholder its postinstall replaces (installed with --ignore-scripts?): ${install}` };
    } catch (e) {
      return { skip: `${a.package}: ${(e as Error).message}` };
    }
  }
  return { path: bin };
}

export interface AgentRunOptions {
  /** the mock model, http://127.0.0.1:<port> */
  mockUrl: string;
  /** the OTLP/HTTP base URL, http://127.0.0.1:<port> (per-signal paths /v1/<signal> are added where needed) */
  otlpBaseUrl: string;
  protocol: OtlpProtocol;
  /** set OTEL_EXPORTER_OTLP_COMPRESSION=gzip (for Codex this turns its whole export off, see AGENTS.codex.gzip) */
  gzip?: boolean;
  /** a fresh temporary HOME: all the agent's config and state go there */
  home: string;
  /** the working directory the agent runs its tool in */
  workdir: string;
  prompt?: string;
  /** kill the run (its whole process group) after this long; default 120 s */
  timeoutMs?: number;
  /**
   * false: write none of the runner's own OTLP settings (files or variables; otlpBaseUrl and
   * protocol are then unused) — the telemetry config is someone else's, e.g. `beacon install`'s.
   */
  telemetry?: false;
  /** called after the runner wrote its files, before the agent starts (e.g. to run `beacon install` on that home) */
  beforeRun?: () => void | Promise<void>;
  /** variables added to the agent's environment (opencode: its server's) */
  env?: Record<string, string>;
  /** flags put right after the agent's subcommand or binary (Codex's `--dangerously-bypass-hook-trust`) */
  flags?: string[];
  /**
   * The agent's command line (the plan's, with the flags) made into what is run: its stream mode
   * added, or handed to `beacon stream <agent> --` (opencode: its `run`, not its server)
   */
  command?: (argv: string[]) => string[];
}

export interface AgentRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  durationMs: number;
  /** what was run, for the record: argv and the variables set besides PATH/HOME/locale */
  command: string[];
  env: Record<string, string>;
  /** files written into home/workdir before the run */
  files: Record<string, string>;
}

/** Runs one agent once. Never throws for the agent's own failure: look at code/timedOut/stderr. */
export async function runAgent(name: AgentName, o: AgentRunOptions): Promise<AgentRun> {
  const found = agentBinary(name);
  if (!found.path) throw new Error(found.skip);
  mkdirSync(o.home, { recursive: true });
  mkdirSync(o.workdir, { recursive: true });
  const plan = PLANS[name](found.path, o);
  // opencode's flags go to its `run` (runOpencode), not to the server
  if (o.flags?.length && name !== 'opencode') plan.argv.splice(plan.argv.indexOf(found.path) + (name === 'codex' ? 2 : 1), 0, ...o.flags);
  if (o.command && name !== 'opencode') plan.argv = o.command(plan.argv);
  if (o.telemetry === false) for (const k of Object.keys(plan.env)) if (TELEMETRY_ENV.test(k) && !LAB_TIMING.has(k)) delete plan.env[k];
  for (const [file, text] of Object.entries(plan.files)) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  await o.beforeRun?.();
  Object.assign(plan.env, o.env); // after beforeRun, which may fill it
  const timeoutMs = o.timeoutMs ?? 120_000;
  if (name === 'opencode') return runOpencode(found.path, o, plan, timeoutMs);
  const started = Date.now();
  const r = await runProcess(plan.argv, { cwd: o.workdir, env: baseEnv(o.home, plan.env), timeoutMs });
  return { ...r, durationMs: Date.now() - started, command: plan.argv, env: plan.env, files: plan.files };
}

/** The runner's own telemetry variables (dropped with telemetry: false); the vendor-traffic switches stay. */
const TELEMETRY_ENV = /^(OTEL_|CLAUDE_CODE_ENABLE_TELEMETRY$|CLAUDE_CODE_ENHANCED_TELEMETRY_BETA$|GEMINI_TELEMETRY_|QWEN_TELEMETRY_|COPILOT_OTEL_)/;

/**
 * Kept with telemetry: false: the lab's export timing (how soon a batch leaves), not where it goes.
 * opencode's spans of the last model calls are otherwise still queued when the run ends.
 */
const LAB_TIMING = new Set(['OTEL_BSP_SCHEDULE_DELAY', 'OTEL_METRIC_EXPORT_INTERVAL', 'OTEL_LOGS_EXPORT_INTERVAL', 'OTEL_TRACES_EXPORT_INTERVAL']);

interface Plan {
  argv: string[];
  env: Record<string, string>;
  files: Record<string, string>;
}

const PLANS: Record<AgentName, (bin: string, o: AgentRunOptions) => Plan> = {
  codex(bin, o) {
    const codexHome = join(o.home, '.codex');
    const proto = o.protocol === 'http/json' ? 'json' : 'binary';
    const exporter = (signal: string) => `{ otlp-http = { endpoint = "${o.otlpBaseUrl}/v1/${signal}", protocol = "${proto}" } }`;
    const config = [
      'model = "gpt-5-mock"',
      'model_provider = "mock"',
      'approval_policy = "never"',
      'sandbox_mode = "danger-full-access"',
      '',
      '[model_providers.mock]',
      'name = "Mock"',
      `base_url = "${o.mockUrl}/v1"`,
      'env_key = "MOCK_API_KEY"',
      'wire_api = "responses"',
      '',
      ...(o.telemetry === false ? [] : [
        '[otel]',
        'log_user_prompt = true',
        'log_agent_responses = true',
        'environment = "beacon-lab"',
        `exporter = ${exporter('logs')}`,
        `trace_exporter = ${exporter('traces')}`,
        // without a metrics exporter Codex sends its metrics to OpenAI's own endpoint
        `metrics_exporter = ${exporter('metrics')}`,
        '',
      ]),
    ].join('\n');
    const env: Record<string, string> = { CODEX_HOME: codexHome, MOCK_API_KEY };
    if (o.gzip) env.OTEL_EXPORTER_OTLP_COMPRESSION = 'gzip';
    return {
      argv: [bin, 'exec', '--skip-git-repo-check', '-C', o.workdir, o.prompt ?? LAB_PROMPT],
      env,
      files: { [join(codexHome, 'config.toml')]: config },
    };
  },

  claude(bin, o) {
    const env: Record<string, string> = {
      ANTHROPIC_BASE_URL: o.mockUrl,
      ANTHROPIC_API_KEY: MOCK_API_KEY,
      IS_SANDBOX: '1', // --dangerously-skip-permissions is refused as root otherwise
      CLAUDE_CODE_ENABLE_TELEMETRY: '1',
      CLAUDE_CODE_ENHANCED_TELEMETRY_BETA: '1',
      OTEL_METRICS_EXPORTER: 'otlp',
      OTEL_LOGS_EXPORTER: 'otlp',
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: o.protocol,
      OTEL_EXPORTER_OTLP_ENDPOINT: o.otlpBaseUrl,
      OTEL_METRIC_EXPORT_INTERVAL: '2000',
      OTEL_LOGS_EXPORT_INTERVAL: '1000',
      OTEL_TRACES_EXPORT_INTERVAL: '1000',
      OTEL_LOG_USER_PROMPTS: '1',
      OTEL_LOG_ASSISTANT_RESPONSES: '1',
      OTEL_LOG_TOOL_DETAILS: '1',
      OTEL_LOG_TOOL_CONTENT: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    };
    if (o.gzip) env.OTEL_EXPORTER_OTLP_COMPRESSION = 'gzip';
    return { argv: [bin, '-p', '--dangerously-skip-permissions', '--model', 'claude-sonnet-4-5', o.prompt ?? LAB_PROMPT], env, files: {} };
  },

  gemini(bin, o) {
    const telemetry = { enabled: true, target: 'local', otlpEndpoint: o.otlpBaseUrl, otlpProtocol: 'http', logPrompts: true, useCollector: true };
    const settings = {
      security: { auth: { selectedType: 'gemini-api-key' } },
      ...(o.telemetry === false ? {} : { telemetry }),
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
      privacy: { usageStatisticsEnabled: false }, // no usage statistics to Google
    };
    const env: Record<string, string> = {
      GEMINI_API_KEY: MOCK_API_KEY,
      GOOGLE_GEMINI_BASE_URL: o.mockUrl,
      GEMINI_TELEMETRY_ENABLED: 'true',
      GEMINI_TELEMETRY_TARGET: 'local',
      GEMINI_TELEMETRY_OTLP_ENDPOINT: o.otlpBaseUrl,
      GEMINI_TELEMETRY_OTLP_PROTOCOL: 'http',
      GEMINI_TELEMETRY_LOG_PROMPTS: 'true',
      GEMINI_TELEMETRY_TRACES_ENABLED: 'true',
      GEMINI_TELEMETRY_USE_COLLECTOR: 'true',
    };
    if (o.gzip) env.OTEL_EXPORTER_OTLP_COMPRESSION = 'gzip';
    return {
      argv: [process.execPath, bin, '--yolo', '--skip-trust', '-m', 'gemini-2.5-flash', '-p', o.prompt ?? LAB_PROMPT],
      env,
      files: { [join(o.home, '.gemini', 'settings.json')]: JSON.stringify(settings, null, 2) },
    };
  },

  qwen(bin, o) {
    const settings = {
      ...(o.telemetry === false ? {} : { telemetry: { enabled: true, target: 'local', otlpEndpoint: o.otlpBaseUrl, otlpProtocol: 'http', logPrompts: true } }),
      general: { enableAutoUpdate: false },
      privacy: { usageStatisticsEnabled: false },
    };
    const env: Record<string, string> = {
      OPENAI_API_KEY: MOCK_API_KEY,
      OPENAI_BASE_URL: `${o.mockUrl}/v1`,
      OPENAI_MODEL: 'qwen3-coder-mock',
      QWEN_TELEMETRY_ENABLED: 'true',
      QWEN_TELEMETRY_TARGET: 'local',
      QWEN_TELEMETRY_OTLP_ENDPOINT: o.otlpBaseUrl,
      QWEN_TELEMETRY_OTLP_PROTOCOL: 'http',
      QWEN_TELEMETRY_LOG_PROMPTS: 'true',
    };
    if (o.gzip) env.OTEL_EXPORTER_OTLP_COMPRESSION = 'gzip';
    return {
      argv: [process.execPath, bin, '--yolo', '--auth-type', 'openai', '-m', 'qwen3-coder-mock', '-p', o.prompt ?? LAB_PROMPT],
      env,
      files: { [join(o.home, '.qwen', 'settings.json')]: JSON.stringify(settings, null, 2) },
    };
  },

  opencode(bin, o) {
    const config = {
      $schema: 'https://opencode.ai/config.json',
      model: 'mock/mock-model',
      permission: { bash: 'allow', edit: 'allow', webfetch: 'allow' },
      ...(o.telemetry === false ? {} : { experimental: { openTelemetry: true } }),
      autoupdate: false,
      share: 'disabled',
      provider: {
        mock: {
          npm: '@ai-sdk/openai-compatible',
          options: { baseURL: `${o.mockUrl}/v1`, apiKey: MOCK_API_KEY },
          models: { 'mock-model': { name: 'Mock Model', tool_call: true } },
        },
      },
    };
    // The server gets the OTEL variables (it is the process that exports); the client gets none.
    const env: Record<string, string> = {
      OTEL_EXPORTER_OTLP_ENDPOINT: o.otlpBaseUrl,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      ...OPENCODE_OFFLINE,
    };
    if (o.gzip) env.OTEL_EXPORTER_OTLP_COMPRESSION = 'gzip';
    return {
      // `--port 0` means opencode's default 4096, not a free port: runOpencode puts a free one here
      argv: [bin, 'serve', '--port', '<free port>', '--hostname', '127.0.0.1'],
      env,
      files: { [join(o.workdir, 'opencode.json')]: JSON.stringify(config, null, 2) },
    };
  },

  copilot(bin, o) {
    const env: Record<string, string> = {
      COPILOT_OFFLINE: 'true',
      COPILOT_PROVIDER_BASE_URL: `${o.mockUrl}/v1`,
      COPILOT_PROVIDER_TYPE: 'openai',
      COPILOT_PROVIDER_API_KEY: MOCK_API_KEY,
      COPILOT_PROVIDER_WIRE_API: 'completions',
      COPILOT_MODEL: 'gpt-4.1',
      COPILOT_AUTO_UPDATE: 'false',
      COPILOT_HOME: join(o.home, '.copilot'),
      COPILOT_OTEL_ENABLED: 'true',
      OTEL_EXPORTER_OTLP_ENDPOINT: o.otlpBaseUrl,
      OTEL_EXPORTER_OTLP_PROTOCOL: o.protocol,
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
      OTEL_METRIC_EXPORT_INTERVAL: '2000',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
    if (o.gzip) env.OTEL_EXPORTER_OTLP_COMPRESSION = 'gzip';
    return { argv: [bin, '-p', o.prompt ?? LAB_PROMPT, '--allow-all', '--no-auto-update', '--model', 'gpt-4.1'], env, files: {} };
  },
  pi(bin, o) {
    // A custom provider on the mock's chat completions; Pi has no approval step (every tool runs).
    const models = { providers: { mock: { baseUrl: `${o.mockUrl}/v1`, api: 'openai-completions', apiKey: MOCK_API_KEY, models: [{ id: 'mock-model' }] } } };
    // PI_OFFLINE: no startup network (version check, package updates); PI_TELEMETRY=0: no install ping
    const env: Record<string, string> = { PI_OFFLINE: '1', PI_TELEMETRY: '0' };
    return {
      argv: [bin, '--provider', 'mock', '--model', 'mock-model', '-p', o.prompt ?? LAB_PROMPT],
      env,
      files: { [join(o.home, '.pi', 'agent', 'models.json')]: JSON.stringify(models, null, 2) },
    };
  },
};

const OPENCODE_OFFLINE = {
  OPENCODE_DISABLE_AUTOUPDATE: '1',
  OPENCODE_DISABLE_SHARE: '1',
  OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
  OPENCODE_DISABLE_MODELS_FETCH: '1',
};

/** A clean environment: PATH (with this node first), HOME, XDG dirs inside HOME, a plain terminal. */
function baseEnv(home: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: [dirname(process.execPath), process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin'].join(':'),
    HOME: home,
    USER: process.env.USER ?? 'root',
    SHELL: '/bin/bash',
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    TMPDIR: process.env.TMPDIR ?? '/tmp',
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    XDG_CACHE_HOME: join(home, '.cache'),
    NO_PROXY: '127.0.0.1,localhost',
    ...extra,
  };
}

interface ProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

/** Spawns in its own process group; on timeout the whole group is killed. */
function runProcess(argv: string[], o: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<ProcessResult> {
  return new Promise((resolve) => {
    const child = spawn(argv[0], argv.slice(1), { cwd: o.cwd, env: o.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child, 'SIGKILL');
    }, o.timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, timedOut, stdout, stderr: `${stderr}\nspawn failed: ${e.message}` });
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      killGroup(child, 'SIGKILL'); // whatever the agent left behind in its group (a tool's shell)
      resolve({ code, signal, timedOut, stdout, stderr });
    });
  });
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    /* the group is gone */
  }
}

/**
 * opencode: `opencode run` does not flush its telemetry at exit, so the lab runs `opencode serve`
 * (with the OTEL environment), attaches `opencode run --attach` to it (without), and then stops the
 * server with SIGTERM (it ignores SIGINT), which flushes.
 */
async function runOpencode(bin: string, o: AgentRunOptions, plan: Plan, timeoutMs: number): Promise<AgentRun> {
  const started = Date.now();
  const deadline = started + timeoutMs;
  plan.argv[plan.argv.indexOf('<free port>')] = String(await freePort());
  const server = spawn(plan.argv[0], plan.argv.slice(1), { cwd: o.workdir, env: baseEnv(o.home, plan.env), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let sOut = '';
  let sErr = '';
  server.stderr!.on('data', (d) => (sErr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => server.once('close', (code, signal) => resolve({ code, signal })));
  const url = await new Promise<string | undefined>((resolve) => {
    const timer = setTimeout(() => resolve(undefined), Math.min(60_000, timeoutMs));
    server.stdout!.on('data', (d) => {
      sOut += d;
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(sOut);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    server.once('close', () => resolve(undefined));
  });
  let sigtermAt: number | undefined;
  const record = (r: ProcessResult, serverExit: { code: number | null; signal: NodeJS.Signals | null } | undefined): AgentRun => ({
    ...r,
    stdout: r.stdout,
    stderr: `${r.stderr}\n--- opencode serve (SIGTERM at +${sigtermAt ?? '?'} ms, exit ${serverExit?.code ?? '-'}${serverExit?.signal ? `, ${serverExit.signal}` : ''} at +${Date.now() - started} ms) stdout:\n${sOut}\n--- stderr:\n${sErr}`,
    durationMs: Date.now() - started,
    command: [...plan.argv, '&&', bin, 'run', ...(o.flags ?? []), '--attach', url ?? '<server url>', '--dir', o.workdir, '--model', 'mock/mock-model', o.prompt ?? LAB_PROMPT],
    env: plan.env,
    files: plan.files,
  });
  if (!url) {
    killGroup(server, 'SIGKILL');
    const e = await exited;
    return record({ code: null, signal: null, timedOut: true, stdout: '', stderr: 'opencode serve printed no "listening on" line' }, e);
  }
  const argv = [bin, 'run', ...(o.flags ?? []), '--attach', url, '--dir', o.workdir, '--model', 'mock/mock-model', o.prompt ?? LAB_PROMPT];
  const run = await runProcess(o.command ? o.command(argv) : argv, {
    cwd: o.workdir,
    env: baseEnv(o.home, OPENCODE_OFFLINE),
    timeoutMs: Math.max(1000, deadline - Date.now()),
  });
  // Let the batch span processor (100 ms) hand over the last spans, then stop the server: SIGTERM flushes.
  await new Promise((r) => setTimeout(r, 500));
  sigtermAt = Date.now() - started;
  try {
    server.kill('SIGTERM');
  } catch {
    /* gone */
  }
  const killer = setTimeout(() => killGroup(server, 'SIGKILL'), 15_000);
  const serverExit = await exited;
  clearTimeout(killer);
  killGroup(server, 'SIGKILL');
  return record(run, serverExit);
}

