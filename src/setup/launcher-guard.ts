import { dirname, isAbsolute } from 'node:path';
import { collectorAddressPath } from '../config/collector-address';
import { hookTokenPath } from '../config/hook-token';
import { checkPrivateDir, readChecked } from '../model/file-checks';
import { shellQuote } from '../model/shell-quote';

/**
 * What an agent's hook command trusts before it sources Beacon's launcher: the launcher, its `bin/`
 * and the directory above (`~/.beacon/endpoint`) — the ones `beacon install` checks before it
 * writes the launcher. Each must be the user's and writable by nobody else; with one of them
 * writable by another user, that user can swap or edit the launcher (issue 29 item 2).
 */
function launcherChain(launcher: string): [launcher: string, bin: string, base: string] {
  const bin = dirname(launcher);
  return [launcher, bin, dirname(bin)];
}

/**
 * POSIX sh text, for any agent's `sh -c`, that sources `launcher` only when every path of its chain
 * is the user's (`[ -O ]`, the shell's own stat), is no symlink and is writable by neither group nor
 * others. No sh builtin reads a mode, so one `find` does — one process start per hook, the price of
 * a check another user cannot race (only the owner can change a mode; a swap needs a writable
 * directory, which the same `find` refuses). It fails (runs `false`) on a loose path and fails too
 * when it cannot look (a path gone, no find on the PATH): a doubt refuses.
 * Exit statuses, as the agent reads them: no launcher, 1 (a hook failure, ignored: `[ -r ]`, so
 * dash's exit 2 of `.` on a missing file — a deny to goose — never happens); refused, 0 with empty
 * stdout (the agent's neutral answer) and one line on stderr; otherwise what the launcher does.
 *
 * With the hook's `log`, the same `find` checks what the launcher's fast path trusts (the log's
 * directory, its hook token, the collector's address file: hook-fast-path.ts) when a collector says
 * it runs, and it runs while `cat` reads the payload, kept for the launcher (`$payload`): on a
 * machine with a core to spare the check costs the agent nothing, and neither the token nor the
 * payload leaves before it passed. Without a log: the launcher alone, reading standard input itself
 * (doctor's probe; the form earlier goose installs wrote).
 */
export function sourceLauncherChecked(launcher: string, log?: string): string {
  const chain = launcherChain(launcher).map(shellQuote);
  const owned = chain.map((p) => `[ -O ${p} ]`).join(' && ');
  if (log === undefined || !isAbsolute(log)) {
    const sound = `find ${chain.join(' ')} -prune \\( -type l -o -perm -020 -o -perm -002 \\) -exec false {} + 2>/dev/null`;
    const refusal = shellQuote(`beacon-hooks: ${launcher} not run, nothing recorded: it or a directory above it is a link, another user's or writable by others, or could not be checked (beacon doctor says which)`);
    return `[ -r ${chain[0]} ] && { ${owned} && ${sound} || { printf '%s\\n' ${refusal} >&2; exit 0; }; } && . ${chain[0]}`;
  }
  const [dir, token, address] = fastPathFiles(log).map(shellQuote) as [string, string, string];
  // the log's directory is the launcher's base in every install: checked once
  const files = [...(chain.includes(dir) ? [] : [dir]), token, address];
  // beacon_fast: a collector says it writes this log (its address file and the token are there)
  const present = `beacon_fast= && { [ -e ${address} ] && [ -e ${token} ] && beacon_fast=1; :; }`;
  const filesOwned = `{ [ -z "$beacon_fast" ] || { ${files.map((p) => `[ -O ${p} ]`).join(' && ')}; }; }`;
  const sound = `{ find ${chain.join(' ')} \${beacon_fast:+${files.join(' ')}} -prune \\( -type l -o -perm -020 -o -perm -002 \\) -exec false {} + & } 2>/dev/null`;
  const format = shellQuote(`beacon-hooks: %s not run, nothing recorded: it or a directory above it%s is a link, another user's or writable by others, or could not be checked (beacon doctor says which)\\n`);
  const which = shellQuote(`, or the collector address file or hook token in ${dirname(log)},`);
  return `[ -r ${chain[0]} ] && { ${owned} && ${present} && ${filesOwned} && ${sound} && payload=$(cat 2>/dev/null) && beacon_kept=1 && wait $! || { printf ${format} ${chain[0]} \${beacon_fast:+${which}} >&2; exit 0; }; } && . ${chain[0]}`;
}

/** What the fast path trusts beside a log: its directory, the hook token and the collector's address file (config/hook-token.ts, config/collector-address.ts). */
function fastPathFiles(log: string): [dir: string, token: string, address: string] {
  return [dirname(log), hookTokenPath(log), collectorAddressPath(log)];
}

/**
 * The same checks in Node.js, each refusal one message naming the path and the fix
 * (model/file-checks.ts): what doctor runs before it probes the launcher. Top down, so the fix
 * named is the first one to make. Undefined when the chain is sound or the launcher is missing.
 */
export function launcherChainProblem(launcher: string): string | undefined {
  const [file, bin, base] = launcherChain(launcher);
  try {
    checkPrivateDir(base);
    checkPrivateDir(bin);
    readChecked(file, 1 << 20);
    return undefined;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return (e as Error).message;
  }
}
