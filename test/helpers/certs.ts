import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestCerts {
  dir: string;
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** a client certificate from another CA: the receiver must refuse it */
  strangerCert: string;
  strangerKey: string;
}

/** A throwaway CA, a server certificate for 127.0.0.1/localhost and client certificates, made with openssl. */
export function makeCerts(dir: string, clientName = 'beacon-test-client'): TestCerts {
  const p = (n: string) => join(dir, n);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const key = (name: string) => ssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', p(name));
  const sign = (name: string, cn: string, ext: string, caName: string) => {
    key(`${name}.key`);
    ssl('req', '-new', '-key', p(`${name}.key`), '-subj', `/CN=${cn}`, '-out', p(`${name}.csr`));
    writeFileSync(p(`${name}.ext`), ext);
    ssl('x509', '-req', '-in', p(`${name}.csr`), '-CA', p(`${caName}.pem`), '-CAkey', p(`${caName}.key`), '-CAcreateserial', '-days', '2', '-extfile', p(`${name}.ext`), '-out', p(`${name}.pem`));
  };
  for (const ca of ['ca', 'stranger-ca']) {
    key(`${ca}.key`);
    ssl('req', '-x509', '-new', '-key', p(`${ca}.key`), '-subj', `/CN=Beacon test ${ca}`, '-days', '2', '-out', p(`${ca}.pem`));
  }
  sign('server', 'localhost', 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n', 'ca');
  sign('client', clientName, `subjectAltName=DNS:${clientName}\nextendedKeyUsage=clientAuth\n`, 'ca');
  sign('stranger', clientName, `subjectAltName=DNS:${clientName}\nextendedKeyUsage=clientAuth\n`, 'stranger-ca');
  return {
    dir, ca: p('ca.pem'), serverCert: p('server.pem'), serverKey: p('server.key'), clientCert: p('client.pem'), clientKey: p('client.key'),
    strangerCert: p('stranger.pem'), strangerKey: p('stranger.key'),
  };
}
