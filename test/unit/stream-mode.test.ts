import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { streamAdapter } from '../../src/sources/stream-registry';
import { streamModeCommand, withStreamMode } from '../../src/stream/stream-mode';

const mode = (platform: string) => streamAdapter(platform)!.mode;

describe('an agent\'s stream mode: the help text and the wrapper\'s command line', () => {
  it('the help text is the mode itself', () => {
    assert.equal(streamModeCommand(mode('claude-code')), 'claude -p --output-format stream-json --verbose');
    assert.equal(streamModeCommand(mode('codex')), 'codex exec --json');
    assert.equal(streamModeCommand(mode('gemini-cli')), 'gemini -p … --output-format stream-json');
  });

  it('flags go after the agent\'s program, also behind a launcher (node …/gemini.js)', () => {
    assert.deepEqual(withStreamMode(mode('gemini-cli'), ['node', '/opt/gemini/bundle/gemini.js', '--yolo', '-p', 'x'], 'gemini-cli'), ['node', '/opt/gemini/bundle/gemini.js', '--output-format', 'stream-json', '--yolo', '-p', 'x']);
    assert.deepEqual(withStreamMode(mode('opencode'), ['/usr/local/bin/opencode', '-m', 'a/b', 'x'], 'opencode'), ['/usr/local/bin/opencode', 'run', '--format', 'json', '-m', 'a/b', 'x']);
  });

  it('a flag given as --name=value counts; another value is refused', () => {
    assert.deepEqual(withStreamMode(mode('copilot-cli'), ['copilot', '--output-format=json', '-p', 'x'], 'copilot-cli'), ['copilot', '--output-format=json', '-p', 'x']);
    assert.throws(() => withStreamMode(mode('copilot-cli'), ['copilot', '--output-format=text', '-p', 'x'], 'copilot-cli'), /--output-format text/);
    assert.throws(() => withStreamMode(mode('gemini-cli'), ['gemini', '-o', 'json', '-p', 'x'], 'gemini-cli'), /-o|--output-format json/);
  });
});
