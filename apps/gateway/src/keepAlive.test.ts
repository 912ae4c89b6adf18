import type { UpstreamSnapshot } from '@mcppipe/supervisor';
import { normalizeResource } from '@mcppipe/oauth';
import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from './app.js';
import { DRAIN_LIMIT_BYTES } from './defaults.js';
import { TestRegistry, fakeToken, FakeVerifier, freePort } from '@mcppipe/test-utils';

const apps: FastifyInstance[] = [];
const agents: http.Agent[] = [];
afterEach(async () => {
  for (const agent of agents.splice(0)) agent.destroy();
  for (const app of apps.splice(0)) await app.close();
});

async function listen() {
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const registry = new TestRegistry<UpstreamSnapshot>({ retryAfterMs: 1000 }).add('alpha', async () => ({
    ok: true,
  }));
  const app = await buildApp({
    registry,
    verifier: new FakeVerifier(normalizeResource),
    publicUrl,
    hub: {
      createServer: () => {
        throw new Error('hub not under test');
      },
    },
  });
  await app.listen({ port, host: '127.0.0.1' });
  apps.push(app);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  agents.push(agent);
  return { port, publicUrl, agent };
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  socket: Socket;
  reused: boolean;
}

/** One request through `agent`; `body` is sent with a Content-Length unless `chunked`. */
function request(
  agent: http.Agent,
  port: number,
  options: {
    method?: string;
    path: string;
    headers?: Record<string, string>;
    body?: string;
    chunked?: boolean;
  },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: '127.0.0.1',
        port,
        method: options.method ?? 'POST',
        path: options.path,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(options.body !== undefined &&
            !options.chunked && { 'content-length': String(Buffer.byteLength(options.body)) }),
          ...options.headers,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            socket: req.socket as Socket,
            reused: req.reusedSocket,
          }),
        );
        res.on('error', reject);
      },
    );
    req.setTimeout(20_000, () => req.destroy(new Error('no answer')));
    req.on('error', reject);
    if (options.chunked && options.body !== undefined) {
      // two writes before end: Node sends `Transfer-Encoding: chunked`
      const half = Math.floor(options.body.length / 2);
      req.write(options.body.slice(0, half));
      req.end(options.body.slice(half));
    } else req.end(options.body);
  });
}

const closed = (socket: Socket) =>
  socket.destroyed
    ? Promise.resolve()
    : new Promise<void>((resolve) => socket.once('close', () => resolve()));

const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

describe('early refusals keep the connection when the body is small (T7)', { timeout: 30_000 }, () => {
  it('a 401 (no token, then a forged token) is followed by a served request on the same socket', async () => {
    const { port, publicUrl, agent } = await listen();
    const first = await request(agent, port, { path: '/servers/alpha/mcp', body: call });
    expect(first.status).toBe(401);
    expect(first.headers['connection']).not.toBe('close');
    const second = await request(agent, port, {
      path: '/servers/alpha/mcp',
      body: call,
      headers: { authorization: 'Bearer not.a.token' },
    });
    expect(second.status).toBe(401);
    expect(second.reused).toBe(true);
    expect(second.socket).toBe(first.socket);
    const served = await request(agent, port, {
      method: 'GET',
      path: '/health',
      headers: { authorization: `Bearer ${fakeToken('c', `${publicUrl}/hub`)}` },
    });
    expect(served.status).toBe(200);
    expect(served.reused).toBe(true);
    expect(served.socket).toBe(first.socket);
  });

  it('a body of exactly the drain limit is drained and the connection kept; a 404 and a 403 keep it too', async () => {
    const { port, agent } = await listen();
    const body = 'x'.repeat(DRAIN_LIMIT_BYTES);
    const first = await request(agent, port, { path: '/hub', body });
    expect(first.status).toBe(401);
    const notFound = await request(agent, port, { path: '/nowhere', body: call });
    expect(notFound.status).toBe(404);
    const origin = await request(agent, port, {
      path: '/hub',
      body: call,
      headers: { origin: 'https://evil.example' },
    });
    expect(origin.status).toBe(403);
    expect(notFound.socket).toBe(first.socket);
    expect(origin.socket).toBe(first.socket);
    expect(origin.reused).toBe(true);
  });

  it('a body over the limit, or chunked, is not read: the answer closes the connection', async () => {
    const { port, agent } = await listen();
    const large = await request(agent, port, { path: '/hub', body: 'x'.repeat(DRAIN_LIMIT_BYTES + 1) });
    expect(large.status).toBe(401);
    expect(large.headers['connection']).toBe('close');
    await closed(large.socket);
    const chunked = await request(agent, port, { path: '/hub', body: call, chunked: true });
    expect(chunked.status).toBe(401);
    expect(chunked.headers['connection']).toBe('close');
    expect(chunked.reused).toBe(false);
    await closed(chunked.socket);
  });
});
