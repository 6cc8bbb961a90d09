/** `beacon import` of the real codex CLI's own session files beside its OTLP export (see test/helpers/import-real.ts). */
import { describe, it } from 'node:test';
import { importThenOtlp, otlpThenImport, realImportSkip } from '../helpers/import-real';

describe('codex (real CLI): beacon import of its session store beside its OTLP export', () => {
  it('every model call once with the mock\'s tokens, the prompt and each tool call once, a re-import adds nothing', { skip: realImportSkip('codex'), timeout: 160_000 }, async () => {
    await otlpThenImport('codex', 'codex', 1);
  });

  it('imported first, then its OTLP export: still every call once with the mock\'s tokens', { skip: realImportSkip('codex'), timeout: 160_000 }, async () => {
    await importThenOtlp('codex', 'codex', 1);
  });
});
