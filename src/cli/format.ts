/** Readable one-line summaries of stored records, for `beacon events`. */
type Rec = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const TABLE_HEADER = ['TIME', 'HARNESS', 'METHOD', 'ACTION', 'SESSION', 'WHAT', 'TOKENS in/out/cache r/w'];

export function summaryRow(r: Rec): string[] {
  const u = r.gen_ai?.usage;
  const tokens = u
    ? [u.input_tokens ?? '-', u.output_tokens ?? '-', u.cache_read?.input_tokens ?? '-', u.cache_creation?.input_tokens ?? '-'].join('/')
    : '';
  return [
    String(r.timestamp ?? '').replace('T', ' ').slice(0, 23),
    r.harness?.name ?? '',
    r.harness?.collection_method ?? '',
    r.event?.action ?? '',
    r.session?.id ?? '',
    what(r),
    tokens,
  ];
}

function what(r: Rec): string {
  if (r.event?.action === 'model.invoked') {
    const provider = r.gen_ai?.provider?.name;
    return [provider, r.model].filter(Boolean).join(' ');
  }
  // goose's security, egress and counter records: their message says what they found
  const call = r.gen_ai?.tool?.call?.id ? `(call ${r.gen_ai.tool.call.id})` : '';
  if (r.network?.destination) return oneLine([r.network.direction, r.network.destination, call].filter(Boolean).join(' '), 60);
  if (r.security) return oneLine([r.approval?.decision ?? r.security.action, r.command?.command ?? r.file?.path ?? r.tool?.name, call].filter(Boolean).join(' '), 60);
  if (r.metric) return oneLine(r.message ?? r.metric.name, 60);
  const s = r.command?.command ?? r.file?.path ?? (r.mcp ? `${r.mcp.server}/${r.mcp.tool}` : undefined) ?? r.tool?.name ?? r.prompt?.text ?? r.message ?? '';
  return oneLine(String(s), 60);
}

function oneLine(s: string, max: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function formatTable(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd()).join('\n');
}
