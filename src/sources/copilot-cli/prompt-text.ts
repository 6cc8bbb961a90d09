/**
 * Copilot CLI sends the model the user's prompt behind a `<current_datetime>…</current_datetime>`
 * line of its own (its OTLP `gen_ai.input.messages` and the store's `transformedContent` hold that
 * text; its hook and the store's `content` hold the user's). The prompt Beacon records is what the
 * user typed, the same on every path, so one prompt joins across them (issue 33: the wrapper was
 * shown as the prompt).
 */
const WRAPPER = /^<current_datetime>[^<]{0,64}<\/current_datetime>\s*/;

export function userPromptText(sent: string): string {
  return sent.replace(WRAPPER, '');
}
