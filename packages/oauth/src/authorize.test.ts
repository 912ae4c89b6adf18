import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { OAuthHttpResponse } from './http.js';
import { createOAuthProvider } from './provider.js';
import {
  authorizeQuery,
  harnessPerTest,
  ISSUER,
  PASSWORD,
  pkce,
  REDIRECT,
  register,
  req,
} from '@mcppipe/test-utils';
import type { Harness as TestHarness } from '@mcppipe/test-utils';
import type { OAuthProvider } from './provider.js';
import type { OAuthProviderOptions } from './options.js';

type Harness = TestHarness<OAuthProvider, OAuthProviderOptions>;

const h0 = harnessPerTest(createOAuthProvider);
const field = (html: string | undefined, name: string): string =>
  new RegExp(`name="${name}" value="([^"]*)"`).exec(html ?? '')?.[1] ?? '';
const cookie = (res: OAuthHttpResponse): string => res.cookies?.[0]?.split(';')[0] ?? '';
const stateOf = async (h: Harness): Promise<string> => {
  await h.provider.close();
  return readFile(join(h.dir, 'state.json'), 'utf8').catch(() => '');
};

async function loginPage(h: Harness, extra: Record<string, string> = {}) {
  const client = await register(h, { client_name: '<script>alert(1)</script>' });
  const res = h.provider.endpoints.authorize(
    req({ query: authorizeQuery(client['client_id'] as string, pkce(), extra) }),
  );
  return {
    client,
    res,
    csrf: field(res.body, 'csrf_token'),
    requestId: field(res.body, 'request_id'),
    cookie: cookie(res),
  };
}

describe('A4 PKCE and request validation at /authorize', () => {
  it('shows a 400 page (never a redirect) for missing PKCE, plain, missing method, bad response_type', async () => {
    const h = await h0();
    const client = await register(h);
    const id = client['client_id'] as string;
    const p = pkce();
    const cases: Record<string, string | undefined>[] = [
      { code_challenge: undefined },
      { code_challenge_method: 'plain' },
      { code_challenge_method: undefined },
      { code_challenge: 'short' },
      { response_type: 'token' },
      { redirect_uri: `${REDIRECT}/other` },
      { client_id: 'unknown' },
    ];
    for (const c of cases) {
      const q = Object.fromEntries(
        Object.entries({ ...authorizeQuery(id, p), ...c }).filter(([, v]) => v !== undefined),
      );
      const res = h.provider.endpoints.authorize(req({ query: q }));
      expect(res.status, JSON.stringify(c)).toBe(400);
      expect(res.headers['location']).toBeUndefined();
      expect(res.headers['x-frame-options']).toBe('DENY');
    }
    const dup = h.provider.endpoints.authorize(
      req({ query: { ...authorizeQuery(id, p), state: ['a', 'b'] } }),
    );
    expect(dup.status).toBe(400);
  });
});

describe('A7 login and approval pages', () => {
  it('sets anti-framing headers, a hardened cookie, escapes client data', async () => {
    const h = await h0();
    const { res } = await loginPage(h, { state: '"><script>x</script>' });
    expect(res.status).toBe(200);
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.cookies?.[0]).toMatch(
      /^__Host-mcppipe-session=[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+; Secure$/,
    );
    expect(res.body).not.toContain('<script>');
    expect(res.body).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(res.body).toContain('name="password"');
    expect(res.body).toContain('name="csrf_token"');
  });

  it('drops Secure and the __Host- prefix only for a plain-http loopback public URL', async () => {
    const h = await h0({
      publicUrl: 'http://127.0.0.1:8080',
      resources: () => ['http://127.0.0.1:8080/hub'],
    });
    const client = await register(h);
    const res = h.provider.endpoints.authorize(
      req({ query: authorizeQuery(client['client_id'] as string, pkce()) }),
    );
    expect(res.cookies?.[0]).toMatch(/^mcppipe-session=.*SameSite=Lax; Max-Age=\d+$/);
  });

  it('refuses posts without CSRF token, with another session’s token, or from another origin (403, no code)', async () => {
    const h = await h0();
    const a = await loginPage(h);
    const b = await loginPage(h);
    const attempts = [
      {
        headers: { cookie: a.cookie, origin: ISSUER },
        form: { request_id: a.requestId, password: PASSWORD },
      },
      {
        headers: { cookie: a.cookie, origin: ISSUER },
        form: { csrf_token: b.csrf, request_id: a.requestId, password: PASSWORD },
      },
      {
        headers: { cookie: a.cookie, origin: 'https://evil.example' },
        form: { csrf_token: a.csrf, request_id: a.requestId, password: PASSWORD },
      },
      {
        headers: { cookie: a.cookie, 'sec-fetch-site': 'cross-site' },
        form: { csrf_token: a.csrf, request_id: a.requestId, password: PASSWORD },
      },
      {
        headers: { origin: ISSUER },
        form: { csrf_token: a.csrf, request_id: a.requestId, password: PASSWORD },
      },
    ];
    for (const at of attempts) {
      const res = await h.provider.endpoints.login(req(at));
      expect(res.status).toBe(403);
      expect(res.headers['location']).toBeUndefined();
      expect(res.cookies).toBeUndefined();
    }
    // Another session's request id is not found in this session.
    const cross = await h.provider.endpoints.login(
      req({
        headers: { cookie: a.cookie, origin: ISSUER },
        form: { csrf_token: a.csrf, request_id: b.requestId, password: PASSWORD },
      }),
    );
    expect(cross.status).toBe(400);
    // Approval without login is refused.
    const consent = await h.provider.endpoints.consent(
      req({
        headers: { cookie: a.cookie, origin: ISSUER },
        form: { csrf_token: a.csrf, request_id: a.requestId, decision: 'approve' },
      }),
    );
    expect(consent.status).toBe(403);
    expect(await stateOf(h)).not.toContain('"grants": {\n  "');
  });

  it('logs in with 303, rotates the session, then approval 303s with code, state and iss; deny 303s with access_denied', async () => {
    const h = await h0();
    const a = await loginPage(h);
    const res = await h.provider.endpoints.login(
      req({
        headers: { cookie: a.cookie, origin: ISSUER },
        form: { csrf_token: a.csrf, request_id: a.requestId, password: PASSWORD },
      }),
    );
    expect(res.status).toBe(303);
    const fresh = cookie(res);
    expect(fresh).not.toBe(a.cookie);
    const next = new URL(res.headers['location']!);
    expect(next.origin + next.pathname).toBe(`${ISSUER}/authorize`);
    const page = h.provider.endpoints.authorize(
      req({ query: Object.fromEntries(next.searchParams), headers: { cookie: fresh } }),
    );
    expect(page.body).toContain('name="decision" value="deny"');
    // The old session id no longer works.
    const stale = h.provider.endpoints.authorize(
      req({ query: Object.fromEntries(next.searchParams), headers: { cookie: a.cookie } }),
    );
    expect(stale.body).toContain('name="password"');
    const deny = await h.provider.endpoints.consent(
      req({
        headers: { cookie: fresh, origin: ISSUER },
        form: {
          csrf_token: field(page.body, 'csrf_token'),
          request_id: field(page.body, 'request_id'),
          decision: 'deny',
        },
      }),
    );
    expect(deny.status).toBe(303);
    const denied = new URL(deny.headers['location']!);
    expect(Object.fromEntries(denied.searchParams)).toEqual({
      error: 'access_denied',
      state: 'st-123',
      iss: ISSUER,
    });
  });
});

describe('A8 login throttling', () => {
  it('grows the delay, answers 429 with Retry-After before checking the password, and lets the owner in later', async () => {
    const h = await h0();
    const a = await loginPage(h);
    const attempt = (password: string, ip = '198.51.100.1') =>
      h.provider.endpoints.login(
        req({
          ip,
          headers: { cookie: a.cookie, origin: ISSUER },
          form: { csrf_token: a.csrf, request_id: a.requestId, password },
        }),
      );
    for (let i = 0; i < 5; i++) expect((await attempt('wrong')).status).toBe(401);
    expect((await attempt('wrong')).status).toBe(401); // 6th: recorded, now blocked for 1 s
    const blocked = await attempt(PASSWORD);
    expect(blocked.status).toBe(429);
    expect(blocked.headers['retry-after']).toBe('1');
    h.advance(1000);
    expect((await attempt('wrong')).status).toBe(401);
    const longer = await attempt('wrong');
    expect(longer.status).toBe(429);
    expect(Number(longer.headers['retry-after'])).toBe(2);
    // Rotating IPs still hit the account-wide limit.
    h.advance(10_000);
    let lastStatus = 0;
    for (let i = 0; i < 30; i++) lastStatus = (await attempt('wrong', `192.0.2.${i}`)).status;
    expect(lastStatus).toBe(429);
    // The lock is temporary.
    h.advance(16 * 60_000);
    const b = await loginPage(h); // the pending request expired meanwhile (10 min)
    const ok = await h.provider.endpoints.login(
      req({
        ip: '192.0.2.200',
        headers: { cookie: b.cookie, origin: ISSUER },
        form: { csrf_token: b.csrf, request_id: b.requestId, password: PASSWORD },
      }),
    );
    expect(ok.status).toBe(303);
  });
});
