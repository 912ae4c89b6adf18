import { describe, expect, it } from 'vitest';
import { createPasswordVerifier, hashPassword } from './password.js';

describe('passwords', () => {
  it('hashes with bcrypt cost 12 and verifies', async () => {
    const h = await hashPassword('s3cret-enough');
    expect(h).toMatch(/^\$2b\$12\$/);
    const verify = createPasswordVerifier({ passwordHash: h });
    expect(await verify('s3cret-enough')).toBe(true);
    expect(await verify('s3cret-enougH')).toBe(false);
    expect(await verify('')).toBe(false);
    expect(await verify('s3cret-enough' + 'x'.repeat(100))).toBe(false);
  }, 20_000);

  it('refuses passwords bcrypt would truncate', async () => {
    await expect(hashPassword('x'.repeat(73))).rejects.toMatchObject({ code: 'MCPP_OAUTH_INVALID_OPTIONS' });
    await expect(hashPassword('')).rejects.toMatchObject({ code: 'MCPP_OAUTH_INVALID_OPTIONS' });
  });

  it('compares a plain password in constant time, whatever the lengths (A9: never a RangeError)', async () => {
    const verify = createPasswordVerifier({ password: 'pw-123456' });
    expect(await verify('pw-123456')).toBe(true);
    for (const wrong of ['', 'pw', 'pw-1234567', 'x'.repeat(5000), 'ü'.repeat(9)])
      expect(await verify(wrong)).toBe(false);
  });

  it('needs exactly one of password and hash, and a real bcrypt hash', () => {
    expect(() => createPasswordVerifier({})).toThrow(
      expect.objectContaining({ code: 'MCPP_OAUTH_NO_PASSWORD' }),
    );
    expect(() => createPasswordVerifier({ passwordHash: 'md5:abc' })).toThrow(
      expect.objectContaining({ code: 'MCPP_OAUTH_NO_PASSWORD' }),
    );
    expect(() => createPasswordVerifier({ password: 'a', passwordHash: '$2b$12$' + 'a'.repeat(53) })).toThrow(
      expect.objectContaining({ code: 'MCPP_OAUTH_INVALID_OPTIONS' }),
    );
  });
});
