/** `beacon import` of the real qwen CLI's own chat files beside its OTLP export (see test/helpers/import-real.ts). */
import { describe, it } from 'node:test';
import { importThenOtlp, otlpThenImport, realImportSkip } from '../helpers/import-real';

// Qwen Code's store copies each api_response event with its response id, which its OTLP record has too: one event id.
describe('qwen (real CLI): beacon import of its chat files beside its OTLP export', () => {
  it('every model call once with the mock\'s tokens, the prompt and each tool call once, a re-import adds nothing', { skip: realImportSkip('qwen'), timeout: 160_000 }, async () => {
    await otlpThenImport('qwen', 'qwen-code', 2, { join: 'same-id' });
  });

  it('imported first, then its OTLP export: still every call once with the mock\'s tokens', { skip: realImportSkip('qwen'), timeout: 160_000 }, async () => {
    await importThenOtlp('qwen', 'qwen-code', 2);
  });
});
