import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hostPort, isLoopback } from '../../src/config/hosts';

describe('host rules', () => {
  it('an IPv6 literal is bracketed in host:port, a name or IPv4 is not (doctor once probed [::] unbracketed)', () => {
    assert.equal(hostPort('::1', 4318), '[::1]:4318');
    assert.equal(hostPort('::', 4317), '[::]:4317');
    assert.equal(hostPort('127.0.0.1', 4318), '127.0.0.1:4318');
    assert.equal(hostPort('localhost', 80), 'localhost:80');
  });

  it('loopback is localhost, 127.0.0.0/8 and ::1, bracketed or not', () => {
    for (const h of ['localhost', '127.0.0.1', '127.9.8.7', '::1', '[::1]']) assert.ok(isLoopback(h), h);
    for (const h of ['0.0.0.0', '::', '10.0.0.1', 'example.com', '128.0.0.1']) assert.ok(!isLoopback(h), h);
  });
});
