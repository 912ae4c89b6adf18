import type { McpHttpHost } from '@mcppipe/http';
import { afterEach, describe, expect, it } from 'vitest';
import { buildHttpServer } from './httpServer.js';
import type { McpFastify } from './httpServer.js';

/** A host that answers 200 with the method, so a test sees whether a request got through the hooks. */
const okHost: McpHttpHost = {
  async handle(req, res) {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ method: req.method }));
  },
  notify: {} as McpHttpHost['notify'],
  sessionCount: () => 0,
  close: async () => {},
  [Symbol.asyncDispose]: async () => {},
};

const apps: McpFastify[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function app(options: { allowedHosts?: string[]; allowedOrigins?: string[] } = {}) {
  const a = await buildHttpServer({
    host: '127.0.0.1',
    bodyLimit: 1024,
    endpoints: { '/mcp': okHost },
    ...options,
  });
  apps.push(a);
  return a;
}

const post = (a: McpFastify, headers: Record<string, string>) =>
  a.inject({
    method: 'POST',
    url: '/mcp',
    headers: { 'content-type': 'application/json', ...headers },
    payload: '{}',
  });

describe('loopback Host and Origin validation (DNS-rebinding protection)', () => {
  it('lets loopback hosts and origins through, repeatedly (memoized) and with ports', async () => {
    const a = await app();
    for (let i = 0; i < 3; i++) {
      for (const host of ['127.0.0.1:8808', 'localhost:8808', 'localhost', '[::1]:8808', '127.0.0.2:8808']) {
        expect((await post(a, { host })).statusCode).toBe(200);
      }
      expect((await post(a, { host: '127.0.0.1:8808', origin: 'http://localhost:5173' })).statusCode).toBe(
        200,
      );
    }
  });

  it('answers 403 with a JSON-RPC error for another Host or Origin, every time', async () => {
    const a = await app();
    for (let i = 0; i < 3; i++) {
      const host = await post(a, { host: 'evil.example:8808' });
      expect(host.statusCode).toBe(403);
      expect(host.json()).toEqual({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Forbidden: Host "evil.example:8808" is not allowed' },
        id: null,
      });
      const origin = await post(a, { host: '127.0.0.1:8808', origin: 'http://evil.example' });
      expect(origin.statusCode).toBe(403);
      expect(origin.json()).toMatchObject({
        error: { message: 'Forbidden: Origin "http://evil.example" is not allowed' },
      });
    }
  });

  it('honours --allowed-hosts and --allowed-origins', async () => {
    const a = await app({ allowedHosts: ['mcp.internal'], allowedOrigins: ['https://app.example'] });
    expect((await post(a, { host: 'mcp.internal:8808' })).statusCode).toBe(200);
    expect((await post(a, { host: '127.0.0.1:8808', origin: 'https://app.example' })).statusCode).toBe(200);
    expect((await post(a, { host: '127.0.0.1:8808', origin: 'https://other.example' })).statusCode).toBe(403);
  });
});

describe('CORS for browser clients', () => {
  it('keeps the CORS headers on hijacked MCP responses and exposes Mcp-Session-Id', async () => {
    const a = await app();
    const res = await post(a, { host: '127.0.0.1:8808', origin: 'http://localhost:6274' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('http://localhost:6274');
    expect(String(res.headers['access-control-expose-headers'])).toContain('mcp-session-id');
  });

  it('answers a preflight with the MCP headers allowed', async () => {
    const a = await app();
    const res = await a.inject({
      method: 'OPTIONS',
      url: '/mcp',
      headers: {
        host: '127.0.0.1:8808',
        origin: 'http://localhost:6274',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'mcp-protocol-version, content-type',
      },
    });
    expect(res.statusCode).toBe(204);
    expect(String(res.headers['access-control-allow-headers'])).toContain('mcp-protocol-version');
  });
});
