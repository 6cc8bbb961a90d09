import assert from 'node:assert/strict';
import { networkInterfaces } from 'node:os';
import { describe, it } from 'node:test';
import pino from 'pino';
import { socketTablesExist } from '../../src/model/socket-owner';
import { SenderCheck } from '../../src/receiver/sender-check';

const OWN_UID = 4242; // not root, not the sender of any socket in the tables: nothing below is anyone's
const check = () => new SenderCheck({ allowOtherUsers: false, logger: pino({ level: 'silent' }) }, OWN_UID);
/** A connection no socket in the tables has (ports 1 and 2): its peer lookup finds nothing. */
const gone = (remote: string, local = remote) => ({ local: { address: local, port: 1 }, remote: { address: remote, port: 2 } });
const refusalOf = (f: () => void) => {
  try {
    f();
    return undefined;
  } catch (e) {
    return e as Error & { code?: string };
  }
};

describe('SenderCheck (issue 29 item 7)', { skip: !socketTablesExist() && 'no /proc/net/tcp{,6}: the check cannot run here' }, () => {
  // Fails on main: a missing verdict let the export through.
  it('admit() refuses a connection that was never looked up: a caller that skipped the lookup lets nothing through', () => {
    const refusal = refusalOf(() => check().admit({}));
    assert.equal(refusal?.code, 'forbidden');
    assert.match(refusal!.message, /did not look up which local user sent this export/);
  });

  // Fails on main: `fe80::…%eth0` was not found among the interfaces' addresses (they carry no zone),
  // so a link-local connection whose peer socket was not found counted as another machine's and was taken.
  it('a link-local peer (its address with a %zone) whose socket is not found is refused, not taken as another machine', async (t) => {
    const linkLocal = Object.entries(networkInterfaces()).flatMap(([name, list]) => (list ?? []).filter((i) => i.family === 'IPv6' && /^fe80:/i.test(i.address)).map((i) => `${i.address}%${name}`))[0];
    if (!linkLocal) return t.skip('no interface here has a link-local IPv6 address');
    const senders = check();
    const key = {};
    await senders.lookUp(key, gone(linkLocal));
    const refusal = refusalOf(() => senders.admit(key));
    assert.equal(refusal?.code, 'forbidden', `${linkLocal} is this machine`);
    assert.match(refusal!.message, /cannot tell which local user sent this export/);
  });

  it('a peer on another machine (an address no interface has) is still taken: there is no local user to name', async () => {
    const senders = check();
    const key = {};
    await senders.lookUp(key, gone('192.0.2.177', '192.0.2.176'));
    assert.equal(refusalOf(() => senders.admit(key)), undefined);
  });
});
