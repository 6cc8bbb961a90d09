/**
 * Secrets a command line gives by position or by a one-letter flag no name announces (issue 29
 * item 9): `ssh-keygen -P old -N new`, `htpasswd -b file user PASSWORD`.
 */
import type { Detector } from './forms';
import type { TextRange } from './rule-set';

/** One shell word: its text and where that text is (inside its quotes). */
interface Word {
  text: string;
  start: number;
  end: number;
}

/** A quoted or bare word; the command ends at a newline or an unquoted `;`, `|`, `&`. */
const WORD = /[ \t]*(?:"((?:[^"\\\n]|\\.)*)"|'([^'\n]*)'|([^\s"';|&<>()]+))/dy;
const MAX_WORDS = 64;

/** The words of the command that starts at `from` (bounded: a command this long is no command). */
function wordsFrom(s: string, from: number): Word[] {
  const words: Word[] = [];
  WORD.lastIndex = from;
  let m: RegExpExecArray | null;
  while (words.length < MAX_WORDS && (m = WORD.exec(s)) !== null) {
    const g = m[1] !== undefined ? 1 : m[2] !== undefined ? 2 : 3;
    const [start, end] = m.indices![g]!;
    words.push({ text: m[g]!, start, end });
  }
  return words;
}

/** A value that is the next option (`-P -f key`) is none. */
function push(w: Word | undefined, out: TextRange[]): void {
  if (w && w.end > w.start && !w.text.startsWith('-')) out.push({ start: w.start, end: w.end });
}

/** A detector for one command: `take` gets the words after each time the command's name stands as a word. */
function commandDetector(id: string, name: string, take: (args: Word[], out: TextRange[]) => void): Detector {
  const command = new RegExp(`(?<![\\w-])${name}(?![\\w-])`, 'g');
  return {
    id,
    source: 'beacon',
    keywords: [name],
    find(s, out) {
      command.lastIndex = 0;
      let m: RegExpExecArray | null;
      while ((m = command.exec(s)) !== null) take(wordsFrom(s, m.index + m[0].length), out);
    },
  };
}

/** ssh-keygen's old (`-P`) and new (`-N`) passphrases, as the next word or joined (`-Psecret`). */
const sshKeygen = commandDetector('ssh-keygen-passphrase', 'ssh-keygen', (args, out) => {
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    if (w.text === '-P' || w.text === '-N') push(args[++i], out);
    else if (/^-[PN]./.test(w.text)) push({ text: w.text.slice(2), start: w.start + 2, end: w.end }, out);
  }
});

/**
 * `htpasswd -b[c…] FILE USER PASSWORD`, `htpasswd -nb USER PASSWORD`: with `-b` the password is a
 * positional argument (the third, or the second with `-n`, which prints instead of writing a file).
 */
const HTPASSWD_WITH_VALUE = new Set(['-C', '-r']);
const htpasswd = commandDetector('htpasswd-batch-password', 'htpasswd', (args, out) => {
  let batch = false;
  let noFile = false;
  const positional: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    if (HTPASSWD_WITH_VALUE.has(w.text)) i++;
    else if (/^-[a-zA-Z0-9]+$/.test(w.text) && positional.length === 0) {
      batch ||= w.text.includes('b');
      noFile ||= w.text.includes('n');
    } else positional.push(w);
  }
  if (batch) push(positional[noFile ? 1 : 2], out);
});

export const COMMAND_DETECTORS: readonly Detector[] = [sshKeygen, htpasswd];
