import type { UpstreamSnapshot } from '@mcppipe/supervisor';
import { normalizeResource } from '@mcppipe/oauth';
import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from './app.js';
import type { GatewayDeps } from './types.js';
import { TestRegistry, fakeToken, FakeVerifier, freePort } from '@mcppipe/test-utils';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function listen(overrides: Partial<GatewayDeps> = {}) {
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const registry = new TestRegistry<UpstreamSnapshot>({ retryAfterMs: 1000 }).add('alpha', async () => ({
    ok: true,
  }));
  const app = await buildApp({
    registry,
    verifier: new FakeVerifier(normalizeResource),
    publicUrl,
    ...overrides,
  });
  await app.listen({ port, host: '127.0.0.1' });
  apps.push(app);
  return { app, port, publicUrl, registry };
}

/** Writes `text` and resolves with what the server sent before closing the socket (or after 15 s). */
function slowClient(port: number, text: string): Promise<{ received: string; closedAfterMs: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let received = '';
    socket.on('data', (c: Buffer) => (received += c.toString()));
    const done = () => resolve({ received, closedAfterMs: Date.now() - started });
    socket.on('close', done);
    socket.on('error', () => {});
    setTimeout(() => socket.destroy(), 15_000);
  });
}

describe('slow clients are cut off', { timeout: 30_000 }, () => {
  it('headers that never finish: closed after headersTimeout', async () => {
    const { port } = await listen({ timeouts: { headersTimeoutMs: 500, requestTimeoutMs: 1_000 } });
    const res = await slowClient(port, 'POST /hub HTTP/1.1\r\nhost: 127.0.0.1\r\n');
    expect(res.closedAfterMs).toBeLessThan(10_000);
    expect(res.received === '' || res.received.startsWith('HTTP/1.1 408')).toBe(true);
  });

  it('a body that stalls after authentication: closed after requestTimeout, and its permit is released', async () => {
    const { app, port, publicUrl } = await listen({
      timeouts: { headersTimeoutMs: 500, requestTimeoutMs: 1_000 },
    });
    const token = fakeToken('slow', `${publicUrl}/servers/alpha/mcp`);
    const res = await slowClient(
      port,
      `POST /servers/alpha/mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: Bearer ${token}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"jsonrpc":`,
    );
    expect(res.closedAfterMs).toBeLessThan(10_000);
    expect(app.gateway.gate.totalInFlight()).toBe(0);
  });
});

describe('permits are released on every ending', () => {
  it('after a body error (413, 400) and after a refusal by routing (503)', async () => {
    const { app, publicUrl, registry } = await listen({ bodyLimit: 64 });
    const headers = {
      authorization: `Bearer ${fakeToken('c', `${publicUrl}/servers/alpha/mcp`)}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const url = `${publicUrl}/servers/alpha/mcp`;
    expect((await fetch(url, { method: 'POST', headers, body: 'x'.repeat(100) })).status).toBe(413);
    expect((await fetch(url, { method: 'POST', headers, body: '{' })).status).toBe(400);
    registry.setPhase('alpha', 'connecting');
    expect(
      (await fetch(url, { method: 'POST', headers, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' }))
        .status,
    ).toBe(503);
    expect(app.gateway.gate.totalInFlight()).toBe(0);
  });
});

describe('TRUSTED_PROXIES', () => {
  it('X-Forwarded-For is believed only from a trusted proxy: each forwarded client gets its own budget', async () => {
    const trusted = await listen({ trustedProxies: ['127.0.0.1'], rateLimit: { max: 2 } });
    const untrusted = await listen({ rateLimit: { max: 2 } });
    const hit = (base: string, ip: string) =>
      fetch(`${base}/servers/alpha/mcp`, { method: 'POST', headers: { 'x-forwarded-for': ip } });
    for (const ip of ['1.1.1.1', '1.1.1.1', '2.2.2.2', '2.2.2.2'])
      expect((await hit(trusted.publicUrl, ip)).status).toBe(401);
    expect((await hit(trusted.publicUrl, '1.1.1.1')).status).toBe(429);
    // from an untrusted peer the header is ignored: everyone shares the peer's budget
    expect((await hit(untrusted.publicUrl, '1.1.1.1')).status).toBe(401);
    expect((await hit(untrusted.publicUrl, '2.2.2.2')).status).toBe(401);
    expect((await hit(untrusted.publicUrl, '3.3.3.3')).status).toBe(429);
  });
});
