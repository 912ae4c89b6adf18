import * as jose from 'jose';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { VerifiedClaims } from './accessToken.js';
import { VerifiedTokenCache } from './tokenCache.js';
import { createOAuthProvider } from './provider.js';
import { harnessPerTest, HUB, json, MCP, refresh, req, tokensFor } from '@mcppipe/test-utils';

// Count the Ed25519 verifications: jose's `jwtVerify`, wrapped by a spy that still runs the real one.
vi.mock('jose', async (importOriginal) => {
  const real = await importOriginal<typeof jose>();
  return { ...real, jwtVerify: vi.fn(real.jwtVerify) };
});
const verifications = vi.mocked(jose.jwtVerify);
beforeEach(() => {
  verifications.mockClear();
});

const h0 = harnessPerTest(createOAuthProvider);

/** The token with one byte of its signature changed (still well-formed, right `kid`). */
function flipSignatureByte(token: string, index = 0): string {
  const [h, p, s] = token.split('.') as [string, string, string];
  const sig = Buffer.from(s, 'base64url');
  sig[index] = (sig[index] ?? 0) ^ 0x01;
  return `${h}.${p}.${sig.toString('base64url')}`;
}

describe('the verified-token cache', () => {
  it('a second use of the same token skips the signature verification', async () => {
    const h = await h0();
    const { access, clientId } = await tokensFor(h);
    expect((await h.provider.verifyAccessToken(access, HUB)).clientId).toBe(clientId);
    expect(verifications).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 5; i++) {
      const check = await h.provider.checkAccessToken(access, HUB);
      expect(check.ok && check.authInfo.clientId).toBe(clientId);
    }
    expect(verifications).toHaveBeenCalledTimes(1);
  });

  it('a token differing in one signature byte is not a hit, and is refused', async () => {
    const h = await h0();
    const { access } = await tokensFor(h);
    await h.provider.verifyAccessToken(access, HUB);
    for (const index of [0, 31, 63]) {
      const forged = flipSignatureByte(access, index);
      expect(await h.provider.checkAccessToken(forged, HUB)).toMatchObject({ ok: false });
    }
    expect(verifications).toHaveBeenCalledTimes(4);
    // the genuine token is still a hit
    await h.provider.verifyAccessToken(access, HUB);
    expect(verifications).toHaveBeenCalledTimes(4);
  });

  it('revocation defeats the cache: a revoked access token, and a family revoked by refresh-token reuse', async () => {
    const h = await h0();
    const a = await tokensFor(h);
    await h.provider.verifyAccessToken(a.access, HUB);
    const revoked = await h.provider.endpoints.revoke(
      req({ form: { client_id: a.clientId, token: a.access } }),
    );
    expect(revoked.status).toBe(200);
    expect(await h.provider.checkAccessToken(a.access, HUB)).toEqual({ ok: false, reason: 'revoked' });

    const b = await tokensFor(h);
    await h.provider.verifyAccessToken(b.access, HUB);
    const rotated = await refresh(h, b.clientId, b.refresh);
    expect(rotated.status).toBe(200);
    const successor = json(rotated)['access_token'] as string;
    await h.provider.verifyAccessToken(successor, HUB);
    const hits = verifications.mock.calls.length;
    h.advance(10_000); // past the refresh grace window: presenting the old refresh token again is reuse
    expect(json(await refresh(h, b.clientId, b.refresh))).toMatchObject({ error: 'invalid_grant' });
    // both the first and the successor access token were cached; both fail at once
    expect(await h.provider.checkAccessToken(b.access, HUB)).toEqual({ ok: false, reason: 'revoked' });
    expect(await h.provider.checkAccessToken(successor, HUB)).toEqual({ ok: false, reason: 'revoked' });
    expect(verifications.mock.calls.length).toBe(hits);
  });

  it('expiry defeats the cache (exp plus the 30 s skew), and an entry lives at most its TTL', async () => {
    const h = await h0({ accessTokenTtlSec: 600, verifiedTokenCacheTtlMs: 60_000 });
    const { access } = await tokensFor(h);
    await h.provider.verifyAccessToken(access, HUB);
    h.advance(59_000);
    await h.provider.verifyAccessToken(access, HUB);
    expect(verifications).toHaveBeenCalledTimes(1);
    h.advance(2_000); // 61 s after caching: verified again, then cached again
    await h.provider.verifyAccessToken(access, HUB);
    expect(verifications).toHaveBeenCalledTimes(2);
    h.advance(600_000 - 61_000 + 28_000); // exp + 28 s: inside the skew (verified again: the TTL passed)
    await h.provider.verifyAccessToken(access, HUB);
    expect(verifications).toHaveBeenCalledTimes(3);
    h.advance(1_000); // exp + 29 s: a hit
    await h.provider.verifyAccessToken(access, HUB);
    h.advance(1_000); // exp + 30 s: the entry is over, and the unverified claims alone refuse the token
    expect(await h.provider.checkAccessToken(access, HUB)).toEqual({ ok: false, reason: 'expired' });
    expect(verifications).toHaveBeenCalledTimes(3);
  });

  it('the audience is checked on every hit', async () => {
    const h = await h0();
    const { access } = await tokensFor(h);
    await h.provider.verifyAccessToken(access, HUB);
    expect(await h.provider.checkAccessToken(access, MCP)).toEqual({ ok: false, reason: 'unexpected aud' });
    expect((await h.provider.verifyAccessToken(access, `${HUB}/`)).resource?.href).toBe(HUB);
    expect(verifications).toHaveBeenCalledTimes(1);
  });

  it('verifiedTokenCacheSize 0 disables it: every use is verified', async () => {
    const h = await h0({ verifiedTokenCacheSize: 0 });
    const { access } = await tokensFor(h);
    for (let i = 0; i < 3; i++) await h.provider.verifyAccessToken(access, HUB);
    expect(verifications).toHaveBeenCalledTimes(3);
  });
});

describe('cheap checks before the signature', () => {
  it('refuses a wrong audience, issuer, kid, alg or an expired token without verifying a signature', async () => {
    const h = await h0();
    const { access } = await tokensFor(h);
    const [header, payload, signature] = access.split('.') as [string, string, string];
    const decode = (s: string) =>
      JSON.parse(Buffer.from(s, 'base64url').toString()) as Record<string, unknown>;
    const encode = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const claims = decode(payload);
    const hdr = decode(header);
    const cases: [string, string][] = [
      [`${header}.${encode({ ...claims, aud: MCP })}.${signature}`, 'unexpected aud'],
      [`${header}.${encode({ ...claims, iss: 'https://evil.example' })}.${signature}`, 'unexpected iss'],
      [`${header}.${encode({ ...claims, exp: Math.floor(h.now() / 1000) - 31 })}.${signature}`, 'expired'],
      [`${encode({ ...hdr, kid: 'other' })}.${payload}.${signature}`, 'unknown kid'],
      [`${encode({ ...hdr, alg: 'HS256' })}.${payload}.${signature}`, 'unexpected alg'],
      [`${header}.${payload}.`, 'malformed token'],
      [`${header}.bm90IGpzb24.${signature}`, 'malformed token'],
    ];
    for (const [token, reason] of cases)
      expect(await h.provider.checkAccessToken(token, HUB), reason).toEqual({ ok: false, reason });
    expect(verifications).not.toHaveBeenCalled();
  });
});

describe('VerifiedTokenCache', () => {
  const claims = (exp: number): VerifiedClaims => ({
    sub: 'owner',
    clientId: 'c',
    scopes: ['mcp'],
    exp,
    jti: 'j',
    familyId: 'f',
    audience: HUB,
  });

  it('is bounded: the least recently used entry is evicted', () => {
    const cache = new VerifiedTokenCache({ maxEntries: 2, ttlMs: 60_000, skewSec: 30 });
    const [a, b, c] = ['a.b.c', 'a.b.d', 'a.b.e'].map((t) => cache.keyOf(t)) as [string, string, string];
    cache.set(a, claims(2_000), 1_000_000);
    cache.set(b, claims(2_000), 1_000_000);
    expect(cache.get(a, 1_000_001)).toBeDefined(); // a is now the most recent
    cache.set(c, claims(2_000), 1_000_002);
    expect(cache.size).toBe(2);
    expect(cache.get(b, 1_000_003)).toBeUndefined();
    expect(cache.get(a, 1_000_003)).toBeDefined();
    expect(cache.get(c, 1_000_003)).toBeDefined();
  });

  it('an entry is valid until min(exp + skew, stored + TTL), and not when the clock moved back', () => {
    const cache = new VerifiedTokenCache({ maxEntries: 10, ttlMs: 100_000, skewSec: 30 });
    const key = cache.keyOf('x.y.z');
    cache.set(key, claims(1_000), 950_000); // exp + skew = 1,030,000 ms < stored + TTL = 1,050,000 ms
    expect(cache.get(key, 1_029_999)).toBeDefined();
    expect(cache.get(key, 1_030_000)).toBeUndefined();
    cache.set(key, claims(10_000), 950_000); // stored + TTL = 1,050,000 ms < exp + skew
    expect(cache.get(key, 949_999)).toBeUndefined();
    cache.set(key, claims(10_000), 950_000);
    expect(cache.get(key, 1_049_999)).toBeDefined();
    expect(cache.get(key, 1_050_000)).toBeUndefined();
    expect(cache.keyOf('x.y.z')).not.toBe(cache.keyOf('x.y.Z'));
  });
});
