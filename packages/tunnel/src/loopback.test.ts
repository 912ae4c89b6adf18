import Fastify from 'fastify';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectTunnel } from './client.js';
import { forwardToLoopback } from './loopback.js';
import { startTestRelay } from './testRelay.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A test relay and a connected tunnel `laptop--alice` whose handler forwards to the listener on `port`. */
async function tunnelTo(port: number) {
  const relay = await startTestRelay();
  cleanups.push(() => relay.close());
  const handler = forwardToLoopback({ port });
  cleanups.push(async () => handler.close());
  const tunnel = connectTunnel({
    relayUrl: relay.connectUrl,
    apiKey: 'key-alice',
    subdomain: 'laptop',
    handler,
  });
  cleanups.push(() => tunnel.close());
  await tunnel.connected();
  return relay;
}

describe('forwardToLoopback: the CLI serves the tunnel with its own HTTP/1 Fastify listener (T4)', () => {
  it('rewrites Host to the loopback address, keeps the public host in X-Forwarded-Host, streams SSE and POST bodies', async () => {
    let release = (): void => {};
    const gate = new Promise<void>((r) => (release = r));
    const app = Fastify();
    let port = 0;
    app.addHook('onRequest', async (req, reply) => {
      // the CLI's DNS-rebinding check: only its own loopback Host is accepted
      if (req.headers.host !== `127.0.0.1:${port}`) await reply.code(421).send({ error: 'bad host' });
    });
    app.post('/mcp', async (req) => ({
      body: req.body,
      host: req.headers.host,
      forwardedHost: req.headers['x-forwarded-host'],
      forwardedProto: req.headers['x-forwarded-proto'],
    }));
    app.get('/sse', (_req, reply) => {
      reply.hijack();
      reply.raw.writeHead(200, { 'content-type': 'text/event-stream' });
      reply.raw.write('data: one\n\n');
      void gate.then(() => reply.raw.end('data: two\n\n'));
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
    cleanups.push(() => app.close());
    const relay = await tunnelTo(port);
    const headers = { 'x-test-tunnel': 'laptop--alice' };

    const res = await fetch(`${relay.publicBase}/mcp`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      body: { jsonrpc: '2.0', id: 1, method: 'ping' },
      host: `127.0.0.1:${port}`,
      forwardedHost: `127.0.0.1:${relay.port}`,
      forwardedProto: 'https',
    });

    const sse = await fetch(`${relay.publicBase}/sse`, { headers });
    const reader = sse.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: one\n\n');
    release();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: two\n\n');
    expect((await reader.read()).done).toBe(true);
  });

  it('a public client that goes away before the answer closes the loopback request (the RST reaches the listener)', async () => {
    const closed: boolean[] = [];
    let arrived = (): void => {};
    const got = new Promise<void>((r) => (arrived = r));
    const local = http.createServer((req, res) => {
      req.resume();
      res.on('close', () => closed.push(res.writableFinished));
      arrived(); // never answers: only a cancel ends this exchange
    });
    await new Promise<void>((r) => local.listen(0, '127.0.0.1', r));
    cleanups.push(async () => {
      local.closeAllConnections();
      await new Promise((r) => local.close(r));
    });
    const relay = await tunnelTo((local.address() as AddressInfo).port);
    const abort = new AbortController();
    const call = fetch(`${relay.publicBase}/mcp`, {
      method: 'POST',
      headers: { 'x-test-tunnel': 'laptop--alice', 'content-type': 'application/json' },
      body: '{}',
      signal: abort.signal,
    });
    await got;
    abort.abort();
    await expect(call).rejects.toThrow();
    await vi.waitFor(() => expect(closed).toEqual([false]), { timeout: 10_000 });
  }, 20_000);
});
