/**
 * Issue 33: `beacon install` keeps every byte it does not own. A compact settings file stays
 * compact and a neighbouring one-line object stays on its line (jsonc-parser formats whole lines
 * around an edit: both were expanded before); a settings file that is not UTF-8 is refused before
 * anything is written (a lenient decode wrote U+FFFD in place of the byte, and uninstall then
 * could not restore the file). Each case ends with uninstall restoring the original bytes.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { CLEAN, HOOK_CASES, put } from '../helpers/agent-hook-cases';
import { beaconIn, fakeHome } from '../helpers/fake-home';

const COMPACT = '{"theme": "dark", "permissions": {"allow": ["Bash(ls)"]}}\n';
const NEIGHBOUR = '{\n  "theme": "dark",\n  "permissions": {"allow": ["Bash(ls)"]}\n}\n';

function installed(agent: string, file: (h: ReturnType<typeof fakeHome>) => string, original: string | Buffer) {
  const h = fakeHome(CLEAN);
  const path = file(h);
  put(path, Buffer.from(original));
  const r = beaconIn(h, ['install', agent]);
  return { h, path, r, text: readFileSync(path, 'utf8'), bytes: readFileSync(path) };
}

describe('beacon install keeps the bytes of settings files it does not own', () => {
  for (const c of HOOK_CASES) {
    it(`${c.agent}: a compact file stays one line, its bytes a prefix of the result; uninstall restores it`, () => {
      const { h, path, r, text } = installed(c.agent, c.file, COMPACT);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(text.trimEnd().split('\n').length, 1, `one line:\n${text.slice(0, 400)}`);
      assert.ok(text.startsWith(COMPACT.trimEnd().slice(0, -1)), `the user's bytes first, unchanged:\n${text.slice(0, 200)}`);
      assert.ok(JSON.parse(text).hooks, "Beacon's hooks added");
      assert.equal(beaconIn(h, ['uninstall', c.agent]).status, 0);
      assert.equal(readFileSync(path, 'utf8'), COMPACT);
    });

    it(`${c.agent}: a one-line object beside Beacon's insertion stays on its line`, () => {
      const { h, path, r, text } = installed(c.agent, c.file, NEIGHBOUR);
      assert.equal(r.status, 0, r.stderr);
      assert.ok(text.startsWith('{\n  "theme": "dark",\n  "permissions": {"allow": ["Bash(ls)"]},\n  "'), text.slice(0, 300));
      assert.equal(beaconIn(h, ['uninstall', c.agent]).status, 0);
      assert.equal(readFileSync(path, 'utf8'), NEIGHBOUR);
    });
  }

  it('codex: a config.toml holding a byte that is not UTF-8 is refused, and nothing is written', () => {
    const toml = Buffer.concat([Buffer.from('model = "gpt"\n# caf'), Buffer.from([0xe9]), Buffer.from('\n')]);
    const codexToml = HOOK_CASES.find((c) => c.agent === 'codex')!;
    const h = fakeHome(CLEAN);
    const path = `${h.home}/.codex/config.toml`;
    put(path, toml);
    const r = beaconIn(h, ['install', 'codex']);
    assert.notEqual(r.status, 0, r.stdout);
    assert.match(r.stderr, /config\.toml is not UTF-8 text.*Nothing was changed/);
    assert.deepEqual(readFileSync(path), toml, 'the file untouched');
    assert.throws(() => readFileSync(codexToml.file(h)), /ENOENT/, 'no hooks file written either');
  });
});
