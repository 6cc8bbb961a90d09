import { hostname } from 'node:os';

/** RFC 5424 severity for a Beacon severity: informational, notice, warning, error, critical. */
export const SYSLOG_SEVERITY: Record<string, number> = { info: 6, low: 5, medium: 4, high: 3, critical: 2 };

/**
 * The SD-ID. 32473 is the private enterprise number RFC 5612 reserves for documentation and
 * examples; Beacon has no number of its own.
 */
export const SD_ID = 'beacon@32473';

/**
 * Key fields as SD-PARAMs. Names use `_`, never `.`: syslog-ng's `${SDATA}` splits parameter names on
 * dots (dashboard-and-fleet-facts.md B5), and SIEM parsers do the same.
 */
const SD_FIELDS: [string, (r: Rec) => unknown][] = [
  ['event_id', (r) => r.event?.id],
  ['action', (r) => r.event?.action],
  ['category', (r) => r.event?.category],
  ['severity', (r) => r.severity],
  ['harness', (r) => r.harness?.name],
  ['collection_method', (r) => r.harness?.collection_method],
  ['session_id', (r) => r.session?.id],
  ['trace_id', (r) => r.trace?.id],
  ['span_id', (r) => r.trace?.span_id],
  ['tool_name', (r) => r.tool?.name ?? r.gen_ai?.tool?.name],
  ['model', (r) => r.model],
  ['provider', (r) => r.gen_ai?.provider?.name],
];

type Rec = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const BOM = '\uFEFF';

/**
 * One RFC 5424 message for a stored event, framed with RFC 6587 octet counting (`MSG-LEN SP MSG`,
 * the framing RFC 5425 mandates over TLS):
 * `<PRI>1 TIMESTAMP HOSTNAME APP-NAME - MSGID [beacon@32473 …] BOM{Beacon JSON}`.
 */
export function syslogFrame(record: string, tsNs: bigint, opts: { appName: string; facility: number }): Buffer {
  const r = JSON.parse(record) as Rec;
  const pri = opts.facility * 8 + (SYSLOG_SEVERITY[r.severity] ?? 6);
  const host = headerField(r.endpoint?.hostname ?? hostname(), 255);
  const msgid = headerField(r.event?.action, 32);
  const params = SD_FIELDS.flatMap(([name, get]) => {
    const v = get(r);
    return v === undefined || v === null || v === '' ? [] : [` ${name}="${sdValue(String(v))}"`];
  });
  const msg = Buffer.from(`<${pri}>1 ${timestamp(tsNs)} ${host} ${opts.appName} - ${msgid} [${SD_ID}${params.join('')}] ${BOM}${record}`, 'utf8');
  return Buffer.concat([Buffer.from(`${msg.length} `, 'ascii'), msg]);
}

/** RFC 3339 with microseconds (RFC 5424 allows at most 6 fractional digits), UTC. */
export function timestamp(tsNs: bigint): string {
  const ms = Number(tsNs / 1_000_000n);
  const d = new Date(Number.isFinite(ms) && ms >= 0 && ms < 253402300800000 ? ms : 0);
  const micros = String((tsNs % 1_000_000_000n) / 1000n).padStart(6, '0');
  return `${d.toISOString().slice(0, 19)}.${tsNs >= 0n ? micros : '000000'}Z`;
}

/** A header field: printable US-ASCII without spaces, at most `max` characters, `-` when empty. */
function headerField(v: unknown, max: number): string {
  const s = typeof v === 'string' ? v.replace(/[^!-~]/g, '').slice(0, max) : '';
  return s || '-';
}

/** An SD-PARAM value: `"`, `\` and `]` escaped (RFC 5424 §6.3.3); control characters replaced, length bounded. */
export function sdValue(v: string): string {
  return v.slice(0, 512).replace(/[\x00-\x1f\x7f]/g, ' ').replace(/["\\\]]/g, (c) => `\\${c}`);
}
