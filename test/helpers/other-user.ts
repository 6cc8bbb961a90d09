import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import type { TestContext } from 'node:test';

/** The second local user the shared-machine tests act as: `nobody`, reached with setpriv from root (CI runs as root). */
export const ATTACKER = 65534;

/**
 * The argv prefix that runs a command as the second user, or undefined (the test skipped, saying
 * why) where this process cannot become another user.
 */
export function asOtherUser(t: TestContext): string[] | undefined {
  if (process.getuid?.() !== 0) {
    t.skip(`needs root to act as a second user (setpriv --reuid ${ATTACKER}): run the suite as root, as CI does`);
    return undefined;
  }
  if (spawnSync('setpriv', ['--version']).status !== 0) {
    t.skip('setpriv (util-linux) is not installed: cannot act as a second user');
    return undefined;
  }
  return ['setpriv', `--reuid=${ATTACKER}`, `--regid=${ATTACKER}`, '--clear-groups'];
}

/** A shell running as the second user (its stdout returned; it must exit 0), or undefined as asOtherUser. */
export function otherUser(t: TestContext): ((script: string, stdin?: string) => string) | undefined {
  const argv = asOtherUser(t);
  if (!argv) return undefined;
  return (script, stdin) => {
    const r = spawnSync(argv[0]!, [...argv.slice(1), 'sh', '-c', script], { input: stdin, encoding: 'utf8' });
    assert.equal(r.status, 0, `as uid ${ATTACKER}: ${script}: ${r.stderr}`);
    return r.stdout;
  };
}
