/**
 * A mock model server for the agents lab: one node:http server on 127.0.0.1 that speaks the four
 * wire APIs the agent CLIs use, and plays one fixed script per conversation (see
 * shared/docs/agents-otlp-facts.md, "Mock usage numbers"):
 *
 *   step 1  the request has tools and no tool result: call the shell tool with `echo beacon-lab`
 *           (call id `call_beacon_0001`; Anthropic `toolu_beacon_0001`)
 *   step 2  the request carries the tool result: a final text answer
 *   side    a request without tools (opencode's title generation): a short text answer
 *
 * or, with `startMockModel({ twoTools })`, the script of shared/docs/agent-hooks-facts.md: the agent's
 * write tool creates a file, then (its result in the conversation) the shell tool runs a command
 * (one meant to fail), then the final text (call ids `…0001`, `…0002`),
 *
 * with known usage numbers on each wire's own convention (OpenAI and Gemini input include cached
 * tokens; Anthropic input excludes cache reads and writes; OpenAI output includes reasoning, Gemini
 * output excludes thoughts). Everything else (HEAD /, Codex's analytics POST, count-tokens probes)
 * gets 404. Every request is recorded, so a test can assert what the agent called.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { shellQuote } from '../../src/model/shell-quote';

export type Wire = 'responses' | 'chat' | 'anthropic' | 'gemini';
export type Step = 'tool' | 'final' | 'side';

export interface StepUsage {
  /** the prompt tokens as the API field says them (OpenAI/Gemini: cached included; Anthropic: cache excluded) */
  input: number;
  /** cached_tokens / cache_read_input_tokens / cachedContentTokenCount */
  cached: number;
  /** cache_creation_input_tokens (Anthropic only; other wires have no such field) */
  cacheCreation: number;
  /** output_tokens / completion_tokens / candidatesTokenCount (OpenAI: reasoning included; Gemini: thoughts excluded) */
  output: number;
  /** reasoning_tokens / thoughtsTokenCount (Anthropic has no such field) */
  reasoning: number;
}

/** The known truth: what the mock reports for each step (the facts sheet's table). */
export const MOCK_USAGE: Readonly<Record<'step1' | 'step2' | 'side', Readonly<StepUsage>>> = Object.freeze({
  step1: Object.freeze({ input: 1200, cached: 300, cacheCreation: 50, output: 40, reasoning: 8 }),
  step2: Object.freeze({ input: 1500, cached: 1000, cacheCreation: 20, output: 25, reasoning: 5 }),
  side: Object.freeze({ input: 111, cached: 0, cacheCreation: 0, output: 11, reasoning: 0 }),
});

/** Per-wire totals a test can compare against ("passed through" vs "summed" vs "subtracted"). */
export const MOCK_TOTALS = Object.freeze({
  /** OpenAI total_tokens: input (incl. cached) + output (incl. reasoning) */
  openai: Object.freeze({ step1: 1240, step2: 1525, side: 122 }),
  /** Anthropic total prompt: input + cache_read + cache_creation */
  anthropicPrompt: Object.freeze({ step1: 1550, step2: 2520, side: 111 }),
  /** Gemini totalTokenCount: prompt (incl. cached) + candidates + thoughts */
  gemini: Object.freeze({ step1: 1248, step2: 1530, side: 122 }),
  /** a two-step turn, OpenAI convention (what Codex/Copilot/Qwen/Gemini report as session totals) */
  turn: Object.freeze({ input: 2700, cached: 1300, cacheCreation: 70, output: 65, reasoning: 13 }),
});

export const MOCK_COMMAND = 'echo beacon-lab';
export const MOCK_CALL_ID = 'call_beacon_0001';
export const MOCK_ANTHROPIC_CALL_ID = 'toolu_beacon_0001';
export const MOCK_FINAL_TEXT = 'The command printed beacon-lab. Done.';
export const MOCK_SIDE_TEXT = 'Beacon lab echo';
export const MOCK_API_KEY = 'dummy-key';

/** Response id for the Nth model call the mock answered (1-based), in each wire's style. */
export function responseId(wire: Wire, n: number): string {
  const seq = String(n).padStart(4, '0');
  return { responses: `resp_beacon_${seq}`, chat: `chatcmpl-beacon-${seq}`, anthropic: `msg_beacon_${seq}`, gemini: `gem_beacon_${seq}` }[wire];
}

export interface RecordedRequest {
  method: string;
  /** path with query string, as sent */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** the body parsed as JSON when it is JSON, else its text ('' when none) */
  body: unknown;
  /** set when the request was a model call the mock answered */
  wire?: Wire;
  step?: Step;
  stream?: boolean;
  /** the response id the mock answered with */
  responseId?: string;
  /** the name of the shell tool the mock called (step 'tool') */
  toolName?: string;
  /** the arguments it sent to it */
  toolArgs?: Record<string, unknown>;
  status: number;
}

export interface MockModel {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** the model calls only (requests the mock answered with a step) */
  modelCalls(): RecordedRequest[];
  close(): Promise<void>;
}

/** The two-tool script: the file the write tool creates (its content) and the command the shell tool runs after it. */
export interface TwoToolScript {
  path: string;
  content: string;
  command: string;
}

export async function startMockModel(options: { twoTools?: TwoToolScript } = {}): Promise<MockModel> {
  const requests: RecordedRequest[] = [];
  let calls = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: { ...req.headers }, body: '', status: 0 };
      requests.push(rec);
      try {
        rec.body = parseBody(decode(Buffer.concat(chunks), req.headers['content-encoding']), req.headers['content-type']);
        route(req, res, rec, () => ++calls, options.twoTools);
      } catch (e) {
        rec.status = 500;
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `mock model: ${(e as Error).message}` } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    modelCalls: () => requests.filter((r) => r.step !== undefined),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function decode(buf: Buffer, encoding: string | string[] | undefined): Buffer {
  const e = String(encoding ?? '').toLowerCase();
  if (e === 'gzip') return gunzipSync(buf);
  if (e === 'deflate') return inflateSync(buf);
  if (e === 'br') return brotliDecompressSync(buf);
  return buf;
}

function parseBody(buf: Buffer, contentType: string | undefined): unknown {
  const text = buf.toString('utf8');
  if (text === '') return '';
  if (/json/i.test(contentType ?? '') || /^\s*[{[]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function route(req: IncomingMessage, res: ServerResponse, rec: RecordedRequest, next: () => number, twoTools?: TwoToolScript): void {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const path = url.pathname.replace(/\/+$/, '');
  const body = (typeof rec.body === 'object' && rec.body !== null ? rec.body : {}) as Json;
  if (req.method === 'POST') {
    if (path.endsWith('/responses')) return answer('responses', body, body.stream === true);
    if (path.endsWith('/chat/completions')) return answer('chat', body, body.stream === true);
    if (path.endsWith('/messages')) return answer('anthropic', body, body.stream === true);
    const g = /\/models\/([^/:]+):(streamGenerateContent|generateContent)$/.exec(path);
    if (g) {
      body.model ??= g[1];
      return answer('gemini', body, g[2] === 'streamGenerateContent');
    }
  }
  rec.status = 404;
  res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `mock model: no route for ${req.method} ${url.pathname}` } }));

  function answer(wire: Wire, b: Json, stream: boolean): void {
    const tools = toolsOf(wire, b);
    const results = toolResults(wire, b);
    const step: Step = tools.length === 0 ? 'side' : results >= (twoTools ? 2 : 1) ? 'final' : 'tool';
    const n = next();
    const id = responseId(wire, n);
    Object.assign(rec, { wire, step, stream, responseId: id, status: 200 });
    const usage = step === 'tool' ? MOCK_USAGE.step1 : step === 'final' ? MOCK_USAGE.step2 : MOCK_USAGE.side;
    let call: ToolCall | undefined;
    const write = twoTools && results === 0 ? pickWriteTool(tools) : undefined;
    // An agent offered no write tool (Codex with the mock's unknown model slug) writes through its shell, as it did in the facts' capture.
    const writeByShell = step === 'tool' && twoTools && results === 0 && !write && pickShellTool(tools) ? `printf '%s' ${shellQuote(twoTools.content)} > ${shellQuote(twoTools.path)}` : undefined;
    if (step === 'tool' && twoTools && results === 0 && !write && !writeByShell) {
      rec.status = 400;
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `mock model: no write tool among ${tools.map((t) => t.name).join(', ')}` } }));
      return;
    }
    if (step === 'tool' && write && twoTools) {
      call = { name: write.name, args: writeArgs(write, twoTools), id: wire === 'anthropic' ? MOCK_ANTHROPIC_CALL_ID : MOCK_CALL_ID };
      rec.toolName = call.name;
      rec.toolArgs = call.args;
    } else if (step === 'tool') {
      const shell = pickShellTool(tools);
      if (!shell) {
        rec.status = 400;
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `mock model: no shell tool among ${tools.map((t) => t.name).join(', ')}` } }));
        return;
      }
      const args = shellArgs(shell.schema);
      const script = writeByShell ?? twoTools?.command;
      if (script !== undefined) for (const k of ['cmd', 'command'] as const) if (k in args) args[k] = Array.isArray(args[k]) ? ['bash', '-lc', script] : script;
      if (script !== undefined && 'commands' in args) args.commands = [script];
      const second = (id: string) => (twoTools && !writeByShell ? id.replace(/1$/, '2') : id);
      call = { name: shell.name, args, id: second(wire === 'anthropic' ? MOCK_ANTHROPIC_CALL_ID : MOCK_CALL_ID) };
      rec.toolName = call.name;
      rec.toolArgs = call.args;
    }
    const text = step === 'final' ? MOCK_FINAL_TEXT : MOCK_SIDE_TEXT;
    const model = String(b.model ?? 'mock-model');
    const events = WIRES[wire]({ id, model, usage, call, text, includeUsage: b.stream_options?.include_usage === true });
    if (!stream) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(events.whole));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    for (const [event, data] of events.stream) res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
    res.end();
  }
}

interface ToolDef {
  name: string;
  schema: Json;
}

interface ToolCall {
  name: string;
  args: Record<string, unknown>;
  id: string;
}

/** The function tools a request offers, whatever the wire. */
function toolsOf(wire: Wire, b: Json): ToolDef[] {
  const list: Json[] = Array.isArray(b.tools) ? b.tools : [];
  const out: ToolDef[] = [];
  for (const t of list) {
    if (wire === 'gemini') {
      for (const f of (t.functionDeclarations ?? t.function_declarations ?? []) as Json[]) out.push({ name: f.name, schema: f.parametersJsonSchema ?? f.parameters ?? {} });
    } else if (wire === 'chat') {
      if (t.function?.name) out.push({ name: t.function.name, schema: t.function.parameters ?? {} });
    } else if (wire === 'anthropic') {
      if (t.name) out.push({ name: t.name, schema: t.input_schema ?? {} });
    } else if (t.name) {
      out.push({ name: t.name, schema: t.parameters ?? {} }); // Responses: {type:'function'|'custom', name, parameters}
    } else if (t.type === 'local_shell') {
      out.push({ name: 'local_shell', schema: {} });
    }
  }
  return out;
}

/** How many tool results the conversation already carries (the script's next step: one per result). */
function toolResults(wire: Wire, b: Json): number {
  if (wire === 'responses') return asArray(b.input).filter((i) => /_call_output$/.test(String(i?.type ?? ''))).length;
  if (wire === 'chat') return asArray(b.messages).filter((m) => m?.role === 'tool').length;
  if (wire === 'anthropic') return asArray(b.messages).flatMap((m) => asArray(m?.content)).filter((c) => c?.type === 'tool_result').length;
  return asArray(b.contents).flatMap((c) => asArray(c?.parts)).filter((p) => p?.functionResponse !== undefined).length;
}

/** The write tool, by the names the agents give it, and its arguments in that agent's own keys. */
const WRITE_ARGS: Record<string, (s: TwoToolScript, schema: Json) => Record<string, unknown>> = {
  Write: (s) => ({ file_path: s.path, content: s.content }),
  write_file: (s) => ({ file_path: s.path, content: s.content }),
  create: (s) => ({ path: s.path, file_text: s.content }),
  // opencode's `write` takes `filePath`, Pi's takes `path` (Pi rejects the call otherwise, before any hook sees it)
  write: (s, schema) => (schema.properties?.path !== undefined && schema.properties?.filePath === undefined ? { path: s.path, content: s.content } : { filePath: s.path, content: s.content }),
  editor: (s) => ({ path: s.path, new_text: s.content }), // Cline (with a non-GPT model id; GPT ids get apply_patch)
};

function pickWriteTool(tools: ToolDef[]): ToolDef | undefined {
  return tools.find((t) => Object.hasOwn(WRITE_ARGS, t.name));
}

function writeArgs(tool: ToolDef, s: TwoToolScript): Record<string, unknown> {
  return WRITE_ARGS[tool.name]!(s, tool.schema);
}

function asArray(v: unknown): Json[] {
  return Array.isArray(v) ? v : [];
}

/** The shell tool, by the names the six agents give it. */
const SHELL_NAMES = ['exec_command', 'shell', 'local_shell', 'Bash', 'bash', 'run_shell_command', 'shell_command', 'run_commands'];

function pickShellTool(tools: ToolDef[]): ToolDef | undefined {
  for (const n of SHELL_NAMES) {
    const t = tools.find((x) => x.name === n);
    if (t) return t;
  }
  return tools.find((t) => /shell|bash|exec/i.test(t.name));
}

/** Arguments for the shell tool in the shape its schema asks for. */
function shellArgs(schema: Json): Record<string, unknown> {
  const props: Json = schema.properties ?? {};
  const args: Record<string, unknown> = {};
  if ('cmd' in props) args.cmd = MOCK_COMMAND;
  else if ('commands' in props) args.commands = [MOCK_COMMAND]; // Cline's run_commands: a list of shell command strings
  else if ('command' in props || Object.keys(props).length === 0) {
    const type = String(props.command?.type ?? 'string').toLowerCase();
    args.command = type === 'array' ? ['bash', '-lc', MOCK_COMMAND] : MOCK_COMMAND;
  }
  for (const r of asArray(schema.required) as unknown as string[]) {
    if (r in args) continue;
    const p: Json = props[r] ?? {};
    const type = String(p.type ?? 'string').toLowerCase();
    if (Array.isArray(p.enum) && p.enum.length) args[r] = p.enum[0];
    else if (r === 'description') args[r] = 'Print beacon-lab';
    else if (type === 'boolean') args[r] = false;
    else if (type === 'number' || type === 'integer') args[r] = Number(p.default ?? p.minimum ?? 10000);
    else if (type === 'array') args[r] = [];
    else if (type === 'object') args[r] = {};
    else args[r] = p.default ?? '';
  }
  return args;
}

interface Script {
  id: string;
  model: string;
  usage: StepUsage;
  call?: ToolCall;
  text: string;
  /** Chat Completions: the client asked for a usage chunk (stream_options.include_usage) */
  includeUsage: boolean;
}

/** One wire's answer: the SSE events (event name or '' for data-only streams) and the non-streaming body. */
type Answer = { stream: Array<[string, unknown]>; whole: unknown };

const created = () => Math.floor(Date.now() / 1000);

const WIRES: Record<Wire, (s: Script) => Answer> = {
  responses(s) {
    const u = s.usage;
    const usage = {
      input_tokens: u.input,
      input_tokens_details: { cached_tokens: u.cached },
      output_tokens: u.output,
      output_tokens_details: { reasoning_tokens: u.reasoning },
      total_tokens: u.input + u.output,
    };
    const base = { id: s.id, object: 'response', created_at: created(), model: s.model, output: [] as unknown[], parallel_tool_calls: true, tool_choice: 'auto', tools: [] };
    const stream: Array<[string, unknown]> = [];
    let seq = 0;
    const ev = (type: string, data: Json) => stream.push([type, { type, sequence_number: seq++, ...data }]);
    ev('response.created', { response: { ...base, status: 'in_progress', usage: null } });
    ev('response.in_progress', { response: { ...base, status: 'in_progress', usage: null } });
    let item: Json;
    if (s.call) {
      const args = JSON.stringify(s.call.args);
      item = { id: `fc_${s.id}`, type: 'function_call', status: 'completed', name: s.call.name, call_id: s.call.id, arguments: args };
      ev('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', arguments: '' } });
      ev('response.function_call_arguments.delta', { item_id: item.id, output_index: 0, delta: args });
      ev('response.function_call_arguments.done', { item_id: item.id, output_index: 0, arguments: args });
      ev('response.output_item.done', { output_index: 0, item });
    } else {
      const part = { type: 'output_text', text: s.text, annotations: [] };
      item = { id: `msg_${s.id}`, type: 'message', status: 'completed', role: 'assistant', content: [part] };
      ev('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } });
      ev('response.content_part.added', { item_id: item.id, output_index: 0, content_index: 0, part: { ...part, text: '' } });
      ev('response.output_text.delta', { item_id: item.id, output_index: 0, content_index: 0, delta: s.text });
      ev('response.output_text.done', { item_id: item.id, output_index: 0, content_index: 0, text: s.text });
      ev('response.content_part.done', { item_id: item.id, output_index: 0, content_index: 0, part });
      ev('response.output_item.done', { output_index: 0, item });
    }
    const done = { ...base, status: 'completed', output: [item], usage };
    ev('response.completed', { response: done });
    return { stream, whole: done };
  },

  chat(s) {
    const u = s.usage;
    const usage = {
      prompt_tokens: u.input,
      completion_tokens: u.output,
      total_tokens: u.input + u.output,
      prompt_tokens_details: { cached_tokens: u.cached },
      completion_tokens_details: { reasoning_tokens: u.reasoning },
    };
    const head = { id: s.id, object: 'chat.completion.chunk', created: created(), model: s.model, system_fingerprint: 'fp_beacon_mock' };
    const chunk = (delta: Json, finish: string | null, extra: Json = {}) => ['', { ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra }] as [string, unknown];
    const stream: Array<[string, unknown]> = [];
    const finish = s.call ? 'tool_calls' : 'stop';
    if (s.call) {
      const args = JSON.stringify(s.call.args);
      stream.push(chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: s.call.id, type: 'function', function: { name: s.call.name, arguments: '' } }] }, null));
      stream.push(chunk({ tool_calls: [{ index: 0, function: { arguments: args } }] }, null));
    } else {
      stream.push(chunk({ role: 'assistant', content: '' }, null));
      stream.push(chunk({ content: s.text }, null));
    }
    if (s.includeUsage) {
      stream.push(chunk({}, finish));
      stream.push(['', { ...head, choices: [], usage }]);
    } else {
      stream.push(chunk({}, finish, { usage })); // no usage chunk asked for: usage rides on the last chunk, as many servers do
    }
    stream.push(['', '[DONE]']);
    const message: Json = s.call
      ? { role: 'assistant', content: null, tool_calls: [{ id: s.call.id, type: 'function', function: { name: s.call.name, arguments: JSON.stringify(s.call.args) } }] }
      : { role: 'assistant', content: s.text };
    const whole = { id: s.id, object: 'chat.completion', created: created(), model: s.model, system_fingerprint: 'fp_beacon_mock', choices: [{ index: 0, message, logprobs: null, finish_reason: finish }], usage };
    return { stream, whole };
  },

  anthropic(s) {
    const u = s.usage;
    // as the Messages API sends it: the cache write with its breakdown by lifetime (all 5-minute here),
    // which Claude Code copies into its transcript and ccusage counts the cache write from
    const startUsage = { input_tokens: u.input, cache_creation_input_tokens: u.cacheCreation, cache_read_input_tokens: u.cached, cache_creation: { ephemeral_5m_input_tokens: u.cacheCreation, ephemeral_1h_input_tokens: 0 }, output_tokens: 1 };
    const msg = { id: s.id, type: 'message', role: 'assistant', model: s.model, content: [] as unknown[], stop_reason: null, stop_sequence: null, usage: startUsage };
    const stream: Array<[string, unknown]> = [];
    const ev = (type: string, data: Json) => stream.push([type, { type, ...data }]);
    ev('message_start', { message: msg });
    let block: Json;
    if (s.call) {
      block = { type: 'tool_use', id: s.call.id, name: s.call.name, input: s.call.args };
      ev('content_block_start', { index: 0, content_block: { ...block, input: {} } });
      ev('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(s.call.args) } });
    } else {
      block = { type: 'text', text: s.text };
      ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
      ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: s.text } });
    }
    ev('content_block_stop', { index: 0 });
    const stop = s.call ? 'tool_use' : 'end_turn';
    ev('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: u.output } });
    ev('message_stop', {});
    const whole = { ...msg, content: [block], stop_reason: stop, usage: { ...startUsage, output_tokens: u.output } };
    return { stream, whole };
  },

  gemini(s) {
    const u = s.usage;
    const usageMetadata = {
      promptTokenCount: u.input,
      cachedContentTokenCount: u.cached,
      candidatesTokenCount: u.output,
      thoughtsTokenCount: u.reasoning,
      totalTokenCount: u.input + u.output + u.reasoning,
    };
    const part = s.call ? { functionCall: { id: s.call.id, name: s.call.name, args: s.call.args } } : { text: s.text };
    const whole = {
      candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
      usageMetadata,
      modelVersion: s.model,
      responseId: s.id,
    };
    return { stream: [['', whole]], whole };
  },
};
