import { geminiStyleAgent } from './gemini-style';

export const geminiCli = geminiStyleAgent({ id: 'gemini-cli', title: 'Gemini CLI', aliases: ['gemini'], bin: 'gemini', dir: '.gemini', envPrefix: 'GEMINI_TELEMETRY', service: 'gemini-cli', eventPrefix: 'gemini_cli' });
