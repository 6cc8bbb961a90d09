/* eslint-disable @typescript-eslint/no-explicit-any */
import { html, type Html } from '../html';

/** A one-line account of an event for tables: the command, path, prompt, model or message it is about. */
export function summarize(action: string, r: Record<string, any>): Html {
  const clip = (s: unknown, n = 160) => {
    const t = String(s);
    return t.length > n ? `${t.slice(0, n)}…` : t;
  };
  if (r.command?.command !== undefined) {
    const exit = r.command.exit_code;
    return html`<code>${clip(r.command.command)}</code>${typeof exit === 'number' ? html` <span class="badge ${exit === 0 ? 'ok' : 'bad'}">exit ${exit}</span>` : ''}`;
  }
  if (r.file?.path !== undefined) return html`${r.file.operation ?? 'file'} <code>${clip(r.file.path)}</code>`;
  if (r.prompt?.text !== undefined) return html`“${clip(r.prompt.text)}”`;
  if (action === 'model.invoked') {
    const u = r.gen_ai?.usage ?? {};
    return html`${r.model ?? 'model'} · ${u.input_tokens ?? 0} in / ${u.output_tokens ?? 0} out`;
  }
  if (r.mcp?.server !== undefined || r.mcp?.tool !== undefined) return html`MCP ${r.mcp.server ?? ''} · ${r.mcp.tool ?? ''}`;
  if (r.approval?.decision !== undefined) return html`${r.approval.decision}: ${clip(r.approval.reason ?? '')}`;
  const tool = r.gen_ai?.tool?.name ?? r.tool?.name;
  if (tool !== undefined) return html`tool <code>${clip(tool)}</code>`;
  return html`${clip(r.message ?? '')}`;
}

