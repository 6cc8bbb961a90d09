import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sanitizeRecord } from '../../src/redact/sanitize';
import { redactString } from '../../src/redact/secrets';
import type { BeaconRecord } from '../../src/model/record';
import { leaks, NEAR_MISSES, SECRET_SHAPES, STRUCTURED_SHAPES } from '../helpers/secret-corpus';

function record(extra: Partial<BeaconRecord>): BeaconRecord {
  return {
    timestamp: '2026-08-21T08:30:00.000000000Z', vendor: 'beacon', product: 'endpoint-agent', schema_version: '1.0',
    event: { kind: 'agent_runtime', action: 'command.executed', category: 'command', id: 'x' },
    severity: 'info', endpoint: { os: 'linux' }, harness: { name: 'goose', collection_method: 'hook' }, ...extra,
  };
}

describe('redaction corpus, string by string', () => {
  it(`has at least 40 secret shapes and 20 near misses (${SECRET_SHAPES.length}, ${NEAR_MISSES.length})`, () => {
    assert.ok(SECRET_SHAPES.length >= 40);
    assert.ok(NEAR_MISSES.length >= 20);
  });
  for (const s of SECRET_SHAPES) {
    it(`redacts ${s.name}`, () => {
      const out = redactString(s.text);
      assert.deepEqual(leaks(out, [s]), [], out);
      assert.ok(out.includes('[REDACTED]'));
    });
  }
  for (const n of NEAR_MISSES) it(`keeps ${n.name}`, () => assert.equal(redactString(n.text), n.text));

  it('replaces only the value: what follows stays', () => {
    assert.equal(redactString('echo token=abc123; ls'), 'echo token=[REDACTED]; ls');
    assert.equal(redactString('curl -u bob:pw12345 https://x && echo done'), 'curl -u bob:[REDACTED] https://x && echo done');
    assert.equal(redactString('{"password": "hunter22", "user": "bob"}'), '{"password": "[REDACTED]", "user": "bob"}');
  });

  // issue 29 item 9: each form takes the value only, and the shapes' look-alikes stay whole
  const exact: [string, string][] = [
    ["ssh-keygen -p -f k -P old1pass -N 'new pass 2' -q", "ssh-keygen -p -f k -P [REDACTED] -N '[REDACTED]' -q"],
    ['ssh-keygen -t ed25519 -Nn3wpass99 -f k', 'ssh-keygen -t ed25519 -N[REDACTED] -f k'],
    ["ssh-keygen -t ed25519 -N '' -f k", "ssh-keygen -t ed25519 -N '' -f k"],
    ['htpasswd -bB -C 10 .htpasswd alice S3cretPw9 && nginx -s reload', 'htpasswd -bB -C 10 .htpasswd alice [REDACTED] && nginx -s reload'],
    ['htpasswd -nb alice S3cretPw9', 'htpasswd -nb alice [REDACTED]'],
    ['htpasswd -D .htpasswd alice', 'htpasswd -D .htpasswd alice'],
    ["Enter passphrase for key '/k': two words\nIdentity added", "Enter passphrase for key '/k': [REDACTED]\nIdentity added"],
    ['[sudo] password for alice: hunter2x', '[sudo] password for alice: [REDACTED]'],
    ['Enter PEM pass phrase: p3m-phrase', 'Enter PEM pass phrase: [REDACTED]'],
    ['https://u:a:b/c@host.dev:8443/x?q=1', 'https://u:[REDACTED]@host.dev:8443/x?q=1'],
    // the password runs to the last `@` a host follows: an `@` in the path as well costs the host, never the password
    ['https://u:p@host.dev/x@y', 'https://u:[REDACTED]@y'],
    ['npm i https://registry.acme.dev:8443/pkg@1.2.3', 'npm i https://registry.acme.dev:8443/pkg@1.2.3'],
    ['- name: DB_PASSWORD\n  value: "hunter2x"\n- name: PORT\n  value: "80"', '- name: DB_PASSWORD\n  value: "[REDACTED]"\n- name: PORT\n  value: "80"'],
    ['{\\"name\\":\\"API_TOKEN\\",\\"value\\":\\"t0ken99\\"}', '{\\"name\\":\\"API_TOKEN\\",\\"value\\":\\"[REDACTED]\\"}'],
    ['{"name": "tokens", "value": 512}', '{"name": "tokens", "value": 512}'],
    ["requests.get(u, headers=[('Authorization', 'Bearer abc123def456')])", "requests.get(u, headers=[('Authorization', 'Bearer [REDACTED]')])"],
    ['os.environ.get("DB_PASSWORD", "postgres")', 'os.environ.get("DB_PASSWORD", "postgres")'],
    ['["gpg", "--passphrase", "s3cret99", "-d"]', '["gpg", "--passphrase", "[REDACTED]", "-d"]'],
    ['["gh", "repo", "create", "--private", "acme"]', '["gh", "repo", "create", "--private", "acme"]'],
    ['plink -pw hunter2x host', 'plink -pw [REDACTED] host'],
    // issue 29's review: ssh-keygen's flags as its getopt reads them
    ['ssh-keygen -qN s3cr3tPass -f k', 'ssh-keygen -qN [REDACTED] -f k'],
    ['ssh-keygen -qNs3cr3tPass -f k', 'ssh-keygen -qN[REDACTED] -f k'],
    ["ssh-keygen -C '-N is not a passphrase here' -f k", "ssh-keygen -C '-N is not a passphrase here' -f k"],
    // a name/value entry, value first
    ['{"value":"S3cr3tPw9","name":"DB_PASSWORD"}', '{"value":"[REDACTED]","name":"DB_PASSWORD"}'],
    ['{"value": "db.local", "name": "DB_HOST"}', '{"value": "db.local", "name": "DB_HOST"}'],
    // a URL's authority may end a sentence, or be an IPv6 address
    ['see https://u:S3cr3tPw@git.example.com.', 'see https://u:[REDACTED]@git.example.com.'],
    ['DSN is postgres://app:S3cr3tPw@db.internal:', 'DSN is postgres://app:[REDACTED]@db.internal:'],
    ['http://u:S3cr3tPw@[::1]:8080/', 'http://u:[REDACTED]@[::1]:8080/'],
    ['npm i https://registry.acme.dev:8443/pkg@1.2.3.', 'npm i https://registry.acme.dev:8443/pkg@1.2.3.'],
    // prompts by their form; prose that says "password for X:" is none
    ["Password for 'https://alice@github.com': hunter2x", "Password for 'https://alice@github.com': [REDACTED]"],
    ['Enter passphrase (empty for no passphrase): hunter2x', 'Enter passphrase (empty for no passphrase): [REDACTED]'],
    ['Reset the password for alice: x. Enter password: hunter2x', 'Reset the password for alice: x. Enter password: [REDACTED]'],
    [`Enter password: hunter2x${' '.repeat(2000)}`, `Enter password: [REDACTED]${' '.repeat(2000)}`],
    // an unquoted value is redacted whole, however long (only scanned once)
    [`token=${'a1B2'.repeat(500)} done`, 'token=[REDACTED] done'],
  ];
  for (const [input, expected] of exact) it(`takes only the value: ${JSON.stringify(input)}`, () => assert.equal(redactString(input), expected));
});

describe('redaction corpus, in records', () => {
  it('redacts secret-named keys at any depth of parsed JSON, and numbers under them', () => {
    const r = record({
      gen_ai: { tool: { call: { arguments: { env: { API_KEY: 'abcd1234efgh', PATH: '/usr/bin' }, db: { password: 123456, port: 5432 }, credentials: { user: 'ci', secret: ['x1y2z3w4v5'] } } } } },
    });
    sanitizeRecord(r);
    assert.deepEqual(r.gen_ai!.tool!.call!.arguments, { env: { API_KEY: '[REDACTED]', PATH: '/usr/bin' }, db: { password: '[REDACTED]', port: 5432 }, credentials: { user: '[REDACTED]', secret: ['[REDACTED]'] } });
  });

  it('redacts before it cuts: no prefix of a secret survives the 4096-byte limit', () => {
    const token = SECRET_SHAPES.find((s) => s.name === 'github classic pat')!.secrets[0]!;
    for (const pad of [4096 - 15 - 10, 4096 - 15 - 30, 2048 - 15 - 8]) {
      const cmd = `${'x'.repeat(pad)} ${token} tail`;
      const r = record({ command: { command: cmd }, raw: { cmd } });
      const { json } = sanitizeRecord(r, 'command.command');
      assert.deepEqual(leaks(json, [{ name: 'pat', text: '', secrets: [token.slice(0, 12)] }]), [], `pad ${pad}`);
      assert.ok(!json.includes(token.slice(0, 8)), `pad ${pad}: a prefix of the token was kept`);
    }
  });

  it('a string far over its limit is redacted over a window and still marked cut', () => {
    const big = `${'y'.repeat(4000)} password=${'z'.repeat(20)} ${'w'.repeat(50_000)}`;
    const r = record({ message: big });
    sanitizeRecord(r);
    assert.ok(!r.message!.includes('zzzzzzzz'));
    assert.ok(r.message!.endsWith('...[truncated]'));
    assert.ok(Buffer.byteLength(r.message!) <= 4096);
  });

  it('content and diff hashes are of the redacted text: a guessed secret cannot be confirmed', () => {
    const { createHash } = require('node:crypto') as typeof import('node:crypto');
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    const cmd = 'export DB_PASSWORD=hunter2hunter2 && ./migrate';
    const r = record({ command: { command: cmd } });
    sanitizeRecord(r, 'command.command');
    assert.notEqual(r.content!.hash, sha(cmd));
    assert.equal(r.content!.hash, sha('export DB_PASSWORD=[REDACTED] && ./migrate'));
    assert.equal(r.content!.redacted, true);
    assert.equal(r.content!.bytes, Buffer.byteLength(cmd));

    const diff = '--- a/.env\n+++ b/.env\n@@ -1,1 +1,1 @@\n-API_TOKEN=old0ld0ld0\n+API_TOKEN=new1new1new1';
    const e = record({ file: { path: '/w/.env', diff, diff_hash: sha(diff) } });
    sanitizeRecord(e, 'file.diff');
    assert.equal(e.file!.diff, '--- a/.env\n+++ b/.env\n@@ -1,1 +1,1 @@\n-API_TOKEN=[REDACTED]\n+API_TOKEN=[REDACTED]');
    assert.equal(e.file!.diff_hash, sha(e.file!.diff!));
    assert.equal(e.content!.hash, e.file!.diff_hash);
  });

  it('the same command hashes alike on every machine (what a SIEM can still correlate)', () => {
    const a = record({ command: { command: 'curl -u ci:abc12345 https://x' } });
    const b = record({ command: { command: 'curl -u ci:zzz99999 https://x' } });
    sanitizeRecord(a, 'command.command');
    sanitizeRecord(b, 'command.command');
    assert.equal(a.content!.hash, b.content!.hash);
  });

  it('hostile huge content is redacted over its first 64 Ki characters, hashed as stored, marked cut', () => {
    const { createHash } = require('node:crypto') as typeof import('node:crypto');
    const text = `token=${'q'.repeat(30)} ${'pass: '.repeat(200_000)}`;
    const r = record({ prompt: { text } });
    sanitizeRecord(r, 'prompt.text');
    assert.ok(!r.prompt!.text!.includes('qqqqqqqq'));
    assert.equal(r.content!.truncated, true);
    assert.equal(r.content!.bytes, text.length);
    assert.equal(r.content!.hash!.length, 64);
    assert.notEqual(r.content!.hash, createHash('sha256').update(text).digest('hex'));
  });

  it('identifiers and paths are not redacted but still limited; a cut without a secret is not "redacted"', () => {
    const r = record({ session: { id: `token=${'s'.repeat(5000)}` }, tool: { path: `/p/${'d'.repeat(3000)}` }, prompt: { text: 'w'.repeat(90_000) } });
    sanitizeRecord(r, 'prompt.text');
    assert.ok(r.session!.id!.startsWith('token=sss') && Buffer.byteLength(r.session!.id!) <= 4096);
    assert.ok(Buffer.byteLength(r.tool!.path!) <= 2048);
    assert.equal(r.content!.truncated, true);
    assert.equal(r.content!.redacted, undefined);
  });

  // issue 22 item 9: each leaked verbatim before (the shapes in STRUCTURED_SHAPES, the fields below)
  for (const shape of STRUCTURED_SHAPES) {
    it(`redacts structured arguments: ${shape.name}`, () => {
      const r = record({ gen_ai: { tool: { call: { arguments: structuredClone(shape.value) } } } });
      const { json } = sanitizeRecord(r);
      assert.deepEqual(leaks(json, [{ name: shape.name, text: '', secrets: shape.secrets }]), [], json);
    });
  }

  it('keeps look-alikes of name/value entries, header pairs and argv lists in parsed JSON (issue 29 item 9)', () => {
    const args = {
      env: [{ name: 'DB_HOST', value: 'db.local' }, { name: 'tokens', value: 512 }],
      required: ['password', 'username'],
      argv: ['ssh-keygen', '-t', 'ed25519', '-N', '', '-f', 'k'],
      switches: ['gh', 'repo', 'create', '--private', 'acme'],
      headers: [['Accept', 'application/json']],
      tags: [{ Key: 'auth-mode', Value: 'oidc' }],
    };
    const r = record({ gen_ai: { tool: { call: { arguments: structuredClone(args) } } } });
    sanitizeRecord(r);
    assert.deepEqual(r.gen_ai!.tool!.call!.arguments, args);
  });

  it('keeps counts under plural names and flags under secret-looking names', () => {
    const args = { tokens: 512, max_tokens: 1024, private: true, pin: null };
    const r = record({ gen_ai: { tool: { call: { arguments: structuredClone(args) } } } });
    sanitizeRecord(r);
    assert.deepEqual(r.gen_ai!.tool!.call!.arguments, args);
  });

  it('a token in the agent version or the working directory is redacted there too (issue 22 item 9)', () => {
    const pat = SECRET_SHAPES.find((s) => s.name === 'github classic pat')!.secrets[0]!;
    const r = record({ harness: { name: 'goose', version: `1.47.0+${pat}`, collection_method: 'otlp' }, session: { id: 's1', working_directory: `/tmp/${pat}/proj` }, repository: `https://${pat}@github.com/acme/api.git` });
    const { json } = sanitizeRecord(r);
    assert.deepEqual(leaks(json, [{ name: 'pat', text: '', secrets: [pat] }]), [], json);
    assert.equal(r.session!.id, 's1');
    assert.equal(r.harness.version, '1.47.0+[REDACTED]');
  });

  it('repository URLs lose their credentials', () => {
    const r = record({ repository: 'https://bob:s3cretpass@github.com/acme/api.git' });
    sanitizeRecord(r);
    assert.equal(r.repository, 'https://bob:[REDACTED]@github.com/acme/api.git');
  });
});
