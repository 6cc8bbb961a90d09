import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KEYWORD_TRIE } from '../../src/redact/keyword-trie';
import { maySecret, prefilterKeywords, trie } from '../../src/redact/secrets';

describe('the secret prefilter precomputed at build (issue 25: the hook start)', () => {
  it('is the trie of the current keywords (else run node scripts/make-keyword-trie.js after a build)', () => {
    const keywords = prefilterKeywords();
    assert.equal(KEYWORD_TRIE.keywords, keywords.join('\n'), 'the rules or detectors changed: regenerate src/redact/keyword-trie.ts');
    assert.equal(KEYWORD_TRIE.source, trie(keywords));
  });

  it('announces every keyword, the longest where one holds another', () => {
    for (const k of prefilterKeywords()) assert.ok(maySecret(`text ${k} text`), k);
    assert.equal(maySecret('nothing to see in this plain sentence'), false);
  });
});
