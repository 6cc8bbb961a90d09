import { gooseToolUse } from './tools';
import { harnessToolFields, type ToolFields } from '../stream-tools';

export { shellEvent, type ToolFields } from '../stream-tools';

/**
 * goose tool call → harness tool event, from the one goose tool table shared with the taxonomy.
 * `consumed` for the todo extension; `unknown` for anything else (MCP tools included).
 */
export function harnessToolEvent(name: string, args: unknown): ToolFields | 'consumed' | 'unknown' {
  return harnessToolFields(gooseToolUse(name, args));
}
