/**
 * goose's built-in extensions. A tool prefixed with anything else comes from an MCP server: goose
 * names MCP tools `<extension>__<tool>` and nothing else in the call says "MCP".
 */
export const BUILTIN_EXTENSIONS = new Set([
  'analyze', 'apps', 'chatrecall', 'code_execution', 'developer', 'extension manager', 'extensionmanager',
  'orchestrator', 'scheduler', 'skills', 'summarize', 'summon', 'todo', 'tom',
]);

export interface ToolName {
  /** the name as received */
  original: string;
  /** lowercased extension prefix, or null for a bare tool */
  extension: string | null;
  /** lowercased base name used for classification */
  base: string;
  /** the base name as received (case kept), for display */
  baseOriginal: string;
  extensionOriginal: string | null;
  isMcp: boolean;
}

/**
 * `shell`, `developer__shell`, `developer.shell` and `Developer__Shell` are one tool: goose's resolver
 * recovers all of them. `__` splits at its first occurrence, as goose's own dispatch does
 * (`extension_manager.rs`: an MCP tool whose name holds `__` keeps it); `.` only when the prefix is built in
 * (a dotted MCP tool name stays whole).
 */
export function splitToolName(name: string): ToolName {
  const original = name.trim();
  const sep = original.indexOf('__');
  if (sep > 0 && sep < original.length - 2) {
    const extensionOriginal = original.slice(0, sep);
    const extension = extensionOriginal.toLowerCase();
    const baseOriginal = original.slice(sep + 2);
    return { original, extension, base: baseOriginal.toLowerCase(), baseOriginal, extensionOriginal, isMcp: !BUILTIN_EXTENSIONS.has(extension) };
  }
  const parts = original.split('.');
  if (parts.length >= 2) {
    const ext = parts[parts.length - 2]!.toLowerCase();
    if (BUILTIN_EXTENSIONS.has(ext)) {
      const baseOriginal = parts[parts.length - 1]!;
      return { original, extension: ext, base: baseOriginal.toLowerCase(), baseOriginal, extensionOriginal: parts[parts.length - 2]!, isMcp: false };
    }
  }
  return { original, extension: null, base: original.toLowerCase(), baseOriginal: original, extensionOriginal: null, isMcp: false };
}
