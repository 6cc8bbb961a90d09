/**
 * `beacon doctor --send-test` marks its records by their session id (this prefix, which
 * setup/agents/spec.ts re-exports for every agent's send-test): reports leave those sessions out (token usage, sessions, the
 * dashboard's tokens and lists), `beacon events` still lists them. Here, not in setup, because the
 * store's queries rank below setup.
 */
export const TEST_SESSION_PREFIX = 'beacon-doctor-test-';

/** The session ids with the prefix as a range [lo, hi) an index reads: `-` + 1 is `.`. */
export const TEST_SESSION_RANGE = [TEST_SESSION_PREFIX, `${TEST_SESSION_PREFIX.slice(0, -1)}.`] as const;

export const isTestSession = (id: string | null | undefined) => typeof id === 'string' && id.startsWith(TEST_SESSION_PREFIX);
