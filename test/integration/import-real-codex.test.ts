/** `beacon import` of the real codex CLI's own session files beside its OTLP export (see test/helpers/import-real.ts). */
import { describe, it } from 'node:test';
import { otlpThenImport, realImportSkip } from '../helpers/import-real';

describe('codex (real CLI): OTLP, then beacon import of its session store', () => {
  it('every model call once with the mock\'s tokens, the prompt and each tool call once, a re-import adds nothing', { skip: realImportSkip('codex'), timeout: 160_000 }, async () => {
    await otlpThenImport('codex', 'codex', 1);
  });
});
