import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { createOAuthProvider } from './provider.js';
import {
  authorizeQuery,
  browserFlow,
  harnessPerTest,
  HUB,
  ISSUER,
  json,
  MCP,
  PASSWORD,
  pkce,
  REDIRECT,
  register,
  req,
  tokensFor,
} from '@mcppipe/test-utils';

const h0 = harnessPerTest(createOAuthProvider);

describe('createOAuthProvider', () => {
  it('warns (once, without the password) when MCPPIPE_ADMIN_PASSWORD is shorter than 12 characters', async () => {
    const short = await h0({ adminPassword: 'short-pw-11' });
    const warnings = short.logger.lines.filter((l) => l.includes('shorter than 12 characters'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('MCPPIPE_ADMIN_PASSWORD');
    expect(short.logger.lines.join('\n')).not.toContain('short-pw-11');
    const long = await h0({ adminPassword: 'long-pw-12ch' });
    expect(long.logger.lines.filter((l) => l.includes('shorter than'))).toEqual([]);
  });

  it('validates options at construction', async () => {
    const base = { dataDir: '/nonexistent', resources: () => [HUB], adminPassword: PASSWORD };
    for (const publicUrl of [
      'http://gw.example',
      'https://gw.example/base',
      'not a url',
      'https://u:p@gw.example',
    ]) {
      await expect(createOAuthProvider({ ...base, publicUrl })).rejects.toMatchObject({
        code: 'MCPP_OAUTH_INVALID_OPTIONS',
      });
    }
    await expect(
      createOAuthProvider({ ...base, publicUrl: ISSUER, accessTokenTtlSec: 5 }),
    ).rejects.toMatchObject({
      code: 'MCPP_OAUTH_INVALID_OPTIONS',
    });
    await expect(
      createOAuthProvider({ ...base, publicUrl: ISSUER, refreshGraceMs: 120_000 }),
    ).rejects.toMatchObject({
      code: 'MCPP_OAUTH_INVALID_OPTIONS',
    });
    await expect(
      createOAuthProvider({ dataDir: '/nonexistent', publicUrl: ISSUER, resources: () => [HUB] }),
    ).rejects.toMatchObject({ code: 'MCPP_OAUTH_NO_PASSWORD' });
  });

  it('runs the whole code flow and issues an EdDSA at+jwt for the default /hub resource', async () => {
    const h = await h0();
    const { clientId, access, refresh } = await tokensFor(h);
    expect(decodeProtectedHeader(access)).toMatchObject({ alg: 'EdDSA', typ: 'at+jwt' });
    const claims = decodeJwt(access);
    expect(claims).toMatchObject({ iss: ISSUER, aud: HUB, sub: 'owner', client_id: clientId, scope: 'mcp' });
    expect(typeof claims.jti).toBe('string');
    expect(typeof claims['fid']).toBe('string');
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(refresh.split('.')[1]!.length).toBeGreaterThanOrEqual(43); // 256 bits
    const info = await h.provider.verifyAccessToken(access, HUB);
    expect(info).toMatchObject({ clientId, scopes: ['mcp'], expiresAt: claims.exp, token: access });
    expect(info.resource?.href).toBe(HUB);
  });

  it('echoes state and returns iss in the authorization response', async () => {
    const h = await h0();
    const client = await register(h);
    const url = await browserFlow(
      h,
      authorizeQuery(client['client_id'] as string, pkce(), { state: 'a b&c<>' }),
    );
    expect(url.origin + url.pathname).toBe(REDIRECT);
    expect(url.searchParams.get('state')).toBe('a b&c<>');
    expect(url.searchParams.get('iss')).toBe(ISSUER);
    expect(url.searchParams.getAll('code')).toHaveLength(1);
    expect(url.searchParams.get('code')!.length).toBeGreaterThanOrEqual(43); // 256 bits
  });

  it('skips login and approval for an approved client in a signed-in browser, and asks again for a new client', async () => {
    const h = await h0();
    const first = await tokensFor(h);
    // Same client, same browser: code at once (302).
    const again = h.provider.endpoints.authorize(
      req({ query: authorizeQuery(first.clientId, pkce()), headers: { cookie: first.jar.cookie! } }),
    );
    expect(again.status).toBe(302);
    expect(again.headers['location']).toContain('code=');
    // A new client registered by DCR with another redirect host: the approval page names that host, no code.
    const evil = await register(h, { redirect_uris: ['https://evil.example/cb'], client_name: 'Evil' });
    const page = h.provider.endpoints.authorize(
      req({
        query: {
          ...authorizeQuery(evil['client_id'] as string, pkce()),
          redirect_uri: 'https://evil.example/cb',
        },
        headers: { cookie: first.jar.cookie! },
      }),
    );
    expect(page.status).toBe(200);
    expect(page.body).toContain('name="decision" value="approve"');
    expect(page.body).toContain('<strong>evil.example</strong>');
    expect(page.headers['location']).toBeUndefined();
  });

  it('keeps registrations, approvals and families across a restart', async () => {
    const h = await h0();
    const { clientId, access, refresh, jar } = await tokensFor(h);
    await h.provider.close();
    const again = await createOAuthProvider(h.options);
    try {
      expect((await again.verifyAccessToken(access, HUB)).clientId).toBe(clientId);
      const res = await again.endpoints.token(
        req({ form: { grant_type: 'refresh_token', client_id: clientId, refresh_token: refresh } }),
      );
      expect(res.status).toBe(200);
      // The browser session is memory-only, but the approval persisted: sign in, then no approval page.
      void jar;
      const p = pkce();
      const first = again.endpoints.authorize(req({ query: authorizeQuery(clientId, p) }));
      expect(first.body).toContain('name="password"');
    } finally {
      await again.close();
    }
  });

  it('writes state.json and jwt-key.pem with mode 0600 and no secrets in clear', async () => {
    const h = await h0();
    const { refresh } = await tokensFor(h);
    const confidential = await register(h, { token_endpoint_auth_method: 'client_secret_basic' });
    await h.provider.close();
    for (const f of ['state.json', 'jwt-key.pem'])
      expect((await stat(join(h.dir, f))).mode & 0o777).toBe(0o600);
    const text = await readFile(join(h.dir, 'state.json'), 'utf8');
    expect(text).not.toContain(refresh.split('.')[1]);
    expect(text).not.toContain(refresh.split('.')[0]);
    expect(text).not.toContain(confidential['client_secret'] as string);
    expect(h.logger.lines.join('\n')).not.toContain(PASSWORD);
  });

  it('boots empty from a corrupt state.json, moves it aside, and answers the old client with 401 invalid_client', async () => {
    const h = await h0();
    const { clientId, refresh, access } = await tokensFor(h);
    await h.provider.close();
    await writeFile(join(h.dir, 'state.json'), '{"version":1,"clients":{');
    const again = await h0({ dataDir: h.dir });
    const files = await readdir(h.dir);
    expect(files.some((f) => f.startsWith('state.json.corrupt-'))).toBe(true);
    expect(again.logger.lines.some((l) => l.includes('STATE FILE CORRUPT'))).toBe(true);
    const res = await again.provider.endpoints.token(
      req({ form: { grant_type: 'refresh_token', client_id: clientId, refresh_token: refresh } }),
    );
    expect(res.status).toBe(401);
    expect(json(res)).toMatchObject({ error: 'invalid_client' });
    const page = again.provider.endpoints.authorize(req({ query: authorizeQuery(clientId, pkce()) }));
    expect(page.status).toBe(400);
    expect(page.headers['location']).toBeUndefined();
    // Tokens from before the reset are refused too: their client and family are gone.
    await expect(again.provider.verifyAccessToken(access, HUB)).rejects.toMatchObject({
      code: 'MCPP_OAUTH_INVALID_TOKEN',
    });
  });

  it('reports events for metrics (corrupt state, registration, approval, login, revocation); a throwing listener is ignored', async () => {
    const events: string[] = [];
    const h = await h0({
      onEvent: (e: { type: string }) => {
        events.push(e.type);
        throw new Error('listener bug');
      },
    });
    const { clientId, refresh } = await tokensFor(h);
    await h.provider.endpoints.revoke(req({ form: { client_id: clientId, token: refresh } }));
    expect(events).toEqual(['client_registered', 'login_succeeded', 'client_approved', 'family_revoked']);
    await h.provider.close();
    await writeFile(join(h.dir, 'state.json'), 'garbage');
    const seen: unknown[] = [];
    const again = await h0({ dataDir: h.dir, onEvent: (e: unknown) => seen.push(e) });
    void again;
    expect(seen).toEqual([
      {
        type: 'state_corrupt',
        movedTo: expect.stringContaining('state.json.corrupt-'),
        reason: expect.any(String),
      },
    ]);
  });

  it('serves metadata built from the public URL', async () => {
    const h = await h0();
    const as = json(h.provider.endpoints.authorizationServerMetadata());
    expect(as).toMatchObject({
      issuer: ISSUER,
      authorization_endpoint: `${ISSUER}/authorize`,
      token_endpoint: `${ISSUER}/token`,
      registration_endpoint: `${ISSUER}/register`,
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      response_types_supported: ['code'],
      authorization_response_iss_parameter_supported: true,
    });
    const prm = h.provider.endpoints.protectedResourceMetadata('/servers/x/mcp');
    expect(json(prm)).toMatchObject({ resource: `${ISSUER}/servers/x/mcp`, authorization_servers: [ISSUER] });
    expect(h.provider.endpoints.protectedResourceMetadata('/servers/zzz/mcp').status).toBe(404);
    expect(json(h.provider.endpoints.protectedResourceMetadata('/mcp'))['resource']).toBe(MCP);
    expect(
      json<{ keys: { kty: string; crv: string; d?: string }[] }>(h.provider.endpoints.jwks()).keys[0],
    ).toMatchObject({
      kty: 'OKP',
      crv: 'Ed25519',
    });
    expect(json<{ keys: { d?: string }[] }>(h.provider.endpoints.jwks()).keys[0]!.d).toBeUndefined();
  });

  it('registers confidential clients, and replaces an unsupported auth method with client_secret_basic', async () => {
    const h = await h0();
    const c = await register(h, { token_endpoint_auth_method: 'private_key_jwt' });
    expect(c['token_endpoint_auth_method']).toBe('client_secret_basic');
    expect(typeof c['client_secret']).toBe('string');
    const p = pkce();
    const url = await browserFlow(h, authorizeQuery(c['client_id'] as string, p));
    const basic = Buffer.from(`${c['client_id'] as string}:${c['client_secret'] as string}`).toString(
      'base64',
    );
    const wrong = await h.provider.endpoints.token(
      req({
        headers: {
          authorization: `Basic ${Buffer.from(`${c['client_id'] as string}:nope`).toString('base64')}`,
        },
        form: {
          grant_type: 'authorization_code',
          code: url.searchParams.get('code')!,
          code_verifier: p.verifier,
          redirect_uri: REDIRECT,
        },
      }),
    );
    expect(wrong.status).toBe(401);
    expect(wrong.headers['www-authenticate']).toMatch(/^Basic/);
    const ok = await h.provider.endpoints.token(
      req({
        headers: { authorization: `Basic ${basic}` },
        form: {
          grant_type: 'authorization_code',
          code: url.searchParams.get('code')!,
          code_verifier: p.verifier,
          redirect_uri: REDIRECT,
        },
      }),
    );
    expect(ok.status).toBe(200);
  });

  it('revokes a refresh token (RFC 7009): the family and its access tokens stop working', async () => {
    const h = await h0();
    const { clientId, access, refresh } = await tokensFor(h);
    const res = await h.provider.endpoints.revoke(req({ form: { client_id: clientId, token: refresh } }));
    expect(res.status).toBe(200);
    await expect(h.provider.verifyAccessToken(access, HUB)).rejects.toMatchObject({
      code: 'MCPP_OAUTH_INVALID_TOKEN',
    });
    const again = await h.provider.endpoints.revoke(req({ form: { client_id: clientId, token: 'garbage' } }));
    expect(again.status).toBe(200);
  });

  it('revokes an access token by its jti', async () => {
    const h = await h0();
    const { clientId, access } = await tokensFor(h);
    expect(
      (await h.provider.endpoints.revoke(req({ form: { client_id: clientId, token: access } }))).status,
    ).toBe(200);
    await expect(h.provider.verifyAccessToken(access, HUB)).rejects.toMatchObject({
      code: 'MCPP_OAUTH_INVALID_TOKEN',
    });
  });

  it('answers a failed state write with 503, does not keep the client, and leaves the old file intact (F4)', async () => {
    const h = await h0();
    await register(h);
    await h.provider.close();
    const before = await readFile(join(h.dir, 'state.json'), 'utf8');
    const again = await h0({ dataDir: h.dir });
    // A real fault: the target becomes a non-empty directory, so the final rename fails (even for root).
    await rename(join(h.dir, 'state.json'), join(h.dir, 'state.saved'));
    await mkdir(join(h.dir, 'state.json', 'x'), { recursive: true });
    const res = await again.provider.endpoints.register(req({ json: { redirect_uris: [REDIRECT] } }));
    expect(res.status).toBe(503);
    expect(json(res)).toMatchObject({ error: 'temporarily_unavailable' });
    expect((await readdir(h.dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    await rm(join(h.dir, 'state.json'), { recursive: true });
    await rename(join(h.dir, 'state.saved'), join(h.dir, 'state.json'));
    expect(await readFile(join(h.dir, 'state.json'), 'utf8')).toBe(before);
    const clientId = json(res)['client_id'];
    expect(clientId).toBeUndefined();
  });
});
