/** `beacon import` of the real gemini CLI's own chat files beside its OTLP export (see test/helpers/import-real.ts). */
import { describe, it } from 'node:test';
import { importThenOtlp, otlpThenImport, realImportSkip } from '../helpers/import-real';

// Neither Gemini CLI's store nor its OTLP records carry the mock's response id: the calls meet by
// session and tokens. Its OTLP tool_call log records carry no call id, but its tool spans do
// (`<tool>__<model's id>`, the store's too): the store folds the two (store/log/call-join.ts), so
// each tool call is one row of both paths.
const GEMINI = { responseIds: false } as const;
const TOOL_ROWS = 2;

describe('gemini (real CLI): beacon import of its chat files beside its OTLP export', () => {
  it('every model call once with the mock\'s tokens, the prompt once, a re-import adds nothing', { skip: realImportSkip('gemini'), timeout: 160_000 }, async () => {
    await otlpThenImport('gemini', 'gemini-cli', TOOL_ROWS, GEMINI);
  });

  it('imported first, then its OTLP export: still every call once with the mock\'s tokens', { skip: realImportSkip('gemini'), timeout: 160_000 }, async () => {
    await importThenOtlp('gemini', 'gemini-cli', TOOL_ROWS);
  });
});
