import type { UpstreamSnapshot } from '@mcppipe/supervisor';
import { normalizeResource } from '@mcppipe/oauth';
import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { GatewayDeps } from './types.js';
import { TestRegistry, fakeToken, FakeVerifier, sseJson, stageCounter } from '@mcppipe/test-utils';

const PUBLIC = 'http://127.0.0.1:4000';
const HUB = `${PUBLIC}/hub`;
const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

const echo = async (req: { method: string; params?: Record<string, unknown> }) => ({
  echoed: req.method,
  params: req.params ?? null,
});

async function setup(overrides: Partial<GatewayDeps> = {}) {
  const registry = new TestRegistry<UpstreamSnapshot>({ retryAfterMs: 1000 })
    .add('alpha', echo)
    .add('beta', echo);
  const verifier = new FakeVerifier(normalizeResource);
  const stages = stageCounter();
  const hub = {
    createServer: () => {
      throw new Error('hub not under test');
    },
  };
  const app = await buildApp({
    registry,
    verifier,
    publicUrl: PUBLIC,
    hub,
    observer: stages.observer,
    ...overrides,
  });
  apps.push(app);
  return { app, registry, verifier, stages };
}

const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const rpc = (method: string, params: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
const initialize = rpc('initialize', {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 't', version: '1' },
});

describe('pipeline order (G5) and the cost of an unauthenticated request (G6)', () => {
  it('a request without a token is refused with a challenge before its body is read', async () => {
    const { app, verifier, stages } = await setup();
    const res = await app.inject({
      method: 'POST',
      url: '/hub',
      headers: json,
      payload: 'x'.repeat(10 * 1024 * 1024),
    });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${PUBLIC}/.well-known/oauth-protected-resource/hub"`,
    );
    expect(res.headers['connection']).toBe('close');
    expect(verifier.calls).toBe(0);
    expect(stages.count('body')).toBe(0);
    expect(stages.count('gate')).toBe(0);
  });

  it('an invalid token gets error="invalid_token" and costs one verification, no body read', async () => {
    const { app, verifier, stages } = await setup({ bodyLimit: 1024 });
    const res = await app.inject({
      method: 'POST',
      url: '/servers/alpha/mcp',
      headers: { ...json, authorization: 'Bearer nope' },
      payload: 'y'.repeat(4096),
    });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(
      /^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="http:\/\/127\.0\.0\.1:4000\/\.well-known\/oauth-protected-resource\/servers\/alpha\/mcp"$/,
    );
    expect(verifier.calls).toBe(1);
    expect(stages.count('body')).toBe(0);
  });

  it('a token in the query string is ignored', async () => {
    const { app, verifier } = await setup();
    const res = await app.inject({
      method: 'POST',
      url: `/hub?access_token=${fakeToken('c', HUB)}`,
      headers: json,
      payload: initialize,
    });
    expect(res.statusCode).toBe(401);
    expect(verifier.calls).toBe(0);
  });

  it('over the rate limit a request gets 429 before verification or parsing', async () => {
    const { app, verifier, stages } = await setup({ rateLimit: { max: 3 } });
    const headers = { ...json, authorization: `Bearer ${fakeToken('c', HUB)}` };
    for (let i = 0; i < 3; i++) {
      expect(
        (await app.inject({ method: 'POST', url: '/hub', headers, payload: '{not json' })).statusCode,
      ).toBe(400);
    }
    const res = await app.inject({ method: 'POST', url: '/hub', headers, payload: '{not json' });
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null });
    expect(verifier.calls).toBe(3);
    expect(stages.count('rateLimit', 'reject')).toBe(1);
    expect(stages.count('body')).toBe(3);
    // /livez is not rate limited
    expect((await app.inject({ url: '/livez' })).statusCode).toBe(200);
  });

  it('while the shared buckets are away: JSON-RPC 503 on MCP paths, { error, message } on /api, /readyz 503, /livez 200', async () => {
    const away = Object.assign(new Error("the store's Redis is unavailable"), {
      code: 'MCPP_STORE_UNAVAILABLE',
    });
    const { app, verifier } = await setup({
      rateLimit: { shared: { take: () => Promise.reject(away) } },
      ready: () => Promise.reject(away),
    });
    const mcp = await app.inject({ method: 'POST', url: '/hub', headers: json, payload: initialize });
    expect(mcp.statusCode).toBe(503);
    expect(mcp.headers['retry-after']).toBe('1');
    expect(mcp.json()).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32000,
        message: 'Service unavailable: the shared rate-limit store (Redis) is unreachable; retry shortly',
      },
      id: null,
    });
    const api = await app.inject({ url: '/api/tunnels' });
    expect(api.statusCode).toBe(503);
    expect(api.headers['retry-after']).toBe('1');
    expect(api.json()).toEqual({
      error: 'store_unavailable',
      message: 'Service unavailable: the shared rate-limit store (Redis) is unreachable; retry shortly',
    });
    const ready = await app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.headers['retry-after']).toBe('1');
    expect(ready.headers['cache-control']).toBe('no-store');
    expect(ready.json()).toEqual({
      status: 'unavailable',
      error: 'MCPP_STORE_UNAVAILABLE',
      message: "the store's Redis is unavailable",
    });
    expect((await app.inject({ url: '/livez' })).statusCode).toBe(200);
    expect(verifier.calls).toBe(0);
  });

  it('/readyz answers 200 on one node (no shared store) and is not rate limited', async () => {
    const { app } = await setup({ rateLimit: { max: 1 } });
    expect((await app.inject({ url: '/nope' })).statusCode).toBe(404);
    const over = await app.inject({ url: '/api/tunnels' });
    expect(over.statusCode).toBe(429);
    expect(over.json()).toEqual({ error: 'rate_limited', message: 'Too many requests: rate limit exceeded' });
    for (let i = 0; i < 3; i++) {
      const res = await app.inject({ url: '/readyz' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'ready' });
    }
  });

  it('unknown paths answer 404 without verification', async () => {
    const { app, verifier } = await setup();
    const res = await app.inject({ method: 'POST', url: '/nope', headers: json, payload: initialize });
    expect(res.statusCode).toBe(404);
    expect(verifier.calls).toBe(0);
  });
});

describe('audience (resource) check', () => {
  it('tokens for /hub and for a server path are not interchangeable; /health shares /hub', async () => {
    const { app, stages } = await setup();
    const hubToken = `Bearer ${fakeToken('c', HUB)}`;
    const alphaToken = `Bearer ${fakeToken('c', `${PUBLIC}/servers/alpha/mcp`)}`;
    const atServer = await app.inject({
      method: 'POST',
      url: '/servers/alpha/mcp',
      headers: { ...json, authorization: hubToken },
      payload: initialize,
    });
    expect(atServer.statusCode).toBe(401);
    expect(atServer.headers['www-authenticate']).toContain('error="invalid_token"');
    const atHub = await app.inject({
      method: 'POST',
      url: '/hub',
      headers: { ...json, authorization: alphaToken },
      payload: initialize,
    });
    expect(atHub.statusCode).toBe(401);
    const atBeta = await app.inject({
      method: 'POST',
      url: '/servers/beta/mcp',
      headers: { ...json, authorization: alphaToken },
      payload: initialize,
    });
    expect(atBeta.statusCode).toBe(401);
    expect(stages.count('audience', 'reject')).toBe(3);
    expect(stages.count('body')).toBe(0);
    expect((await app.inject({ url: '/health', headers: { authorization: hubToken } })).statusCode).toBe(200);
    expect((await app.inject({ url: '/health', headers: { authorization: alphaToken } })).statusCode).toBe(
      401,
    );
  });
});

describe('per-client gate', () => {
  it('limits requests per minute per client id, with Retry-After, independent of other clients', async () => {
    let now = 1_000_000;
    const { app, stages } = await setup({ clientLimits: { requestsPerMinute: 2 }, now: () => now });
    const as = (client: string) => ({ authorization: `Bearer ${fakeToken(client, HUB)}` });
    expect((await app.inject({ url: '/health', headers: as('a') })).statusCode).toBe(200);
    expect((await app.inject({ url: '/health', headers: as('a') })).statusCode).toBe(200);
    const third = await app.inject({ url: '/health', headers: as('a') });
    expect(third.statusCode).toBe(429);
    expect(third.headers['retry-after']).toBe('60');
    expect((await app.inject({ url: '/health', headers: as('b') })).statusCode).toBe(200);
    now += 60_000;
    expect((await app.inject({ url: '/health', headers: as('a') })).statusCode).toBe(200);
    expect(stages.count('gate', 'reject')).toBe(1);
    expect(app.gateway.gate.totalInFlight()).toBe(0);
  });
});

describe('body parsing (stage 5)', () => {
  const auth = { ...json, authorization: `Bearer ${fakeToken('c', `${PUBLIC}/servers/alpha/mcp`)}` };
  const post = (app: FastifyInstance, payload: string | Buffer, headers: Record<string, string> = auth) =>
    app.inject({ method: 'POST', url: '/servers/alpha/mcp', headers, payload });

  it('an authenticated oversize body is 413 with a JSON-RPC error', async () => {
    const { app } = await setup({ bodyLimit: 1024 });
    const res = await post(
      app,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'x', params: { pad: 'z'.repeat(2048) } }),
    );
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 }, id: null });
  });

  it('deep nesting is refused before parsing; poisoning, bad UTF-8, wrong media type and gzip are refused', async () => {
    const { app } = await setup();
    const deep = await post(app, '['.repeat(100_000) + ']'.repeat(100_000));
    expect(deep.statusCode).toBe(400);
    expect(deep.json()).toMatchObject({
      error: { code: -32700, message: expect.stringContaining('deeper') },
    });
    expect(
      (await post(app, '{"jsonrpc":"2.0","id":1,"method":"x","params":{"__proto__":{"polluted":1}}}'))
        .statusCode,
    ).toBe(400);
    expect((await post(app, '{"constructor":{"prototype":{"polluted":1}}}')).statusCode).toBe(400);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect((await post(app, Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]))).statusCode).toBe(
      400,
    );
    expect((await post(app, '{"jsonrpc":"2.0",')).json()).toMatchObject({ error: { code: -32700 } });
    expect((await post(app, initialize, { ...auth, 'content-type': 'text/plain' })).statusCode).toBe(415);
    expect((await post(app, initialize, { ...auth, 'content-encoding': 'gzip' })).statusCode).toBe(415);
  });
});

describe('routing (stage 6)', () => {
  const tokenFor = (path: string) => `Bearer ${fakeToken('c', `${PUBLIC}${path}`)}`;

  const postAlpha = (app: Awaited<ReturnType<typeof setup>>['app']) =>
    app.inject({
      method: 'POST',
      url: '/servers/alpha/mcp',
      headers: { ...json, authorization: tokenFor('/servers/alpha/mcp') },
      payload: initialize,
    });

  it('a server that is not available answers 503 with a JSON-RPC error naming its phase (G9)', async () => {
    const { app, registry } = await setup();
    registry.setPhase('alpha', 'recovering');
    const res = await postAlpha(app);
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({
      jsonrpc: '2.0',
      error: {
        code: -32000,
        message: expect.stringContaining('recovering'),
        data: { upstream: 'alpha', phase: 'recovering' },
      },
    });
  });

  it('the 503 of a server that is not up has the one upstream_unavailable format and data (G9)', async () => {
    const { app, registry } = await setup();
    registry.snapshots.set('alpha', { ...registry.get('alpha')!, phase: 'connecting', retryAfterMs: 0 });
    const res = await postAlpha(app);
    expect(res.statusCode).toBe(503);
    const { error } = res.json<{ error: { code: number; message: string; data: Record<string, unknown> } }>();
    expect(error.code).toBe(-32000);
    expect(error.message).toBe('upstream_unavailable: upstream "alpha" is connecting; reconnecting now');
    expect(error.data).toEqual({
      upstream: 'alpha',
      phase: 'connecting',
      retryAfterMs: 0,
      since: expect.any(String),
    });
  });

  it('an unknown server is 404 after the pipeline; a malformed name is 404 before it', async () => {
    const { app, verifier } = await setup();
    const unknown = await app.inject({
      method: 'POST',
      url: '/servers/gamma/mcp',
      headers: { ...json, authorization: tokenFor('/servers/gamma/mcp') },
      payload: initialize,
    });
    expect(unknown.statusCode).toBe(404);
    expect(verifier.calls).toBe(1);
    const malformed = await app.inject({
      method: 'POST',
      url: '/servers/Bad%22Name/mcp',
      headers: json,
      payload: initialize,
    });
    expect(malformed.statusCode).toBe(404);
    expect(verifier.calls).toBe(1);
  });

  it('serves a 2025-era initialize on a server path with the upstream identity and capabilities', async () => {
    const { app } = await setup();
    const res = await app.inject({
      method: 'POST',
      url: '/servers/alpha/mcp',
      headers: { ...json, authorization: tokenFor('/servers/alpha/mcp') },
      payload: initialize,
    });
    expect(res.statusCode).toBe(200);
    const text = res.body;
    const message = (text.startsWith('{') ? JSON.parse(text) : sseJson(text)[0]) as {
      result: { serverInfo: unknown; capabilities: unknown };
    };
    expect(message.result.serverInfo).toEqual({ name: 'alpha-server', version: '1.2.3' });
    expect(message.result.capabilities).toEqual({ tools: {} });
    expect(res.headers['mcp-session-id']).toBeUndefined();
    expect(app.gateway.gate.totalInFlight()).toBe(0);
  });

  it('serves the protected-resource metadata of each endpoint, built from the public URL only', async () => {
    const { app } = await setup();
    const res = await app.inject({
      url: '/.well-known/oauth-protected-resource/servers/alpha/mcp',
      headers: { host: 'evil.example:1', 'x-forwarded-host': 'evil.example' },
    });
    expect(res.statusCode).toBe(403); // loopback bind: a foreign Host is refused first
    const ok = await app.inject({ url: '/.well-known/oauth-protected-resource/servers/alpha/mcp' });
    expect(ok.json()).toMatchObject({
      resource: `${PUBLIC}/servers/alpha/mcp`,
      authorization_servers: [PUBLIC],
    });
    expect(
      (await app.inject({ url: '/.well-known/oauth-protected-resource/servers/gamma/mcp' })).statusCode,
    ).toBe(404);
  });

  it('refuses a foreign Origin on MCP endpoints (403) and accepts the public origin', async () => {
    const { app, verifier } = await setup();
    const headers = { ...json, authorization: tokenFor('/hub') };
    expect(
      (await app.inject({ url: '/health', headers: { ...headers, origin: 'https://evil.example' } }))
        .statusCode,
    ).toBe(403);
    expect(verifier.calls).toBe(0);
    expect((await app.inject({ url: '/health', headers: { ...headers, origin: PUBLIC } })).statusCode).toBe(
      200,
    );
  });
});
