import { geminiStyleAgent } from './gemini-style';

export const qwenCode = geminiStyleAgent({ id: 'qwen-code', title: 'Qwen Code', aliases: ['qwen'], bin: 'qwen', dir: '.qwen', envPrefix: 'QWEN_TELEMETRY', service: 'qwen-code', eventPrefix: 'qwen-code' });
