/**
 * Answers typed at a password prompt, as a transcript shows them (issue 29 item 9).
 */
import type { Detector } from './forms';

/**
 * A prompt and the answer after it: `Enter passphrase for key '…': X`, `Enter PEM pass phrase: X`,
 * `[sudo] password for alice: X`, `alice@db's password: X`, `Password for 'https://…': X`. The answer
 * is the rest of its line, at most 1024 characters (forms.ts' MAX_VALUE). Only a prompt's form
 * makes one: prose says "the password for alice: see the docs" too (promptForm). Every run is
 * bounded or stops at a character it cannot hold, so a long line costs one pass (the tail
 * `([^\s][^\n]*?)[ \t]*$` this replaced backtracked over a run of spaces: 64 KB, ~15 s).
 */
const PROMPT = /\bpass(?:word|phrase|code|[ \t]phrase)\b(?:[ \t]{0,8}\([^()\n]{0,80}\)|([ \t]{1,8}(?:for|of|again)\b[^\n]{0,200}?))?[ \t]{0,8}:(?!\/\/)/gi;
/** The answer after a prompt: read only once the prompt is one, so prose costs no answer's length. */
const ANSWER = /[ \t]*([^\r\n]{1,1024})/dy;
/** A verb before the prompt's word (`Enter new password:`), sudo's `[sudo] `, or ssh's `alice@host's `. */
const PROMPT_LEAD = /(?:\b(?:enter|re-?enter|retype|repeat|confirm|verify)(?:[ \t]+(?:new|old|current|the|your|pem|same|a))*|\[sudo\]|@[\w.-]{1,64}'s)[ \t]+$/i;
/**
 * The prompt's word first on its line: `New password:`, or with a `for` (`Password for 'https://…':`,
 * psql's `Password for user app:`). A bare `password: x` line is YAML as often: the assignment
 * detector takes its value (and keeps its quotes).
 */
const LINE_LEAD_ADJECTIVE = /^[ \t]*(?:new|old|current)[ \t]+$/i;
const LINE_LEAD = /^[ \t]*$/;
const LEAD_WINDOW = 60;

/** True when the word at `at` is a prompt's, by what precedes it on its line (`withFor`: a `for …` follows it). */
function promptForm(s: string, at: number, withFor: boolean): boolean {
  let from = at;
  while (from > 0 && at - from < LEAD_WINDOW && s[from - 1] !== '\n') from--;
  const before = s.slice(from, at);
  if (PROMPT_LEAD.test(before)) return true;
  if (from > 0 && s[from - 1] !== '\n') return false;
  return LINE_LEAD_ADJECTIVE.test(before) || (withFor && LINE_LEAD.test(before));
}

export const PROMPT_DETECTOR: Detector = {
  id: 'password-prompt-answer',
  source: 'beacon',
  keywords: ['pass'],
  find(s, out) {
    if (!s.includes(':')) return; // every prompt ends with one
    PROMPT.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = PROMPT.exec(s)) !== null) {
      // no prompt: a real one may begin inside this match (`the password for the passphrase: …`)
      if (!promptForm(s, m.index, m[1] !== undefined)) {
        PROMPT.lastIndex = m.index + 1;
        continue;
      }
      ANSWER.lastIndex = PROMPT.lastIndex;
      const a = ANSWER.exec(s);
      if (!a) continue;
      const [start, captured] = a.indices![1]!;
      let end = captured;
      while (end > start && (s[end - 1] === ' ' || s[end - 1] === '\t')) end--;
      if (end > start) out.push({ start, end });
      PROMPT.lastIndex = ANSWER.lastIndex;
    }
  },
};
