import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import type { TestCerts } from './certs';

export interface RunningRsyslog {
  port: number;
  /** every message received, one line each: `MSGID|STRUCTURED-DATA|MSG` */
  out: string;
  stop(): Promise<void>;
  /** a new rsyslogd on the same port (a receiver restart) */
  restart(): Promise<void>;
  lines(): string[];
}

/**
 * A real rsyslogd (Debian's rsyslog + rsyslog-gnutls), unprivileged, on a loopback port chosen by the
 * kernel, with its own config and work directory: RFC 5425 (TLS, octet counting) with mutual TLS,
 * accepting only client certificates signed by the test CA with the permitted name, writing each
 * message to a file.
 */
export async function startRsyslog(dir: string, certs: TestCerts, permittedPeer = 'beacon-test-client'): Promise<RunningRsyslog> {
  mkdirSync(join(dir, 'work'), { recursive: true });
  const out = join(dir, 'received.log');
  const portFile = join(dir, 'port');
  let port = 0;
  let proc: ChildProcess | undefined;
  const start = async () => {
    const conf = join(dir, 'rsyslog.conf');
    writeFileSync(conf, `
global(workDirectory="${join(dir, 'work')}" maxMessageSize="256k"
       defaultNetstreamDriver="gtls"
       defaultNetstreamDriverCAFile="${certs.ca}"
       defaultNetstreamDriverCertFile="${certs.serverCert}"
       defaultNetstreamDriverKeyFile="${certs.serverKey}")
module(load="imtcp" streamDriver.name="gtls" streamDriver.mode="1" streamDriver.authMode="x509/name"
       permittedPeer=["${permittedPeer}"])
input(type="imtcp" address="127.0.0.1" port="${port}" listenPortFileName="${portFile}")
template(name="beaconLine" type="string" string="%pri%|%msgid%|%structured-data%|%msg%\\n")
action(type="omfile" file="${out}" template="beaconLine")
`);
    writeFileSync(portFile, '');
    const p = spawn(existsSync('/usr/sbin/rsyslogd') ? '/usr/sbin/rsyslogd' : 'rsyslogd', ['-n', '-f', conf, '-i', join(dir, 'rsyslogd.pid')], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    p.stderr!.on('data', (d) => (stderr += d));
    proc = p;
    const deadline = Date.now() + 10_000;
    // rsyslog writes the port file only for port 0; a restart on the known port is probed instead.
    const listening = async () => (port === 0 ? /^\d+/.test(readFileSync(portFile, 'utf8')) : accepts(port));
    while (!(await listening())) {
      if (p.exitCode !== null) throw new Error(`rsyslogd exited: ${stderr}`);
      if (Date.now() > deadline) throw new Error(`rsyslogd did not listen: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    if (port === 0) port = Number(readFileSync(portFile, 'utf8').trim());
  };
  const stop = async () => {
    const p = proc;
    if (!p || p.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      p.once('exit', () => resolve());
      p.kill('SIGTERM');
    });
  };
  await start();
  return {
    get port() {
      return port;
    },
    out,
    stop,
    async restart() {
      await stop();
      await start();
    },
    lines: () => (existsSync(out) ? readFileSync(out, 'utf8').split('\n').filter(Boolean) : []),
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port }, () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
