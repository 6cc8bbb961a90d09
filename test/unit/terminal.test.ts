import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeControls } from '../../src/model/terminal';

describe('escapeControls', () => {
  it('escapes ESC, BEL, C1 and bidi controls; keeps newlines and tabs only for layout', () => {
    assert.equal(escapeControls('a\u001b[31mb\u0007\u009b\u202e', { layout: true }), 'a\\u001b[31mb\\u0007\\u009b\\u202e');
    assert.equal(escapeControls('one\ntwo\tthree', { layout: true }), 'one\ntwo\tthree');
    assert.equal(escapeControls('one\ntwo\tthree'), 'one\\u000atwo\\u0009three');
    assert.equal(escapeControls('plain ü 😀 text'), 'plain ü 😀 text');
  });
  it('keeps a JSON line the same JSON value', () => {
    const line = JSON.stringify({ t: '\u009b\u202eok\u2066' });
    assert.deepEqual(JSON.parse(escapeControls(line)), { t: '\u009b\u202eok\u2066' });
  });
});
