/** `beacon import` of the real claude CLI's own session files beside its OTLP export (see test/helpers/import-real.ts). */
import { describe, it } from 'node:test';
import { otlpThenImport, realImportSkip } from '../helpers/import-real';

describe('claude (real CLI): OTLP, then beacon import of its session store', () => {
  it('every model call once with the mock\'s tokens, the prompt and each tool call once, a re-import adds nothing', { skip: realImportSkip('claude'), timeout: 160_000 }, async () => {
    await otlpThenImport('claude', 'claude-code', 2);
  });
});
