import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CODE_TTL_MS, DashboardLogins, ROTATION_GRACE_MS, SESSION_IDLE_MS, SESSION_MAX_MS } from '../../src/dashboard/sessions';

/** The session families of issue 29 item 8, on a clock the test moves. */
function logins() {
  let t = 1_000_000;
  const l = new DashboardLogins('tok', () => t);
  return { l, advance: (ms: number) => (t += ms) };
}

describe('dashboard session families', () => {
  it('a replaced id that comes back after the grace ends the session: the copier\'s id and the owner\'s', () => {
    const { l, advance } = logins();
    const a = l.startSession();
    const thief = l.rotate(a)!; // the copier loads a page first
    advance(ROTATION_GRACE_MS);
    assert.equal(l.check(a).state, 'reused', 'the owner\'s browser still holds the replaced id');
    assert.equal(l.check(thief).state, 'ended');
    assert.equal(l.check(a).state, 'ended');
    assert.equal(l.rotate(thief), undefined, 'an ended session is not renewed');
  });

  it('the same when the copier comes second, and every earlier id of the family counts', () => {
    const { l, advance } = logins();
    const a = l.startSession();
    const b = l.rotate(a)!;
    advance(60_000);
    const c = l.rotate(b)!;
    advance(60_000);
    assert.equal(l.check(a).state, 'reused');
    assert.equal(l.check(c).state, 'ended');
  });

  it('no number of page loads by the copier makes the owner\'s replaced id forgotten', () => {
    const { l, advance } = logins();
    const owners = l.startSession();
    let copier = l.rotate(owners)!;
    for (let i = 0; i < 10_000; i++) copier = l.rotate(copier)!;
    advance(ROTATION_GRACE_MS);
    assert.equal(l.check(owners).state, 'reused');
    assert.equal(l.check(copier).state, 'ended');
  });

  it('a made-up secret for a live session ends it (only a holder of its cookie knows the family); a made-up family is unknown', () => {
    const { l } = logins();
    const id = l.startSession();
    assert.equal(l.check('nodot').state, 'unknown');
    assert.equal(l.check(`x${id}`).state, 'unknown');
    assert.equal(l.check(`${id}x`).state, 'reused');
    assert.equal(l.check(id).state, 'ended');
  });

  it('within the grace a just-replaced id is honoured, and never answered with the current id (two tabs, a request in flight)', () => {
    const { l, advance } = logins();
    const a = l.startSession();
    const b = l.rotate(a)!;
    advance(ROTATION_GRACE_MS - 1);
    assert.deepEqual(l.check(a), { state: 'just-replaced' });
    assert.equal(l.rotate(a), undefined, 'only the current id is replaced');
    const c = l.rotate(b)!;
    assert.deepEqual(l.check(a), { state: 'just-replaced' }, 'each replaced id has its own grace');
    advance(1);
    assert.equal(l.check(b).state, 'just-replaced');
    assert.equal(l.check(c).state, 'current', 'the browser that followed is still signed in');
  });

  it('other sessions are untouched by one session\'s end', () => {
    const { l, advance } = logins();
    const mine = l.startSession();
    const other = l.startSession();
    l.rotate(mine);
    advance(ROTATION_GRACE_MS + 1);
    assert.equal(l.check(mine).state, 'reused');
    assert.equal(l.check(other).state, 'current');
  });

  it('idle and total lifetimes still apply to a family; an unknown id is just unknown', () => {
    const { l, advance } = logins();
    const a = l.startSession();
    advance(SESSION_IDLE_MS);
    assert.equal(l.check(a).state, 'unknown');
    const b = l.startSession();
    let id = b;
    for (let used = 0; used < SESSION_MAX_MS; used += SESSION_IDLE_MS / 2) {
      assert.equal(l.check(id).state, 'current');
      id = l.rotate(id)!;
      advance(SESSION_IDLE_MS / 2);
    }
    assert.equal(l.check(id).state, 'unknown', 'twelve hours in all');
    assert.equal(l.check(b).state, 'unknown', 'an expired family\'s old id ends nothing and says nothing');
    assert.equal(l.check('never-issued').state, 'unknown');
  });

  it('a login code is good once, within its minute, and says when it is no more use', () => {
    const { l, advance } = logins();
    const code = l.issueCode();
    assert.equal(l.codeState(code), 'pending');
    assert.equal(l.redeemCode(code), true);
    assert.equal(l.codeState(code), 'gone');
    assert.equal(l.redeemCode(code), false);
    const late = l.issueCode();
    advance(CODE_TTL_MS);
    assert.equal(l.codeState(late), 'expired');
    assert.equal(l.redeemCode(late), false);
  });
});
