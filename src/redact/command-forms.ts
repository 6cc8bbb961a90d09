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

/**
 * A quoted or bare word; the command ends at a newline or an unquoted `;`, `|`, `&`. A quote left
 * open, or longer than 1024 characters (forms.ts' MAX_VALUE), is a word to the end of its line, as
 * far: each word costs at most that much, however many times a command's name precedes it.
 */
const WORD = /[ \t]*(?:"((?:[^"\\\n]|\\.){0,1024})"|'([^'\n]{0,1024})'|["']([^\n]{0,1024})|([^\s"';|&<>()]+))/dy;
const MAX_WORDS = 64;

/** The words of the command that starts at `from` (bounded: a command this long is no command). */
function wordsFrom(s: string, from: number): Word[] {
  const words: Word[] = [];
  WORD.lastIndex = from;
  let m: RegExpExecArray | null;
  while (words.length < MAX_WORDS && (m = WORD.exec(s)) !== null) {
    const g = m[1] !== undefined ? 1 : m[2] !== undefined ? 2 : m[3] !== undefined ? 3 : 4;
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
      while ((m = command.exec(s)) !== null) {
        const words = wordsFrom(s, m.index + m[0].length);
        take(words, out);
        // the name again among these words is an argument (`-C 'ssh-keygen key'`), not a command:
        // reading the same words again from each was quadratic (`ssh-keygen:ssh-keygen:…`, 64 KB: ~0.6 s)
        const last = words[words.length - 1];
        if (last && last.end > command.lastIndex) command.lastIndex = last.end;
      }
    },
  };
}

/**
 * The options ssh-keygen's getopt string gives a value (OpenSSH's `C:D:E:F:I:M:N:O:P:R:V:Y:Z:a:b:f:g:m:n:r:s:t:w:z:`,
 * less `g`: the string lists it as a switch first, and getopt takes the first).
 */
const SSH_KEYGEN_WITH_VALUE = new Set('CDEFIMNOPRVYZabfmnrstwz');

/**
 * ssh-keygen's old (`-P`) and new (`-N`) passphrases, read as its getopt reads them: switches may be
 * joined (`-qN new`), and the first letter that takes a value takes the rest of its word (`-Nnew`,
 * `-qNnew`) or else the next word, so `-C '-N x'` is a comment, not a passphrase.
 */
const sshKeygen = commandDetector('ssh-keygen-passphrase', 'ssh-keygen', (args, out) => {
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    if (!/^-[A-Za-z]/.test(w.text)) continue;
    for (let j = 1; j < w.text.length; j++) {
      const letter = w.text[j]!;
      if (!SSH_KEYGEN_WITH_VALUE.has(letter)) continue;
      const value = j + 1 < w.text.length ? { text: w.text.slice(j + 1), start: w.start + j + 1, end: w.end } : args[++i];
      if (letter === 'P' || letter === 'N') push(value, out);
      break;
    }
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
