import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import pino from 'pino';
import { LOG_POLICY } from '../../src/redact/log-policy';

function logger() {
  const lines: string[] = [];
  const sink = new Writable({ write(chunk, _enc, cb) { lines.push(String(chunk)); cb(); } });
  return { log: pino({ level: 'debug', ...LOG_POLICY }, sink), lines };
}

describe('pino log policy: no content, whatever a call site passes', () => {
  const prompt = 'please deploy with password=hunter2hunter2 and tell nobody';
  it('censors content-bearing keys at the top level and one level down', () => {
    const { log, lines } = logger();
    log.info({ record: { prompt: { text: prompt } }, export: { body: prompt, attributes: { a: prompt } }, bytes: 12 }, 'export');
    const out = lines.join('');
    assert.ok(!out.includes('hunter2'), out);
    assert.ok(!out.includes('deploy'), out);
    assert.equal(JSON.parse(out).bytes, 12);
  });
  it('redacts secrets from error messages and message strings, and cuts long strings', () => {
    const { log, lines } = logger();
    log.error({ err: new Error(`bad payload: token=${'a'.repeat(20)}`) }, `failed on ${prompt}`);
    log.warn({ note: 'x'.repeat(5000) }, 'long');
    const out = lines.join('');
    assert.ok(!out.includes('aaaaaaaaaaaa'), out);
    assert.ok(!out.includes('hunter2'), out);
    assert.ok(out.length < 2000, 'a content-sized string was cut');
    assert.equal(JSON.parse(lines[0]!).msg.startsWith('failed on please deploy with password=[REDACTED]'), true);
  });
  it('keeps operational fields as they are', () => {
    const { log, lines } = logger();
    log.info({ address: 'http://127.0.0.1:4318', log: '/home/u/.beacon/events.db', spans: 100, ms: 1.5 }, 'collector ready');
    const j = JSON.parse(lines[0]!);
    assert.deepEqual([j.address, j.log, j.spans, j.ms, j.msg], ['http://127.0.0.1:4318', '/home/u/.beacon/events.db', 100, 1.5, 'collector ready']);
  });
});
