import { describe, expect, it } from 'vitest';
import { allowed, parsePolicy, type TunnelPolicy } from './policy.js';

describe('parsePolicy (T5: auth mode and IP allowlist from the connect metadata)', () => {
  it('reads the mode and an allowlist of both families; the allowlist checks the client address', () => {
    const policy = parsePolicy({ auth: 'api-key', allow: '203.0.113.0/24, 2001:db8::/32 198.51.100.7' });
    expect(typeof policy).toBe('object');
    const p = policy as TunnelPolicy;
    expect(p.auth).toBe('api-key');
    expect(allowed(p, '203.0.113.9')).toBe(true);
    expect(allowed(p, '::ffff:203.0.113.9')).toBe(true); // v4-mapped, as a dual-stack socket reports it
    expect(allowed(p, '198.51.100.7')).toBe(true);
    expect(allowed(p, '198.51.100.8')).toBe(false);
    expect(allowed(p, '2001:db8::1')).toBe(true);
    expect(allowed(p, '2001:db9::1')).toBe(false);
  });

  it('no allowlist lets every address through; the default mode is oauth', () => {
    const p = parsePolicy({}) as TunnelPolicy;
    expect(p).toEqual({ auth: 'oauth', allow: undefined });
    expect(allowed(p, '192.0.2.1')).toBe(true);
  });

  it('refuses an item that is not an address or CIDR, naming it; an empty prefix is not /0 (allow-all)', () => {
    expect(parsePolicy({ allow: '10.0.0.0/' })).toBe(
      'allow: "10.0.0.0/" is not an address or CIDR (e.g. 10.0.0.0/8, 2001:db8::/32)',
    );
    expect(parsePolicy({ allow: '10.0.0.0/8, example.com' })).toMatch(/"example\.com" is not an address/);
    expect(parsePolicy({ allow: '10.0.0.0/33' })).toMatch(/"10\.0\.0\.0\/33"/);
    expect(parsePolicy({ auth: 'maybe' })).toBe('auth "maybe" is not one of oauth, api-key, none');
  });
});
