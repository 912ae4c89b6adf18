import Fastify from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { connectTunnel } from './client.js';
import { serveInProcess } from './inProcess.js';
import { startTestRelay } from './testRelay.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const AUTHORITY = '127.0.0.1:8808';

/** A Fastify app (never listening: the tunnel hands it requests in process) behind a tunnel `laptop--alice`. */
async function appBehindTunnel() {
  const app = Fastify();
  const seen: { host?: string | undefined; forwardedHost?: unknown; forwardedProto?: unknown }[] = [];
  app.addHook('onRequest', async (req, reply) => {
    seen.push({
      host: req.headers.host,
      forwardedHost: req.headers['x-forwarded-host'],
      forwardedProto: req.headers['x-forwarded-proto'],
    });
    // the CLI's DNS-rebinding check: only its own loopback Host is accepted
    if (req.headers.host !== AUTHORITY) await reply.code(421).send({ error: 'bad host' });
  });
  app.post('/mcp', async (req) => ({ body: req.body, url: req.url }));
  app.get('/sse', (_req, reply) => {
    reply.hijack();
    reply.raw.writeHead(200, { 'content-type': 'text/event-stream' });
    reply.raw.write('data: one\n\n');
    setTimeout(() => reply.raw.end('data: two\n\n'), 50);
  });
  app.post('/cut', (req) => {
    req.raw.socket.destroy(); // what a listener does with an upload it refuses past its drain bounds
  });
  await app.ready();
  cleanups.push(() => app.close());
  const relay = await startTestRelay();
  cleanups.push(() => relay.close());
  const tunnel = connectTunnel({
    relayUrl: relay.connectUrl,
    apiKey: 'key-alice',
    subdomain: 'laptop',
    handler: serveInProcess({ server: app.server, authority: AUTHORITY }),
  });
  cleanups.push(() => tunnel.close());
  await tunnel.connected();
  return { relay, seen };
}

describe('serveInProcess: the CLI serves the tunnel with its own HTTP server, no loopback socket (T4)', () => {
  it('hands the request to the server with Host = the listener address and the public host in X-Forwarded-Host', async () => {
    const { relay, seen } = await appBehindTunnel();
    const res = await fetch(`${relay.publicBase}/mcp?x=1`, {
      method: 'POST',
      headers: { 'x-test-tunnel': 'laptop--alice', 'content-type': 'application/json' },
      body: JSON.stringify({ hello: 'world' }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ body: { hello: 'world' }, url: '/mcp?x=1' });
    expect(seen).toEqual([
      { host: AUTHORITY, forwardedHost: `127.0.0.1:${relay.port}`, forwardedProto: 'https' },
    ]);
  });

  it('streams an event stream event by event', async () => {
    const { relay } = await appBehindTunnel();
    const res = await fetch(`${relay.publicBase}/sse`, { headers: { 'x-test-tunnel': 'laptop--alice' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('data: one\n\n');
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read())
      rest += new TextDecoder().decode(r.value);
    expect(rest).toBe('data: two\n\n');
  });

  it("a listener cutting the request's socket resets that stream only: the tunnel keeps serving", async () => {
    const { relay } = await appBehindTunnel();
    const headers = { 'x-test-tunnel': 'laptop--alice', 'content-type': 'application/json' };
    const cut = await fetch(`${relay.publicBase}/cut`, { method: 'POST', headers, body: '{}' });
    expect(cut.status).toBe(502);
    const after = await fetch(`${relay.publicBase}/mcp`, { method: 'POST', headers, body: '{"n":2}' });
    expect(after.status).toBe(200);
    expect(await after.json()).toEqual({ body: { n: 2 }, url: '/mcp' });
    expect(relay.registry.lookup('laptop', 'alice')?.live).toBe(true);
  });

  it('one WebSocket message each way per exchange: END_STREAM rides on the last DATA frame of the request and the answer', async () => {
    const { relay } = await appBehindTunnel();
    const post = async (n: number) => {
      const res = await fetch(`${relay.publicBase}/mcp`, {
        method: 'POST',
        headers: { 'x-test-tunnel': 'laptop--alice', 'content-type': 'application/json' },
        body: JSON.stringify({ n }),
      });
      expect(await res.json()).toEqual({ body: { n }, url: '/mcp' });
    };
    await post(1); // the session's settings exchange is behind us
    const send = vi.spyOn(WebSocket.prototype, 'send');
    try {
      for (let n = 2; n < 7; n++) await post(n);
      // relay → CLI: HEADERS + DATA(END_STREAM); CLI → relay: HEADERS + DATA(END_STREAM); no frame of its own for END
      expect(send.mock.calls.length).toBe(10);
    } finally {
      send.mockRestore();
    }
  });
});
