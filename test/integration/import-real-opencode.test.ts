/** `beacon import` of the real opencode's own database beside its OTLP export (see test/helpers/import-real.ts). */
import { describe, it } from 'node:test';
import { importThenOtlp, otlpThenImport, realImportSkip } from '../helpers/import-real';

// opencode keeps no record of its title side call: only its OTLP export counts that one
const FACTS = { database: true, storeLacksSide: true } as const;

describe('opencode (real CLI): beacon import of its database beside its OTLP export', () => {
  it("every model call once with the mock's tokens, the prompt and each tool call once, a re-import adds nothing", { skip: realImportSkip('opencode'), timeout: 160_000 }, async () => {
    await otlpThenImport('opencode', 'opencode', 2, FACTS);
  });

  it("imported first, then its OTLP export: still every call once with the mock's tokens", { skip: realImportSkip('opencode'), timeout: 160_000 }, async () => {
    await importThenOtlp('opencode', 'opencode', 2, FACTS);
  });
});
