/** Cline wraps the user's text in `<user_input mode="act">…</user_input>` in its messages: the text inside is the prompt. */
export function clinePromptText(text: string): string {
  const m = /^\s*<user_input(?:\s[^>]*)?>([\s\S]*)<\/user_input>\s*$/.exec(text);
  return m ? m[1]! : text;
}
