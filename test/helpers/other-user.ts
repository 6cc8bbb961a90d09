import { spawnSync } from 'node:child_process';
import type { TestContext } from 'node:test';

/** The second, unprivileged local user the shared-machine tests act as: `nobody`, reached with setpriv from root (CI runs as root). */
export const OTHER_UID = 65534;

/**
 * The argv prefix that runs a command as the other user, or undefined with the test skipped and
 * why (not root, or no setpriv).
 */
export function asOtherUser(t: TestContext): string[] | undefined {
  if (process.getuid?.() !== 0) {
    t.skip(`needs root to act as a second user (setpriv --reuid ${OTHER_UID}): run the suite as root, as CI does`);
    return undefined;
  }
  if (spawnSync('setpriv', ['--version']).status !== 0) {
    t.skip('setpriv (util-linux) is not installed: cannot act as a second user');
    return undefined;
  }
  return ['setpriv', `--reuid=${OTHER_UID}`, `--regid=${OTHER_UID}`, '--clear-groups'];
}
