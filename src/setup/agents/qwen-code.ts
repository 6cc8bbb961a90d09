import { geminiStyleAgent } from './gemini-style';

/** Qwen Code took Claude Code's hook events (and Gemini CLI's settings file and millisecond timeouts). */
export const qwenCode = geminiStyleAgent({
  id: 'qwen-code', title: 'Qwen Code', aliases: ['qwen'], bin: 'qwen', dir: '.qwen', envPrefix: 'QWEN_TELEMETRY', service: 'qwen-code', eventPrefix: 'qwen-code',
  hookEvents: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'Stop', 'SessionEnd'], toolEvents: ['PreToolUse', 'PostToolUse', 'PostToolUseFailure'],
  testedVersion: { package: '@qwen-code/qwen-code', version: '0.24.4' },
});
