import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ToolClassification } from '../../src/taxonomy/classify';
import { classifyGooseTool } from '../../src/sources/goose/tools';
import { fragmentDiff, wholeContentDiff } from '../../src/taxonomy/diff';
import { splitToolName } from '../../src/taxonomy/tool-name';
import { harnessToolEvent } from '../../src/sources/goose/stream-tools';

const cls = (name: string, input: unknown = {}, opts = {}) => classifyGooseTool(name, input, opts) as ToolClassification;

describe('goose tool taxonomy', () => {
  it('shell, developer__shell, developer.shell, Developer__Shell and functions.developer.shell classify alike', () => {
    for (const n of ['shell', 'developer__shell', 'developer.shell', 'Developer__Shell', 'functions.developer.shell']) {
      const c = cls(n, { command: 'ls' });
      assert.equal(c.action, 'command.executed', n);
      assert.deepEqual(c.command, { command: 'ls' });
    }
  });

  it('identifies MCP by exclusion: a non-built-in prefix is never a file change', () => {
    const c = cls('github__create_issue', { path: 'x', content: 'y' });
    assert.equal(c.action, 'mcp.tool_invoked');
    assert.deepEqual(c.mcp, { server: 'github', tool: 'create_issue' });
    assert.equal(c.file, undefined);
    assert.equal(cls('github__edit', { path: 'a' }).action, 'mcp.tool_invoked');
    // goose splits at the first `__`: an MCP tool whose own name has one keeps it
    assert.deepEqual(cls('github__create__issue').mcp, { server: 'github', tool: 'create__issue' });
    assert.equal(splitToolName('my.server.tool').isMcp, false);
  });

  it('splits an MCP name at the first `__`, as goose does: the tool keeps its own `__`', () => {
    const c = cls('github__list__issues', {});
    assert.deepEqual(c.mcp, { server: 'github', tool: 'list__issues' });
    const n = splitToolName('my_server__do__thing');
    assert.deepEqual([n.extension, n.baseOriginal, n.isMcp], ['my_server', 'do__thing', true]);
  });

  it('consumes the todo extension', () => {
    assert.deepEqual(classifyGooseTool('todo__todo_write', {}), { consumed: true });
  });

  it('write/edit are file.modified; tree and read_image are file.read; a URL is never a path', () => {
    assert.deepEqual(cls('write', { path: 'a/b.ts', content: 'x' }).file, { path: 'a/b.ts', operation: 'create', language: 'ts' });
    assert.equal(cls('edit', { path: 'a.rs', before: 'a', after: 'b' }).file?.operation, 'modify');
    assert.equal(cls('tree', { path: 'src' }).action, 'file.read');
    assert.equal(cls('read_image', { source: '/tmp/x.png' }).file?.path, '/tmp/x.png');
    const url = cls('read_image', { source: 'https://example.com/x.png' });
    assert.equal(url.action, 'tool.invoked');
    assert.equal(url.file, undefined);
  });

  it('old text_editor by its command', () => {
    assert.equal(cls('developer__text_editor', { command: 'view', path: 'a' }).action, 'file.read');
    assert.equal(cls('developer__text_editor', { command: 'str_replace', path: 'a' }).action, 'file.modified');
    assert.equal(cls('developer__text_editor', { command: 'undo_edit', path: 'a' }).action, 'file.modified');
    assert.equal(cls('developer__text_editor', { command: 'launch', path: 'a' }).action, 'tool.invoked');
  });

  it('load_skill is a known goose tool: a generic tool.invoked, observed; anything else is generic and inferred', () => {
    const skill = cls('load_skill', { name: 'x' });
    assert.equal(skill.action, 'tool.invoked');
    assert.equal(skill.fidelity, 'observed');
    for (const n of ['analyze', 'read', 'grep', 'glob', 'list', 'skill']) {
      const c = cls(n, { path: 'a.txt', pattern: 'x' });
      assert.equal(c.action, 'tool.invoked', n);
      assert.equal(c.fidelity, 'inferred', n);
    }
  });

  it('one goose tool table: the taxonomy and the stream harness events agree on every tool', () => {
    // Beacon action → the harness event types that may stand for it.
    const agrees: Record<string, string[]> = {
      'command.executed': ['command', 'read', 'search', 'list'], // a shell `cat f` is a read to the harness contract
      'file.read': ['read', 'list'], // `tree` lists a directory
      'file.modified': ['write'],
      'mcp.tool_invoked': ['unknown'],
      'tool.invoked': ['unknown', 'skill', 'read', 'list'], // a URL (read_image) or no path (tree) is never a Beacon file.path
    };
    const calls: [string, unknown][] = [
      ['shell', { command: 'make' }], ['shell', { command: 'cat a.txt' }], ['write', { path: 'a', content: 'x' }], ['edit', { path: 'a', before: 'x', after: 'y' }],
      ['tree', { path: 'src' }], ['tree', {}], ['read_image', { source: '/tmp/a.png' }], ['read_image', { source: 'https://x/a.png' }],
      ['load_skill', { name: 'pdf' }], ['load_skill', {}], ['analyze', { path: 'x' }], ['github__create_issue', {}], ['todo__todo_write', {}],
      ...['view', 'read', 'write', 'create', 'overwrite', 'edit', 'str_replace', 'insert', 'undo_edit', 'move', 'rename', 'delete', 'launch'].map(
        (command): [string, unknown] => ['developer__text_editor', { command, path: 'a.py' }],
      ),
      ['read', { path: 'a' }], ['grep', { pattern: 'x' }], ['glob', { pattern: '*' }], ['list', { path: '.' }], ['skill', { name: 's' }],
    ];
    for (const [name, args] of calls) {
      const c = classifyGooseTool(name, args);
      const h = harnessToolEvent(name, args);
      if ('consumed' in c || h === 'consumed') {
        assert.ok('consumed' in c && h === 'consumed', `${name}: consumed by one view only`);
        continue;
      }
      const type = h === 'unknown' ? 'unknown' : h.type;
      assert.ok(agrees[c.action]!.includes(type), `${name} ${JSON.stringify(args)}: taxonomy ${c.action} vs stream ${type}`);
      if (c.action === 'tool.invoked' && type !== 'unknown') assert.equal(c.fidelity, 'observed', `${name}: a tool the stream knows is known to the taxonomy`);
      if (c.fidelity === 'inferred') assert.equal(type, 'unknown', `${name}: a tool the taxonomy does not know is unknown to the stream`);
    }
    assert.equal(cls('developer__text_editor', { command: 'undo_edit', path: 'a' }).action, 'file.modified');
    assert.deepEqual(harnessToolEvent('developer__text_editor', { command: 'undo_edit', path: 'a' }), { type: 'write', path: 'a' });
  });

  it('diffs: fragment for edit, whole content for write, none for a failed or identical edit', () => {
    const edit = cls('edit', { path: 'src/lib.rs', before: 'fn old()\n}', after: 'fn new()\n}' }, { withDiff: true });
    assert.equal(edit.file?.diff, '--- a/lib.rs\n+++ b/lib.rs\n@@ -1,2 +1,2 @@\n-fn old()\n-}\n+fn new()\n+}');
    assert.equal(edit.file?.diff_bytes, Buffer.byteLength(edit.file!.diff!));
    assert.equal(edit.file?.diff_hash?.length, 64);
    assert.equal(cls('edit', { path: 'a', before: 'x', after: 'y' }, { withDiff: true, failed: true }).file?.diff, undefined);
    assert.equal(fragmentDiff('a', 'same', 'same'), undefined);
    assert.equal(wholeContentDiff('dir/new.txt', 'a\nb\n').diff, '--- a/new.txt\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+a\n+b');
  });

  it('diffs count lines as diff and patch do (issue 33): a final newline ends a line, a count of 1 is left out, a missing newline is marked', () => {
    assert.equal(wholeContentDiff('n.txt', 'hello\n').diff, '--- a/n.txt\n+++ b/n.txt\n@@ -0,0 +1 @@\n+hello');
    assert.equal(wholeContentDiff('n.txt', 'hello').diff, '--- a/n.txt\n+++ b/n.txt\n@@ -0,0 +1 @@\n+hello\n\\ No newline at end of file');
    assert.equal(wholeContentDiff('n.txt', '').diff, '--- a/n.txt\n+++ b/n.txt');
    assert.equal(wholeContentDiff('n.txt', '\n').diff, '--- a/n.txt\n+++ b/n.txt\n@@ -0,0 +1 @@\n+');
    assert.equal(fragmentDiff('f.rs', 'old\n', '')!.diff, '--- a/f.rs\n+++ b/f.rs\n@@ -1 +0,0 @@\n-old');
    assert.equal(fragmentDiff('f.rs', 'a', 'b\nc')!.diff, '--- a/f.rs\n+++ b/f.rs\n@@ -1 +1,2 @@\n-a\n+b\n+c');
  });
});
