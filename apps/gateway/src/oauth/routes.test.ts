import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOAuthProvider, type OAuthProvider } from '@mcppipe/oauth';
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { oauthRoutes, type OAuthRoutesOptions } from './routes.js';

const PUBLIC = 'https://gw.example';
const PASSWORD = 'owner-password-1';
const REDIRECT = 'https://client.example/cb';

interface Ctx {
  app: FastifyInstance;
  provider: OAuthProvider;
  dir: string;
  advance: (ms: number) => void;
}
const opened: Ctx[] = [];
afterEach(async () => {
  for (const c of opened.splice(0)) {
    await c.app.close();
    await c.provider.close();
  }
});

async function setup(options: OAuthRoutesOptions = {}): Promise<Ctx> {
  const dir = await mkdtemp(join(tmpdir(), 'mcppipe-gw-oauth-'));
  let now = Date.UTC(2026, 10, 30, 12);
  const provider = await createOAuthProvider({
    dataDir: dir,
    publicUrl: PUBLIC,
    resources: () => [`${PUBLIC}/hub`, `${PUBLIC}/mcp`, `${PUBLIC}/servers/x/mcp`],
    adminPassword: PASSWORD,
    clock: () => now,
  });
  const app = Fastify();
  await app.register(oauthRoutes(provider, options));
  await app.ready();
  const c = { app, provider, dir, advance: (ms: number) => (now += ms) };
  opened.push(c);
  return c;
}

const stateHash = async (dir: string): Promise<string> =>
  createHash('sha256')
    .update(await readFile(join(dir, 'state.json')).catch(() => Buffer.alloc(0)))
    .digest('hex');
const form = (o: Record<string, string>): string => new URLSearchParams(o).toString();
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const field = (html: string, name: string): string =>
  new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';
const cookieOf = (res: LightMyRequestResponse): string =>
  String(res.headers['set-cookie'] ?? '').split(';')[0]!;

async function registerClient(app: FastifyInstance, body: Record<string, unknown> = {}) {
  const res = await app.inject({
    method: 'POST',
    url: '/register',
    payload: { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', client_name: 'Test', ...body },
  });
  return res;
}

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Drives the browser part over HTTP; returns the final redirect Location. */
async function browser(app: FastifyInstance, clientId: string, challenge: string): Promise<URL> {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'xyz',
    resource: `${PUBLIC}/hub`,
  });
  const page = await app.inject({ url: `/authorize?${query}` });
  expect(page.statusCode).toBe(200);
  let cookie = cookieOf(page);
  const login = await app.inject({
    method: 'POST',
    url: '/authorize/login',
    headers: { ...FORM, cookie, origin: PUBLIC },
    payload: form({
      csrf_token: field(page.body, 'csrf_token'),
      request_id: field(page.body, 'request_id'),
      password: PASSWORD,
    }),
  });
  expect(login.statusCode).toBe(303);
  cookie = cookieOf(login);
  const next = new URL(String(login.headers.location));
  const consent = await app.inject({ url: `${next.pathname}${next.search}`, headers: { cookie } });
  expect(consent.statusCode).toBe(200);
  const approve = await app.inject({
    method: 'POST',
    url: '/authorize/consent',
    headers: { ...FORM, cookie, origin: PUBLIC },
    payload: form({
      csrf_token: field(consent.body, 'csrf_token'),
      request_id: field(consent.body, 'request_id'),
      decision: 'approve',
    }),
  });
  expect(approve.statusCode).toBe(303);
  return new URL(String(approve.headers.location));
}

describe('OAuth routes (inject)', () => {
  it('A2/A3: metadata is built from the public URL; Host and X-Forwarded-* change nothing', async () => {
    const { app } = await setup();
    for (const headers of [
      {},
      { host: 'evil.example' },
      { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' },
    ]) {
      const as = await app.inject({ url: '/.well-known/oauth-authorization-server', headers });
      expect(as.statusCode).toBe(200);
      expect(as.json()).toMatchObject({
        issuer: PUBLIC,
        token_endpoint: `${PUBLIC}/token`,
        code_challenge_methods_supported: ['S256'],
      });
      expect(as.body).not.toContain('evil');
      const prm = await app.inject({ url: '/.well-known/oauth-protected-resource/servers/x/mcp', headers });
      expect(prm.statusCode).toBe(200);
      expect(prm.headers['content-type']).toMatch(/^application\/json/);
      expect(prm.json()).toMatchObject({
        resource: `${PUBLIC}/servers/x/mcp`,
        authorization_servers: [PUBLIC],
      });
    }
    const oidc = await app.inject({ url: '/.well-known/openid-configuration' });
    expect(oidc.json()['grant_types_supported']).toEqual(['authorization_code', 'refresh_token']);
    expect(
      (await app.inject({ url: '/.well-known/oauth-protected-resource/servers/nope/mcp' })).statusCode,
    ).toBe(404);
    expect((await app.inject({ url: '/.well-known/jwks.json' })).json().keys).toHaveLength(1);
  });

  it('CORS on metadata, token, registration and revocation; not on authorize', async () => {
    const { app } = await setup();
    const origin = { origin: 'https://app.example' };
    expect(
      (await app.inject({ url: '/.well-known/oauth-authorization-server', headers: origin })).headers[
        'access-control-allow-origin'
      ],
    ).toBe('*');
    const pre = await app.inject({
      method: 'OPTIONS',
      url: '/token',
      headers: { ...origin, 'access-control-request-method': 'POST' },
    });
    expect(pre.statusCode).toBe(204);
    expect(pre.headers['access-control-allow-methods']).toContain('POST');
    expect(
      (
        await app.inject({
          method: 'POST',
          url: '/token',
          headers: { ...FORM, ...origin },
          payload: 'grant_type=x',
        })
      ).headers['access-control-allow-origin'],
    ).toBe('*');
    expect((await registerClient(app)).headers['access-control-allow-origin']).toBe('*');
    const authz = await app.inject({ url: '/authorize?client_id=x', headers: origin });
    expect(authz.headers['access-control-allow-origin']).toBeUndefined();
    expect((await app.inject({ method: 'OPTIONS', url: '/authorize', headers: origin })).statusCode).toBe(
      404,
    );
  });

  it('A5: /register refuses dangerous redirect URIs with 400 invalid_redirect_uri and stores nothing', async () => {
    const { app, dir } = await setup();
    const before = await stateHash(dir);
    for (const uri of [
      'javascript:alert(1)',
      'data:text/html,x',
      'file:///etc/passwd',
      'vbscript:x',
      'http://example.com/cb',
      'https://c.example/cb#f',
      'https://u@c.example/cb',
    ]) {
      const res = await registerClient(app, { redirect_uris: [uri] });
      expect(res.statusCode, uri).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_redirect_uri' });
      expect(res.headers['cache-control']).toBe('no-store');
    }
    expect(await stateHash(dir)).toBe(before);
    const ok = await registerClient(app, {
      redirect_uris: ['cursor://anysphere.cursor-mcp/oauth/callback', 'http://127.0.0.1/'],
    });
    expect(ok.statusCode).toBe(201);
    expect(ok.json()['client_id']).toEqual(expect.any(String));
  });

  it('registration errors from the framework are OAuth JSON errors', async () => {
    const { app } = await setup();
    const bad = await app.inject({
      method: 'POST',
      url: '/register',
      headers: { 'content-type': 'application/json' },
      payload: '{"redirect_uris":',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'invalid_request' });
    const text = await app.inject({
      method: 'POST',
      url: '/register',
      headers: { 'content-type': 'text/plain' },
      payload: 'x',
    });
    expect(text.statusCode).toBe(400);
    expect(text.json()).toMatchObject({ error: 'invalid_client_metadata' });
    const proto = await app.inject({
      method: 'POST',
      url: '/register',
      headers: { 'content-type': 'application/json' },
      payload: '{"__proto__":{"x":1},"redirect_uris":["https://a.example/cb"]}',
    });
    expect(proto.statusCode).toBe(400);
    const huge = await app.inject({
      method: 'POST',
      url: '/token',
      headers: FORM,
      payload: `a=${'x'.repeat(100_000)}`,
    });
    expect(huge.statusCode).toBe(413);
  });

  it('runs the full flow over HTTP: 303s, iss, state, no-store tokens, refresh', async () => {
    const { app } = await setup();
    const clientId = (await registerClient(app)).json()['client_id'] as string;
    const p = pkce();
    const cb = await browser(app, clientId, p.challenge);
    expect(cb.searchParams.get('state')).toBe('xyz');
    expect(cb.searchParams.get('iss')).toBe(PUBLIC);
    const token = await app.inject({
      method: 'POST',
      url: '/token',
      headers: FORM,
      payload: form({
        grant_type: 'authorization_code',
        client_id: clientId,
        code: cb.searchParams.get('code')!,
        code_verifier: p.verifier,
        redirect_uri: REDIRECT,
        resource: `${PUBLIC}/hub`,
      }),
    });
    expect(token.statusCode).toBe(200);
    expect(token.headers['cache-control']).toBe('no-store');
    const body = token.json();
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'mcp' });
    const refreshed = await app.inject({
      method: 'POST',
      url: '/token',
      headers: FORM,
      payload: form({ grant_type: 'refresh_token', client_id: clientId, refresh_token: body.refresh_token }),
    });
    expect(refreshed.statusCode).toBe(200);
    const revoked = await app.inject({
      method: 'POST',
      url: '/revoke',
      headers: FORM,
      payload: form({ client_id: clientId, token: refreshed.json().refresh_token }),
    });
    expect(revoked.statusCode).toBe(200);
  });

  it('A7: pages carry anti-framing headers and hardened cookies; bad CSRF gets 403 and no code', async () => {
    const { app, dir } = await setup();
    const clientId = (await registerClient(app)).json()['client_id'] as string;
    const page = await app.inject({
      url: `/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: pkce().challenge, code_challenge_method: 'S256' })}`,
    });
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(String(page.headers['set-cookie'])).toMatch(
      /^__Host-mcppipe-session=[^;]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+; Secure$/,
    );
    const before = await stateHash(dir);
    const res = await app.inject({
      method: 'POST',
      url: '/authorize/login',
      headers: { ...FORM, cookie: cookieOf(page), origin: 'https://evil.example' },
      payload: form({
        csrf_token: field(page.body, 'csrf_token'),
        request_id: field(page.body, 'request_id'),
        password: PASSWORD,
      }),
    });
    expect(res.statusCode).toBe(403);
    expect(res.headers.location).toBeUndefined();
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(await stateHash(dir)).toBe(before);
  });

  it('A5/A11: unknown client or unregistered redirect at /authorize → 400 page, no Location', async () => {
    const { app } = await setup();
    const clientId = (await registerClient(app)).json()['client_id'] as string;
    for (const [id, uri] of [
      ['unknown', REDIRECT],
      [clientId, `${REDIRECT}/x`],
      [clientId, 'https://CLIENT.example/cb'],
    ]) {
      const res = await app.inject({
        url: `/authorize?${new URLSearchParams({ response_type: 'code', client_id: id!, redirect_uri: uri!, code_challenge: pkce().challenge, code_challenge_method: 'S256' })}`,
      });
      expect(res.statusCode).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.headers['content-type']).toMatch(/^text\/html/);
    }
    const token = await app.inject({
      method: 'POST',
      url: '/token',
      headers: FORM,
      payload: form({ grant_type: 'refresh_token', client_id: 'unknown', refresh_token: 'a.b' }),
    });
    expect(token.statusCode).toBe(401);
    expect(token.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('A4: missing or plain PKCE → 400 page; duplicate parameters → 400', async () => {
    const { app } = await setup();
    const clientId = (await registerClient(app)).json()['client_id'] as string;
    const base: Record<string, string> = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
    };
    const extras: Record<string, string>[] = [
      {},
      { code_challenge: pkce().challenge, code_challenge_method: 'plain' },
      { code_challenge: pkce().challenge },
    ];
    for (const extra of extras) {
      const res = await app.inject({ url: `/authorize?${new URLSearchParams({ ...base, ...extra })}` });
      expect(res.statusCode).toBe(400);
      expect(res.headers.location).toBeUndefined();
    }
    const dup = await app.inject({
      url: `/authorize?${new URLSearchParams({ ...base, code_challenge: pkce().challenge, code_challenge_method: 'S256' })}&client_id=${clientId}`,
    });
    expect(dup.statusCode).toBe(400);
  });

  it('rate-limits each endpoint per IP with 429 and Retry-After', async () => {
    const { app } = await setup({ rateLimits: { register: { max: 2, timeWindowMs: 60_000 } } });
    expect((await registerClient(app)).statusCode).toBe(201);
    expect((await registerClient(app)).statusCode).toBe(201);
    const limited = await registerClient(app);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
    expect(limited.json()).toMatchObject({ error: 'rate_limited' });
  });

  it('A8: login throttling answers 429 + Retry-After over HTTP', async () => {
    const { app } = await setup();
    const clientId = (await registerClient(app)).json()['client_id'] as string;
    const page = await app.inject({
      url: `/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: pkce().challenge, code_challenge_method: 'S256' })}`,
    });
    const attempt = () =>
      app.inject({
        method: 'POST',
        url: '/authorize/login',
        headers: { ...FORM, cookie: cookieOf(page), origin: PUBLIC },
        payload: form({
          csrf_token: field(page.body, 'csrf_token'),
          request_id: field(page.body, 'request_id'),
          password: 'wrong',
        }),
      });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await attempt()).statusCode);
    expect(statuses.slice(0, 6)).toEqual([401, 401, 401, 401, 401, 401]);
    const last = await attempt();
    expect(last.statusCode).toBe(429);
    expect(Number(last.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});
