import { Agent, request } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpHttpHost } from '@mcppipe/http';
import { afterEach, describe, expect, it } from 'vitest';
import { buildHttpServer } from './httpServer.js';
import type { McpHttpServer } from './httpServer.js';

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

const apps: McpHttpServer[] = [];
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
  await a.listen({ host: '127.0.0.1', port: 0 });
  return a;
}

interface Answer {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: string;
  json(): unknown;
}

/** The port of each server, remembered (its address is gone once it stops listening). */
const portOf = new WeakMap<McpHttpServer, number>();

/** One request over loopback with exactly these headers (`Host` included), the whole answer read. */
function inject(
  a: McpHttpServer,
  r: { method: string; url: string; headers: Record<string, string>; payload?: string; agent?: Agent },
): Promise<Answer> {
  const port = portOf.get(a) ?? (a.server.address() as AddressInfo).port;
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: r.method, path: r.url, headers: r.headers, agent: r.agent },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => (body += c));
        res.on('end', () =>
          resolve({
            statusCode: res.statusCode ?? 0,
            headers: res.headers,
            body,
            json: () => JSON.parse(body),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(r.payload);
  });
}

const post = (a: McpHttpServer, headers: Record<string, string>) =>
  inject(a, {
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
    const res = await inject(a, {
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

describe('the node:http front door (what Fastify answered before, issue 21)', () => {
  const json = { host: '127.0.0.1:8808', 'content-type': 'application/json' };

  it('refuses prototype-poisoning keys 400 / -32700, and lets the same words through as values', async () => {
    const a = await app();
    for (const payload of [
      '{"jsonrpc":"2.0","id":1,"method":"x","params":{"__proto__":{"admin":true}}}',
      '[{"a":{"constructor":{"prototype":{"admin":true}}}}]',
    ]) {
      const res = await inject(a, { method: 'POST', url: '/mcp', headers: json, payload });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        jsonrpc: '2.0',
        error: { code: -32700, message: 'Parse error: invalid JSON' },
        id: null,
      });
    }
    const ok = await inject(a, {
      method: 'POST',
      url: '/mcp',
      headers: json,
      payload: '{"params":{"name":"__proto__","constructor":"prototype"}}',
    });
    expect(ok.statusCode).toBe(200);
  });

  it('answers 415 for a body that is not JSON, 400 for an empty JSON body, 404 elsewhere', async () => {
    const a = await app();
    const text = await inject(a, {
      method: 'POST',
      url: '/mcp',
      headers: { host: '127.0.0.1:8808', 'content-type': 'text/plain' },
      payload: '{}',
    });
    expect(text.statusCode).toBe(415);
    expect(text.json()).toMatchObject({
      error: { code: -32000, message: 'Unsupported Media Type: text/plain' },
    });
    const empty = await inject(a, { method: 'POST', url: '/mcp', headers: json, payload: '' });
    expect(empty.statusCode).toBe(400);
    const other = await inject(a, { method: 'POST', url: '/other', headers: json, payload: '{}' });
    expect(other.statusCode).toBe(404);
    expect(other.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
    const put = await inject(a, { method: 'PUT', url: '/mcp', headers: json, payload: '{}' });
    expect(put.statusCode).toBe(404);
    const query = await inject(a, { method: 'GET', url: '/mcp?x=1', headers: { host: '127.0.0.1:8808' } });
    expect(query.json()).toEqual({ method: 'GET' });
  });

  it('passes HEAD to the endpoint as GET, its body dropped (as the gateway), and answers 404 elsewhere', async () => {
    const a = await app();
    const head = await inject(a, { method: 'HEAD', url: '/mcp', headers: { host: '127.0.0.1:8808' } });
    expect(head.statusCode).toBe(200); // okHost answered with a body: Node sends none for HEAD
    expect(head.headers['content-type']).toBe('application/json');
    expect(head.body).toBe('');
    const other = await inject(a, { method: 'HEAD', url: '/other', headers: { host: '127.0.0.1:8808' } });
    expect(other.statusCode).toBe(404);
    expect(other.body).toBe('');
  });

  it('refuses a preflight without Access-Control-Request-Method (400) and counts POSTs in flight', async () => {
    const a = await app();
    const bad = await inject(a, {
      method: 'OPTIONS',
      url: '/mcp',
      headers: { host: '127.0.0.1:8808', origin: 'http://localhost:6274' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toBe('Invalid Preflight Request');
    expect(a.inflight()).toBe(0);
  });

  it('answers 503 on a kept-alive connection once the stop began, and closes it', async () => {
    const slowHost: McpHttpHost = {
      ...okHost,
      async handle(req, res) {
        await new Promise((r) => setTimeout(r, 200));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      },
    };
    const a = await buildHttpServer({ host: '127.0.0.1', bodyLimit: 1024, endpoints: { '/mcp': slowHost } });
    apps.push(a);
    await a.listen({ host: '127.0.0.1', port: 0 });
    portOf.set(a, (a.server.address() as AddressInfo).port);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = () => inject(a, { method: 'GET', url: '/mcp', headers: { host: '127.0.0.1:8808' }, agent });
    const first = get(); // in flight while the stop begins: its connection is not idle
    await new Promise((r) => setTimeout(r, 50));
    const closing = a.close();
    const late = get(); // queued behind the first on the same connection
    expect((await first).statusCode).toBe(200);
    const answer = await late;
    expect(answer.statusCode).toBe(503);
    expect(answer.headers.connection).toBe('close');
    agent.destroy();
    await closing;
  });
});
