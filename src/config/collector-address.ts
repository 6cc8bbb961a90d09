import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';

/**
 * Where the running collector that writes a log can be reached: one line, its loopback URL, in a
 * file beside the log (`<log>.collector-url`, 0600), written once it listens and removed when it
 * stops. The hook launcher reads it with the shell's own `read`: no file, no collector — the hook
 * goes straight to the direct writer without starting a curl that could only be refused (≈ 10 ms
 * of a fallback hook under load). It also finds a collector started on another port than the one
 * `beacon install goose` knew. A collector killed outright leaves the file: the launcher's curl is
 * then refused at once and it falls back, as before.
 */
export function collectorAddressPath(logPath: string): string {
  return `${logPath}.collector-url`;
}

/**
 * The URL a local hook may use for a collector bound to `host`: loopback or a wildcard address
 * reach it on loopback; a collector bound to one other interface refuses loopback Host names on the
 * hook route anyway, so it gets no file.
 */
export function loopbackUrl(host: string, port: number): string | undefined {
  if (host === '127.0.0.1' || host === 'localhost' || host === '0.0.0.0' || host === '::' || /^127\./.test(host)) return `http://127.0.0.1:${port}`;
  if (host === '::1') return `http://[::1]:${port}`;
  return undefined;
}

/** Written whole or not at all (a launcher never reads half a URL). */
export function writeCollectorAddress(logPath: string, url: string): void {
  const path = collectorAddressPath(logPath);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${url}\n`, { mode: 0o600 });
  renameSync(tmp, path);
}

/** Removes the file if it still names `url` (a second collector on the same log may have replaced it). */
export function removeCollectorAddress(logPath: string, url: string): void {
  const path = collectorAddressPath(logPath);
  try {
    if (readFileSync(path, 'utf8').trim() === url) unlinkSync(path);
  } catch {
    // already gone
  }
}
