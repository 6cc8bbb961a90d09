/** `beacon import` of the real copilot CLI's own session events beside its OTLP export (see test/helpers/import-real.ts). */
import { describe, it } from 'node:test';
import { importThenOtlp, otlpThenImport, realImportSkip } from '../helpers/import-real';

describe('copilot (real CLI): beacon import of its session events beside its OTLP export', () => {
  it('every model call once with the mock\'s tokens, the prompt and each tool call once, a re-import adds nothing', { skip: realImportSkip('copilot'), timeout: 160_000 }, async () => {
    await otlpThenImport('copilot', 'copilot-cli', 2);
  });

  it('imported first, then its OTLP export: still every call once with the mock\'s tokens', { skip: realImportSkip('copilot'), timeout: 160_000 }, async () => {
    await importThenOtlp('copilot', 'copilot-cli', 2);
  });
});
