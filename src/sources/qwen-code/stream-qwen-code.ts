import { SEMCONV_USAGE } from '../../model/usage';
import { classifyGeminiStyleTool, geminiStyleToolUse } from '../gemini-tools';
import type { StreamAdapter } from '../stream-adapter';
import { agentStreamRecord } from '../stream-records';
import { ClaudeShapeStreamParser } from '../stream-shape-claude';

/**
 * `qwen -p … --output-format stream-json`: Claude-SDK-shaped lines with Anthropic field names and
 * OpenAI meanings (input includes cache reads, output includes reasoning). Its assistant lines'
 * per-call usage is keyed by Qwen's own message UUID, not the provider's response id its OTLP
 * export keys model calls by, so recording those calls would count each twice when both run: the
 * `result` line's run totals are recorded instead (they equal the calls' sum). A failed command is
 * `is_error: false` in this stream, with no exit code: it shows as a success, as Qwen says it.
 */
export const qwenCodeStream: StreamAdapter = {
  platform: 'qwen-code',
  mode: { program: 'qwen', userPart: '-p …', flags: [{ name: '--output-format', aliases: ['-o'], value: 'stream-json' }] },
  example: 'qwen --yolo -p "fix the tests" --output-format stream-json | beacon stream qwen-code --tee',
  createParser: (o) => new ClaudeShapeStreamParser({ semantics: SEMCONV_USAGE, toolUse: geminiStyleToolUse }, o),
  record: (ev, ctx) => agentStreamRecord(ev, ctx, { harness: 'qwen-code', classify: classifyGeminiStyleTool }),
};
