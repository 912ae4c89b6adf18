import { describe, expect, it } from 'vitest';
import { createHostOriginPolicy, isLoopbackHost } from './loopback.js';

describe('isLoopbackHost: the one loopback rule', () => {
  it('accepts localhost, ::1 in both spellings and 127.0.0.0/8, nothing else', () => {
    for (const host of ['localhost', '127.0.0.1', '127.0.0.2', '127.255.1.9', '::1', '[::1]']) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
    for (const host of ['0.0.0.0', '127.evil.example', '127.0.0.1.evil.example', '10.0.0.1', '::', '']) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
  });
});

describe('createHostOriginPolicy', () => {
  it('allows loopback and listed Host values, with or without a port, and refuses the rest', () => {
    const policy = createHostOriginPolicy({ allowedHosts: ['mcp.internal'], loopbackOrigins: true });
    for (let i = 0; i < 2; i++) {
      for (const host of ['127.0.0.1:8808', '127.0.0.2:8808', 'localhost', '[::1]:8808', 'mcp.internal:1']) {
        expect(policy.host(host), host).toBe(true);
      }
      for (const host of ['evil.example:8808', '127.0.0.1.evil.example', '', 'a b']) {
        expect(policy.host(host), host).toBe(false);
      }
    }
  });

  it('allows listed origins, `*`, and loopback origins only when asked to', () => {
    const listed = createHostOriginPolicy({
      allowedOrigins: ['https://app.example'],
      loopbackOrigins: false,
    });
    expect(listed.origin('https://app.example')).toBe(true);
    expect(listed.origin('http://localhost:5173')).toBe(false);
    expect(listed.origin('https://other.example')).toBe(false);
    const loopback = createHostOriginPolicy({ loopbackOrigins: true });
    expect(loopback.origin('http://localhost:5173')).toBe(true);
    expect(loopback.origin('http://127.0.0.2:5173')).toBe(true);
    expect(loopback.origin('http://[::1]:5173')).toBe(true);
    expect(loopback.origin('http://evil.example')).toBe(false);
    expect(loopback.origin('null')).toBe(false);
    const any = createHostOriginPolicy({ allowedOrigins: ['*'], loopbackOrigins: false });
    expect(any.origin('https://anything.example')).toBe(true);
  });
});
