import { SEMCONV_USAGE } from '../../model/usage';
import type { Agent } from '../agent-events';
import { classifyClineTool } from './tools';

/**
 * Cline CLI: no OTLP Beacon can receive (its export goes to Cline's own endpoint, or to the one an
 * organisation's remote config names: docs/agents/cline-facts.md). Its hooks, its `--json` stream
 * and its session store are read. Usage per model call: input includes the cache read (the
 * OpenAI-compatible API's prompt tokens), output includes reasoning (never reported apart).
 */
export const AGENT: Agent = { harness: 'cline', usage: SEMCONV_USAGE, classifyTool: classifyClineTool };
