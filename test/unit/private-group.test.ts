/**
 * Issue 29 item 3 (review): a group-writable directory counts as the user's only when its group is
 * the user's alone. The first rule read only the first /etc/group line with the gid and its member
 * list: another account whose primary group it is, or a second line with the same gid, went unseen.
 * The rule's inputs are text here, so each case is fed as a machine would have it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { whyGroupIsShared, type Accounts } from '../../src/model/private-group';

const ALICE = { name: 'alice', uid: 1000, gid: 1000 };
const LOCAL = 'passwd: files\ngroup: files\n';
const PASSWD = 'root:x:0:0:root:/root:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/bash\n';
const GROUP = 'root:x:0:\nalice:x:1000:\n';
const judge = (over: Partial<Accounts>, gid = 1000) => whyGroupIsShared(gid, ALICE, { passwd: PASSWD, group: GROUP, nsswitch: LOCAL, ...over });

describe('whyGroupIsShared: a private group is one nobody else is in', () => {
  it('alice\'s own group, named after her, no other member, local files only: hers alone', () => {
    assert.equal(judge({}), undefined);
    assert.equal(judge({ group: `${GROUP}alice:x:1000:alice\n` }), undefined, 'listing herself is no one else');
    assert.equal(judge({ nsswitch: 'passwd:         files systemd\ngroup:          files [SUCCESS=merge] systemd\n' }), undefined, "Debian's default");
  });

  // The reviewer's case: bob (uid 1001) has alice's group as his primary group; /etc/group lists no member.
  it('another account whose primary group it is: shared, naming it', () => {
    assert.equal(judge({ passwd: `${PASSWD}bob:x:1001:1000::/home/bob:/bin/sh\n` }), 'gid 1000 is also the primary group of bob');
  });

  it('a second group entry with the same gid that lists someone, or that has another name: shared', () => {
    assert.equal(judge({ group: `${GROUP}alice:x:1000:bob\n` }), 'the group database lists bob in gid 1000');
    assert.match(judge({ group: `${GROUP}devs:x:1000:\n` }) ?? '', /^gid 1000 is named devs, not after you \(alice\)/);
  });

  it('a member listed by another name of alice\'s own uid is alice', () => {
    assert.equal(judge({ passwd: `${PASSWD}alice2:x:1000:1000::/home/alice:/bin/bash\n`, group: 'alice:x:1000:alice2\n' }), undefined);
  });

  it('accounts from a source that cannot be listed in full (sssd, LDAP), or no source named: not trusted', () => {
    assert.match(judge({ nsswitch: 'passwd: files sss\ngroup: files sss\n' }) ?? '', /accounts may come from sss \(nsswitch.conf passwd\)/);
    assert.match(judge({ nsswitch: 'passwd: files\ngroup: files ldap\n' }) ?? '', /ldap \(nsswitch.conf group\)/);
    assert.match(judge({ nsswitch: '# nothing\n' }) ?? '', /nsswitch.conf names no source for passwd/);
  });

  it('not her primary group, or a gid no entry has: not hers', () => {
    assert.equal(judge({}, 0), 'gid 0 is not your primary group');
    assert.equal(judge({ group: 'root:x:0:\n' }), 'no group entry has gid 1000');
  });
});
