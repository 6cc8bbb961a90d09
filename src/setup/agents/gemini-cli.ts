import { geminiStyleAgent } from './gemini-style';

/** Its own hook events (not BeforeModel/AfterModel: a model call is what the OTLP export has, and they fire per chunk). */
export const geminiCli = geminiStyleAgent({
  id: 'gemini-cli', title: 'Gemini CLI', aliases: ['gemini'], bin: 'gemini', dir: '.gemini', envPrefix: 'GEMINI_TELEMETRY', service: 'gemini-cli', eventPrefix: 'gemini_cli',
  hookEvents: ['SessionStart', 'BeforeAgent', 'BeforeTool', 'AfterTool', 'AfterAgent', 'SessionEnd'], toolEvents: ['BeforeTool', 'AfterTool'],
  testedVersion: { package: '@google/gemini-cli', version: '0.61.0' },
});
