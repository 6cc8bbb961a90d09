/** `s` as one POSIX shell word: single-quoted, each `'` written `'\''`. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
