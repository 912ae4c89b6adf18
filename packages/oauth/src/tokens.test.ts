import { authenticateBearer, bearerTarget } from './verify.js';
import { createPublicKey, createSecretKey, generateKeyPairSync } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SignJWT, decodeJwt, importPKCS8 } from 'jose';
import { describe, expect, it } from 'vitest';
import { createOAuthProvider } from './provider.js';
import {
  authorizeQuery,
  browserFlow,
  exchange,
  harnessPerTest,
  HUB,
  ISSUER,
  json,
  MCP,
  pkce,
  REDIRECT,
  refresh,
  register,
  req,
  SERVER_X,
  SERVER_Y,
  tokensFor,
} from '@mcppipe/test-utils';
import type { Harness as TestHarness } from '@mcppipe/test-utils';
import type { OAuthProvider } from './provider.js';
import type { OAuthProviderOptions } from './options.js';

type Harness = TestHarness<OAuthProvider, OAuthProviderOptions>;

const h0 = harnessPerTest(createOAuthProvider);
const stateText = (h: Harness): Promise<string> =>
  h.provider.close().then(() => readFile(join(h.dir, 'state.json'), 'utf8'));

async function codeFor(h: Harness, extra: Record<string, string> = {}) {
  const client = await register(h);
  const clientId = client['client_id'] as string;
  const p = pkce();
  const url = await browserFlow(h, authorizeQuery(clientId, p, extra));
  return { clientId, p, code: url.searchParams.get('code')! };
}

describe('B1 forged and malformed access tokens', () => {
  it('refuses each with MCPP_OAUTH_INVALID_TOKEN and never fetches anything', async () => {
    const h = await h0();
    const { access, clientId } = await tokensFor(h);
    const claims = decodeJwt(access);
    const { privateKey: foreignPem } = generateKeyPairSync('ed25519', {
      privateKeyEncoding: { format: 'pem', type: 'pkcs8' },
      publicKeyEncoding: { format: 'pem', type: 'spki' },
    });
    const foreign = await importPKCS8(foreignPem, 'EdDSA');
    const jwk = createPublicKey(foreignPem).export({ format: 'jwk' });
    const realHeader = JSON.parse(Buffer.from(access.split('.')[0]!, 'base64url').toString()) as {
      kid: string;
    };
    const sign = (header: Record<string, unknown>, body: Record<string, unknown> = claims, key = foreign) =>
      new SignJWT(body)
        .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: realHeader.kid, ...header })
        .sign(key);
    const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const publicKeyBytes = Buffer.from(jwk.x!, 'base64url');
    const fetchCalls: unknown[] = [];
    const realFetch = globalThis.fetch;
    globalThis.fetch = (...args: unknown[]) => {
      fetchCalls.push(args);
      return Promise.reject(new Error('no network'));
    };
    try {
      const forged = [
        `${enc({ alg: 'none', typ: 'at+jwt' })}.${enc(claims)}.`,
        await new SignJWT(claims)
          .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: realHeader.kid })
          .sign(createSecretKey(publicKeyBytes)),
        await sign({}),
        await sign({ kid: 'other' }),
        await sign({ jku: 'https://evil.example/jwks.json' }),
        await sign({ x5u: 'https://evil.example/cert.pem' }),
        await sign({ jwk: { kty: 'OKP', crv: 'Ed25519', x: jwk.x } }),
        `${access.split('.')[0]}.${enc({ ...claims, scope: 'mcp admin' })}.${access.split('.')[2]}`,
        'not-a-jwt',
        '',
        'a'.repeat(5000),
      ];
      for (const t of forged) {
        await expect(h.provider.verifyAccessToken(t, HUB), t.slice(0, 40)).rejects.toMatchObject({
          code: 'MCPP_OAUTH_INVALID_TOKEN',
        });
      }
      // Tokens signed with the real key but with a wrong typ, iss, exp, nbf or no aud.
      const key = await importPKCS8(await readFile(join(h.dir, 'jwt-key.pem'), 'utf8'), 'EdDSA');
      const now = Math.floor(h.now() / 1000);
      const variants: [Record<string, unknown>, Record<string, unknown>][] = [
        [{ typ: 'JWT' }, claims],
        [{}, { ...claims, iss: 'https://evil.example' }],
        [{}, { ...claims, exp: now - 61 }],
        [{}, { ...claims, nbf: now + 120 }],
        [{}, { ...claims, aud: undefined }],
        [{}, { ...claims, aud: [HUB, MCP] }],
      ];
      for (const [hdr, body] of variants) {
        const t = await sign(hdr, body, key);
        await expect(h.provider.verifyAccessToken(t, HUB)).rejects.toMatchObject({
          code: 'MCPP_OAUTH_INVALID_TOKEN',
        });
      }
      // Control: the same construction with nothing changed is accepted.
      expect((await h.provider.verifyAccessToken(await sign({}, claims, key), HUB)).clientId).toBe(clientId);
      expect(fetchCalls).toEqual([]);
    } finally {
      globalThis.fetch = realFetch;
    }
  });

  it('tolerates 30 s of skew on exp and no more', async () => {
    const h = await h0();
    const { access } = await tokensFor(h);
    h.advance(3600_000 + 20_000);
    await expect(h.provider.verifyAccessToken(access, HUB)).resolves.toBeTruthy();
    h.advance(20_000);
    await expect(h.provider.verifyAccessToken(access, HUB)).rejects.toMatchObject({
      code: 'MCPP_OAUTH_INVALID_TOKEN',
    });
  });

  it('authenticateBearer gives challenges: none without a token, invalid_token with a bad one', async () => {
    const h = await h0();
    const none = await h.provider.authenticateBearer(undefined, HUB);
    expect(none).toMatchObject({ ok: false, status: 401 });
    if (!none.ok) {
      expect(none.wwwAuthenticate).toBe(
        `Bearer resource_metadata="${ISSUER}/.well-known/oauth-protected-resource/hub", scope="mcp"`,
      );
    }
    const bad = await h.provider.authenticateBearer('Bearer abc', SERVER_X);
    expect(bad.ok || bad.wwwAuthenticate).toBe(
      `Bearer error="invalid_token", resource_metadata="${ISSUER}/.well-known/oauth-protected-resource/servers/x/mcp", scope="mcp"`,
    );
  });
});

describe('the one bearer check: authenticateBearer with a bearerTarget', () => {
  it('refuses missing, malformed, foreign-audience and bad tokens with precomputed challenges, once per token', async () => {
    const h = await h0();
    const hub = await tokensFor(h);
    const target = bearerTarget(SERVER_X);
    const prm = `${ISSUER}/.well-known/oauth-protected-resource/servers/x/mcp`;
    let checks = 0;
    const verifier = {
      checkAccessToken: (token: string, resource: string) => (
        checks++,
        h.provider.checkAccessToken(token, resource)
      ),
    };
    const missing = await authenticateBearer(verifier, undefined, target);
    expect(missing).toMatchObject({
      ok: false,
      status: 401,
      refusal: 'missing',
      wwwAuthenticate: `Bearer resource_metadata="${prm}"`,
    });
    const malformed = await authenticateBearer(verifier, 'Basic abc', target);
    expect(malformed).toMatchObject({ ok: false, refusal: 'malformed', error: 'invalid_token' });
    expect(checks).toBe(0);
    const foreign = await authenticateBearer(verifier, `Bearer ${hub.access}`, target);
    expect(foreign).toMatchObject({
      ok: false,
      refusal: 'audience',
      reason: 'unexpected aud',
      wwwAuthenticate: `Bearer error="invalid_token", error_description="The access token was not issued for this resource", resource_metadata="${prm}"`,
    });
    const bad = await authenticateBearer(verifier, 'Bearer abc', target);
    expect(bad).toMatchObject({
      ok: false,
      refusal: 'invalid',
      body: JSON.stringify({
        error: 'invalid_token',
        error_description: 'The access token is invalid or expired',
      }),
    });
    expect(checks).toBe(2);
    const ok = await authenticateBearer(verifier, `bearer ${hub.access}`, bearerTarget(HUB));
    expect(ok.ok && ok.authInfo.clientId).toBe(hub.clientId);
  });
});

describe('B2 audience binding', () => {
  it('refuses a /hub token at a server and a server token elsewhere', async () => {
    const h = await h0();
    const hub = await tokensFor(h);
    const x = await tokensFor(h, { resource: SERVER_X });
    for (const [token, resource] of [
      [hub.access, SERVER_X],
      [hub.access, MCP],
      [x.access, SERVER_Y],
      [x.access, HUB],
    ] as const) {
      await expect(h.provider.verifyAccessToken(token, resource)).rejects.toMatchObject({
        code: 'MCPP_OAUTH_INVALID_TOKEN',
      });
    }
    expect((await h.provider.verifyAccessToken(x.access, SERVER_X)).resource?.href).toBe(SERVER_X);
    // The canonical form tolerates a trailing slash on the expected resource.
    expect((await h.provider.verifyAccessToken(x.access, `${SERVER_X}/`)).clientId).toBe(x.clientId);
  });
});

describe('B3 resource indicators', () => {
  it('answers invalid_target and issues nothing for foreign or changed resources', async () => {
    const h = await h0();
    const client = await register(h);
    const page = h.provider.endpoints.authorize(
      req({
        query: authorizeQuery(client['client_id'] as string, pkce(), {
          resource: 'https://other.example/mcp',
        }),
      }),
    );
    expect(page.status).toBe(400);
    expect(page.body).toContain('invalid_target');
    expect(page.headers['location']).toBeUndefined();

    const { clientId, p, code } = await codeFor(h, { resource: SERVER_X });
    const before = await h.provider.endpoints.token(
      req({
        form: {
          grant_type: 'authorization_code',
          client_id: clientId,
          code,
          code_verifier: p.verifier,
          redirect_uri: REDIRECT,
          resource: SERVER_Y,
        },
      }),
    );
    expect(before.status).toBe(400);
    expect(json(before)).toMatchObject({ error: 'invalid_target' });
    const ok = await exchange(h, {
      client_id: clientId,
      code,
      code_verifier: p.verifier,
      resource: SERVER_X,
    });
    expect(ok.status).toBe(200);
    const r = await refresh(h, clientId, {
      refresh_token: json(ok)['refresh_token'] as string,
      resource: HUB,
    });
    expect(r.status).toBe(400);
    expect(json(r)).toMatchObject({ error: 'invalid_target' });
    const widen = await refresh(h, clientId, {
      refresh_token: json(ok)['refresh_token'] as string,
      scope: 'mcp admin',
    });
    expect(json(widen)).toMatchObject({ error: 'invalid_scope' });
    // The refresh token still works afterwards: failed refreshes changed nothing.
    expect((await refresh(h, clientId, json(ok)['refresh_token'] as string)).status).toBe(200);
  });
});

describe('B4/B5 authorization codes', () => {
  it('a second valid redemption fails and revokes the first token pair', async () => {
    const h = await h0();
    const { clientId, p, code } = await codeFor(h);
    const first = await exchange(h, { client_id: clientId, code, code_verifier: p.verifier });
    expect(first.status).toBe(200);
    const second = await exchange(h, { client_id: clientId, code, code_verifier: p.verifier });
    expect(second.status).toBe(400);
    expect(json(second)).toMatchObject({ error: 'invalid_grant' });
    await expect(
      h.provider.verifyAccessToken(json(first)['access_token'] as string, HUB),
    ).rejects.toMatchObject({
      code: 'MCPP_OAUTH_INVALID_TOKEN',
    });
    expect((await refresh(h, clientId, json(first)['refresh_token'] as string)).status).toBe(400);
  });

  it('a replay with a wrong verifier fails without revoking anything', async () => {
    const h = await h0();
    const { clientId, p, code } = await codeFor(h);
    const first = await exchange(h, { client_id: clientId, code, code_verifier: p.verifier });
    const replay = await exchange(h, { client_id: clientId, code, code_verifier: pkce().verifier });
    expect(json(replay)).toMatchObject({ error: 'invalid_grant' });
    await expect(
      h.provider.verifyAccessToken(json(first)['access_token'] as string, HUB),
    ).resolves.toBeTruthy();
  });

  it('refuses expired codes, other clients, wrong redirect URIs and malformed or missing verifiers', async () => {
    const h = await h0();
    const other = await register(h);
    const { clientId, p, code } = await codeFor(h);
    const before = await readFile(join(h.dir, 'state.json'), 'utf8');
    const cases: [Record<string, string>, string][] = [
      [{ client_id: other['client_id'] as string, code, code_verifier: p.verifier }, 'invalid_grant'],
      [{ client_id: clientId, code, code_verifier: 'a'.repeat(42) }, 'invalid_grant'],
      [{ client_id: clientId, code, code_verifier: 'a'.repeat(129) }, 'invalid_grant'],
      [{ client_id: clientId, code }, 'invalid_request'],
      [
        { client_id: clientId, code, code_verifier: p.verifier, redirect_uri: `${REDIRECT}/x` },
        'invalid_grant',
      ],
      [{ client_id: clientId, code: 'nope', code_verifier: p.verifier }, 'invalid_grant'],
    ];
    for (const [form, error] of cases) {
      const res = await exchange(h, form);
      expect(res.status, JSON.stringify(form)).toBe(400);
      expect(json(res)).toMatchObject({ error });
      expect(res.headers['cache-control']).toBe('no-store');
    }
    h.advance(121_000);
    expect(json(await exchange(h, { client_id: clientId, code, code_verifier: p.verifier }))).toMatchObject({
      error: 'invalid_grant',
    });
    expect(await stateText(h)).toBe(before); // no family was created, nothing was written
  });

  it('50 parallel redemptions of one code: exactly one 200', async () => {
    const h = await h0();
    const { clientId, p, code } = await codeFor(h);
    const results = await Promise.all(
      Array.from({ length: 50 }, () => exchange(h, { client_id: clientId, code, code_verifier: p.verifier })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400 && json(r)['error'] === 'invalid_grant')).toHaveLength(49);
  });
});

describe('B6/B7 refresh rotation, grace and reuse', () => {
  it('rotates, returns the same pair within the grace window, and revokes the family on reuse after it', async () => {
    const h = await h0();
    const { clientId, refresh: r0 } = await tokensFor(h);
    const a = await refresh(h, clientId, r0);
    expect(a.status).toBe(200);
    const r1 = json(a)['refresh_token'] as string;
    expect(r1).not.toBe(r0);
    h.advance(2000);
    const b = await refresh(h, clientId, r0);
    expect(json(b)).toEqual(json(a)); // idempotent within grace
    h.advance(4000);
    const c = await refresh(h, clientId, r0);
    expect(json(c)).toMatchObject({ error: 'invalid_grant' });
    // The family is revoked: R1 and the access token it came with are refused.
    expect(json(await refresh(h, clientId, r1))).toMatchObject({ error: 'invalid_grant' });
    await expect(h.provider.verifyAccessToken(json(a)['access_token'] as string, HUB)).rejects.toMatchObject({
      code: 'MCPP_OAUTH_INVALID_TOKEN',
    });
  });

  it('B6 under faults: after a restart (rotation persisted, answer lost) a retry within the grace gets the same successor; after the grace it revokes the family', async () => {
    for (const late of [false, true]) {
      const h = await h0();
      const { clientId, refresh: r0 } = await tokensFor(h);
      const lost = await refresh(h, clientId, r0); // persisted; the client never sees this answer
      const r1 = json(lost)['refresh_token'] as string;
      await h.provider.close(); // the process dies; the in-memory grace cache is gone
      const state = JSON.parse(await stateText(h)) as { families: Record<string, Record<string, unknown>> };
      const [family] = Object.values(state.families);
      expect(JSON.stringify(family)).not.toContain(r1.split('.')[1]!); // never the successor in plaintext
      let t = h.now() + (late ? 6000 : 3000);
      const restarted = await h0({ dataDir: h.dir, clock: () => t });
      const retry = await refresh(restarted, clientId, r0);
      if (!late) {
        expect(retry.status).toBe(200);
        expect(json(retry)['refresh_token']).toBe(r1); // the same successor: the client is not signed out
        await expect(
          restarted.provider.verifyAccessToken(json(retry)['access_token'] as string, HUB),
        ).resolves.toMatchObject({ clientId });
        t += 1000;
        const next = await refresh(restarted, clientId, r1); // the family is intact: R1 rotates normally
        expect(next.status).toBe(200);
        expect(json(next)['refresh_token']).not.toBe(r1);
      } else {
        expect(json(retry)).toMatchObject({ error: 'invalid_grant' });
        expect(json(await refresh(restarted, clientId, r1))).toMatchObject({ error: 'invalid_grant' });
        await restarted.provider.close(); // flushes the revocation
        const after = JSON.parse(await stateText(restarted)) as {
          families: Record<string, { status: string }>;
        };
        expect(Object.values(after.families).map((f) => f.status)).toEqual(['revoked']);
      }
    }
  });

  it('an ancestor beyond the immediate predecessor revokes the family even inside the grace window', async () => {
    const h = await h0();
    const { clientId, refresh: r0 } = await tokensFor(h);
    const r1 = json(await refresh(h, clientId, r0))['refresh_token'] as string;
    const r2 = json(await refresh(h, clientId, r1))['refresh_token'] as string;
    expect(json(await refresh(h, clientId, r0))).toMatchObject({ error: 'invalid_grant' });
    expect(json(await refresh(h, clientId, r2))).toMatchObject({ error: 'invalid_grant' });
  });

  it('another client presenting the token gets invalid_grant and nothing changes', async () => {
    const h = await h0();
    const { clientId, refresh: r0 } = await tokensFor(h);
    const other = await register(h);
    expect(json(await refresh(h, other['client_id'] as string, r0))).toMatchObject({
      error: 'invalid_grant',
    });
    expect((await refresh(h, clientId, r0)).status).toBe(200);
  });

  it('20 concurrent refreshes with one token create one successor and a consistent state file', async () => {
    const h = await h0();
    const { clientId, refresh: r0 } = await tokensFor(h);
    const results = await Promise.all(Array.from({ length: 20 }, () => refresh(h, clientId, r0)));
    const bodies = new Set(results.map((r) => r.body));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(bodies.size).toBe(1);
    const state = JSON.parse(await stateText(h)) as { families: Record<string, { status: string }> };
    expect(Object.values(state.families).map((f) => f.status)).toEqual(['active']);
  });

  it('expires refresh tokens after the idle time', async () => {
    const h = await h0();
    const { clientId, refresh: r0 } = await tokensFor(h);
    h.advance(31 * 24 * 3600_000);
    expect(json(await refresh(h, clientId, r0))).toMatchObject({ error: 'invalid_grant' });
  });

  it('B8: token responses are no-store and nothing secret reaches the logs', async () => {
    const h = await h0();
    const t = await tokensFor(h);
    const res = await refresh(h, t.clientId, t.refresh);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['pragma']).toBe('no-cache');
    await refresh(h, t.clientId, t.refresh); // grace
    h.advance(60_000);
    await refresh(h, t.clientId, t.refresh); // reuse → logged revocation
    const logs = h.logger.lines.join('\n');
    for (const secret of [
      t.access,
      t.refresh,
      t.refresh.split('.')[1]!,
      json(res)['refresh_token'] as string,
    ]) {
      expect(logs).not.toContain(secret);
    }
    expect(logs).toContain('refresh token reuse');
  });
});
