import { claudeCodeStream } from './claude-code/stream-claude-code';
import { clineStream } from './cline/stream-cline';
import { codexStream } from './codex/stream-codex';
import { copilotCliStream } from './copilot-cli/stream-copilot-cli';
import { geminiCliStream } from './gemini-cli/stream-gemini-cli';
import { gooseStream } from './goose/stream-goose';
import { opencodeStream } from './opencode/stream-opencode';
import { piStream } from './pi/stream-pi';
import { qwenCodeStream } from './qwen-code/stream-qwen-code';
import type { StreamAdapter } from './stream-adapter';

/** Every agent whose JSON event stream `beacon stream <platform>` reads, by its platform name (as the hook adapters name it). */
export const STREAM_ADAPTERS: readonly StreamAdapter[] = [gooseStream, claudeCodeStream, codexStream, geminiCliStream, qwenCodeStream, opencodeStream, copilotCliStream, clineStream, piStream];

export function streamAdapter(platform: string | undefined): StreamAdapter | undefined {
  return STREAM_ADAPTERS.find((a) => a.platform === platform);
}
