import { configError, tlsFiles, type DestinationBase, type DestinationType, type TlsFiles } from '../destination';

/** RFC 5424 messages over RFC 5425 TLS (or plain TCP when the config says so) to a syslog receiver or SIEM. */
export interface SyslogDestination extends DestinationBase {
  type: 'syslog';
  host: string;
  port: number;
  /** false: plain TCP, only when the config says so */
  tls: TlsFiles | false;
  appName: string;
  /** RFC 5424 facility code (0..23) */
  facility: number;
}

const FACILITIES: Record<string, number> = {
  kern: 0, user: 1, mail: 2, daemon: 3, auth: 4, syslog: 5, lpr: 6, news: 7, uucp: 8, cron: 9, authpriv: 10, ftp: 11,
  ntp: 12, audit: 13, alert: 14, clock: 15, local0: 16, local1: 17, local2: 18, local3: 19, local4: 20, local5: 21, local6: 22, local7: 23,
};

export const syslogDestination: DestinationType<SyslogDestination> = {
  type: 'syslog',
  keys: ['address', 'appName', 'facility'],
  // A batch is one TLS session (its clean close is the acknowledgement), so larger batches amortize the handshake.
  maxBatchRecords: { default: 2000, max: 10_000 },
  parse,
  // Loaded in the forward worker only, like every sender.
  sender: (d) => new (require('../syslog-sender') as typeof import('../syslog-sender')).SyslogSender(d),
};

function parse(d: Record<string, unknown>, base: DestinationBase, where: string, expandPath: (p: string) => string): SyslogDestination {
  const m = typeof d.address === 'string' ? /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(d.address) : null;
  if (!m || Number(m[3]) < 1 || Number(m[3]) > 65535) throw configError(`${where}: "address" must be host:port (RFC 5425's port is 6514)`);
  const appName = d.appName === undefined ? 'beacon' : d.appName;
  if (typeof appName !== 'string' || !/^[!-~]{1,48}$/.test(appName)) throw configError(`${where}: "appName" must be 1-48 printable ASCII characters without spaces (RFC 5424)`);
  let facility = 16; // local0
  if (d.facility !== undefined) {
    if (typeof d.facility === 'string' && d.facility in FACILITIES) facility = FACILITIES[d.facility]!;
    else if (typeof d.facility === 'number' && Number.isInteger(d.facility) && d.facility >= 0 && d.facility <= 23) facility = d.facility;
    else throw configError(`${where}: "facility" must be 0..23 or a name (${Object.keys(FACILITIES).join(', ')})`);
  }
  return { ...base, type: 'syslog', host: m[1] ?? m[2]!, port: Number(m[3]), tls: tlsFiles(d.tls, where, expandPath), appName, facility };
}
