/**
 * Response headers of every dashboard response. Scripts and styles only from this origin, no inline
 * code, nothing from another origin, no framing, no referrer; no `upgrade-insecure-requests` (it
 * makes Safari fetch http://localhost subresources over HTTPS, which a loopback collector lacks).
 * No CORS header is ever sent, so another origin's page cannot read a response.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};
