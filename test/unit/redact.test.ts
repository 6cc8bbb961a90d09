import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { truncateString } from '../../src/redact/limits';
import { sanitizeRecord } from '../../src/redact/sanitize';
import { redactString } from '../../src/redact/secrets';
import type { BeaconRecord } from '../../src/model/record';

function record(extra: Partial<BeaconRecord>): BeaconRecord {
  return {
    timestamp: '2026-08-21T08:30:00.000000000Z', vendor: 'beacon', product: 'endpoint-agent', schema_version: '1.0',
    event: { kind: 'agent_runtime', action: 'command.executed', category: 'command', id: 'x' },
    severity: 'info', endpoint: { os: 'linux' }, harness: { name: 'goose', collection_method: 'hook' }, ...extra,
  };
}

describe('secret redaction', () => {
  const cases: [string, string][] = [
    ['curl -H "Authorization: Bearer abc.def.ghi" x', 'curl -H "Authorization: Bearer [REDACTED]" x'],
    ['export API_KEY=sk12345678 && run', 'export API_KEY=[REDACTED] && run'],
    ['password: "hunter22"', 'password: "[REDACTED]"'],
    ['token=abc secret=xyz', 'token=[REDACTED] secret=[REDACTED]'],
    ['use sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv now', 'use [REDACTED] now'],
    ['gh auth ghp_0123456789abcdefghijABCDEFGHIJ012345', 'gh auth [REDACTED]'],
    ['AWS AKIAABCDEFGHIJKLMNOP', 'AWS [REDACTED]'],
    ['nothing to see here', 'nothing to see here'],
  ];
  for (const [input, expected] of cases) it(JSON.stringify(input), () => assert.equal(redactString(input), expected));

  it('redacts a private key block', () => {
    const out = redactString('key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----\nrest');
    assert.equal(out, 'key:\n[REDACTED]\nrest');
  });

  it('replaces an assigned secret value wherever else it appears in the event', () => {
    const r = record({ command: { command: 'export GITHUB_TOKEN=s3cr3tvalue99' }, message: 'echo s3cr3tvalue99' });
    sanitizeRecord(r, 'command.command');
    assert.equal(r.command?.command, 'export GITHUB_TOKEN=[REDACTED]');
    assert.equal(r.message, 'echo [REDACTED]');
    assert.equal(r.content?.redacted, true);
  });
});

describe('limits and content markers', () => {
  it('truncates to the byte limit with a marker, never splitting a character', () => {
    const s = 'é'.repeat(3000); // 6000 bytes
    const { value, truncated } = truncateString(s, 4096);
    assert.equal(truncated, true);
    assert.ok(Buffer.byteLength(value) <= 4096);
    assert.ok(value.endsWith('...[truncated]'));
    assert.ok(!value.includes('\uFFFD'));
    assert.deepEqual(truncateString('short', 4096), { value: 'short', truncated: false });
  });

  it('marks content with the size of the original and the hash of the stored (uncut) text, and truncated', () => {
    const cmd = `echo ${'a'.repeat(5000)}`;
    const r = record({ command: { command: cmd }, tool: { name: 'shell', command: cmd } });
    sanitizeRecord(r, 'command.command');
    assert.equal(r.content?.bytes, 5005);
    assert.equal(r.content?.hash, require('node:crypto').createHash('sha256').update(cmd).digest('hex'));
    assert.equal(r.content?.truncated, true);
    assert.ok(Buffer.byteLength(r.command!.command!) <= 4096);
  });

  it('uses the smaller 2048-byte limit inside gen_ai, mcp and raw', () => {
    const r = record({ gen_ai: { tool: { call: { arguments: { text: 'x'.repeat(3000) } } } }, raw: { a: 'y'.repeat(3000) } });
    sanitizeRecord(r);
    assert.ok(Buffer.byteLength((r.gen_ai!.tool!.call!.arguments as { text: string }).text) <= 2048);
    assert.ok(Buffer.byteLength((r.raw as { a: string }).a) <= 2048);
  });

  it('fits an event over 64 KiB by dropping raw, then content, setting field_truncated', () => {
    const many = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`k${i}`, 'z'.repeat(2000)]));
    const r = record({ raw: many, gen_ai: { output: { messages: Array.from({ length: 40 }, () => 'm'.repeat(2000)) } }, reasoning: { text: 'think' } });
    const { json } = sanitizeRecord(r, 'reasoning.text');
    assert.ok(Buffer.byteLength(json) <= 64 * 1024);
    const back = JSON.parse(json);
    assert.equal(back.field_truncated, true);
    assert.equal(back.raw, undefined);
    assert.equal(back.gen_ai.output, undefined);
    assert.equal(back.content.included, false);
    assert.equal(back.event.action, 'command.executed');
  });

  it('does not redact paths and identifiers', () => {
    const r = record({ file: { path: '/home/u/token=abcdefgh/secret.txt' }, session: { id: 'token=abc' } });
    sanitizeRecord(r);
    assert.equal(r.file?.path, '/home/u/token=abcdefgh/secret.txt');
    assert.equal(r.session?.id, 'token=abc');
  });
});
