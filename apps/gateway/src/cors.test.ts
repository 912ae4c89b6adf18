/**
 * CORS (issue 13.3): browser-based MCP clients get preflights and readable responses on the MCP endpoints,
 * `/token`, `/register`, `/revoke` and the well-known metadata, for allowed origins only, before auth; never
 * on `/authorize`. A real OAuth provider verifies the bearer, so the 401 carries the real challenge.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOAuthProvider, type OAuthProvider } from '@mcppipe/oauth';
import { Supervisor } from '@mcppipe/supervisor';
import { gatewayPolicy } from '@mcppipe/upstream-state';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from './app.js';
import { oauthRoutes } from './oauth/index.js';

const PUBLIC = 'https://gw.example';
const ALLOWED = 'https://inspector.example';
const OTHER = 'https://evil.example';

const open: { app: FastifyInstance; provider: OAuthProvider }[] = [];
afterEach(async () => {
  for (const { app, provider } of open.splice(0)) {
    await app.close();
    await provider.close();
  }
});

async function gateway(host = '0.0.0.0') {
  const registry = new Supervisor({ upstreams: [], policy: gatewayPolicy() });
  const provider = await createOAuthProvider({
    dataDir: await mkdtemp(join(tmpdir(), 'mcppipe-cors-')),
    publicUrl: PUBLIC,
    resources: () => [`${PUBLIC}/hub`, `${PUBLIC}/mcp`],
    adminPassword: 'cors-test-owner-password',
  });
  const app = await buildApp({
    registry,
    verifier: provider,
    publicUrl: PUBLIC,
    host,
    allowedOrigins: [ALLOWED],
    hub: { createServer: () => Promise.reject(new Error('not used')) } as never,
    oauthRoutes: oauthRoutes(provider, { protectedResourceMetadata: false, cors: false }),
    resourceMetadata: (resource) => provider.protectedResourceMetadata(resource),
  });
  open.push({ app, provider });
  return app;
}

const preflight = (app: FastifyInstance, url: string, origin: string, method = 'POST') =>
  app.inject({
    method: 'OPTIONS',
    url,
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
    },
  });

describe('CORS (13.3)', () => {
  it('answers an allowed origin’s preflight with 204 on every API path, before auth', async () => {
    const app = await gateway();
    for (const url of [
      '/mcp',
      '/hub',
      '/servers/memory/mcp',
      '/token',
      '/register',
      '/revoke',
      '/.well-known/oauth-authorization-server',
      '/.well-known/oauth-protected-resource/hub',
    ]) {
      const res = await preflight(app, url, ALLOWED);
      expect(res.statusCode, url).toBe(204);
      expect(res.headers['access-control-allow-origin'], url).toBe(ALLOWED);
      expect(res.headers['access-control-allow-methods'], url).toBe('GET, POST, DELETE, OPTIONS');
      expect(res.headers['access-control-allow-headers'], url).toBe(
        'Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID',
      );
      expect(res.headers['vary'], url).toBe('Origin');
    }
    // the public URL's own origin is always allowed
    expect((await preflight(app, '/mcp', PUBLIC)).headers['access-control-allow-origin']).toBe(PUBLIC);
  });

  it('gives a disallowed origin no CORS headers (preflight 404, real request 403 from the Origin guard)', async () => {
    const app = await gateway();
    const pre = await preflight(app, '/mcp', OTHER);
    expect(pre.statusCode).toBe(404);
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    const post = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { origin: OTHER, 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(post.statusCode).toBe(403);
    expect(post.headers['access-control-allow-origin']).toBeUndefined();
    const meta = await app.inject({
      url: '/.well-known/oauth-authorization-server',
      headers: { origin: OTHER },
    });
    expect(meta.statusCode).toBe(200);
    expect(meta.headers['access-control-allow-origin']).toBeUndefined();
    const token = await app.inject({
      method: 'POST',
      url: '/token',
      headers: { origin: OTHER, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=x',
    });
    expect(token.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('never answers CORS on /authorize and its forms', async () => {
    const app = await gateway();
    for (const url of ['/authorize', '/authorize/login', '/authorize/consent']) {
      const pre = await preflight(app, url, ALLOWED);
      expect(pre.statusCode, url).toBe(404);
      expect(pre.headers['access-control-allow-origin'], url).toBeUndefined();
    }
    const page = await app.inject({ url: '/authorize?client_id=x', headers: { origin: ALLOWED } });
    expect(page.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('lets a browser read the 401 challenge: ACAO plus WWW-Authenticate exposed', async () => {
    const app = await gateway();
    const res = await app.inject({
      method: 'POST',
      url: '/hub',
      headers: { origin: ALLOWED, 'content-type': 'application/json' },
      payload: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(res.statusCode).toBe(401);
    expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(res.headers['access-control-expose-headers']).toBe(
      'Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate',
    );
    expect(res.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${PUBLIC}/.well-known/oauth-protected-resource/hub"`,
    );
    const meta = await app.inject({
      url: '/.well-known/oauth-protected-resource/hub',
      headers: { origin: ALLOWED },
    });
    expect(meta.statusCode).toBe(200);
    expect(meta.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(meta.json()).toMatchObject({ resource: `${PUBLIC}/hub` });
  });

  it('keeps the Host guard in front of CORS on a loopback bind (no DNS-rebinding bypass)', async () => {
    const app = await gateway('127.0.0.1');
    const res = await app.inject({
      method: 'OPTIONS',
      url: '/mcp',
      headers: { host: 'rebind.attacker.example', origin: ALLOWED, 'access-control-request-method': 'POST' },
    });
    expect(res.statusCode).toBe(403);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});
