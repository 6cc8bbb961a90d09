/**
 * An address only this machine can reach: localhost, 127.0.0.0/8, ::1 (brackets allowed). One
 * predicate for the listen address (config/hosts.ts, which holds the other host rules) and for a
 * forward destination (a credential sent there does not cross a network).
 */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}
