import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import { afterEach, describe, expect, it } from 'vitest';
import type { TunnelClient } from './client.js';
import { connectTunnel } from './client.js';
import type { TestRelay } from './testRelay.js';
import { startTestRelay } from './testRelay.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const route = { 'x-test-tunnel': 'laptop--alice' };

/**
 * A relay and a connected client whose handler answers `/slow?ms=N` with an event, then the last one after N ms
 * (`/json?ms=N`: one JSON body with a Content-Length after N ms), and anything else at once.
 */
async function setUp(): Promise<{ r: TestRelay; tunnel: TunnelClient }> {
  const r = await startTestRelay();
  cleanups.push(() => r.close());
  const handler = (req: Http2ServerRequest, res: Http2ServerResponse): void => {
    const url = new URL(req.url, 'http://x');
    const ms = Number(url.searchParams.get('ms') ?? 0);
    if (url.pathname === '/slow') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: started\n\n');
      setTimeout(() => res.end('data: done\n\n'), ms);
    } else if (url.pathname === '/json') {
      const body = JSON.stringify({ done: true, pad: 'x'.repeat(100) });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.write(body.slice(0, 10));
      setTimeout(() => res.end(body.slice(10)), ms);
    } else res.end('now');
  };
  const tunnel = connectTunnel({ relayUrl: r.connectUrl, apiKey: 'key-alice', subdomain: 'laptop', handler });
  cleanups.push(() => tunnel.close());
  await tunnel.connected();
  return { r, tunnel };
}

/** Reads a body to its end: the text, or the error that cut it. */
async function readAll(res: Response): Promise<{ text: string; error?: string }> {
  const reader = res.body!.getReader();
  let text = '';
  for (;;) {
    try {
      const { value, done } = await reader.read();
      if (done) return { text };
      text += new TextDecoder().decode(value);
    } catch (err) {
      return { text, error: String(err) };
    }
  }
}

describe('a tunnel that drops mid-response', () => {
  it('cuts the agent’s event stream (a network error), never a clean end of the 200', async () => {
    const { r, tunnel } = await setUp();
    const res = await fetch(`${r.publicBase}/slow?ms=5000`, { headers: route });
    expect(res.status).toBe(200);
    const reading = readAll(res);
    await new Promise((done) => setTimeout(done, 100));
    await tunnel.close(); // no grace: the open stream is torn down with the WebSocket
    expect(await reading).toEqual({ text: 'data: started\n\n', error: 'TypeError: terminated' });
  });

  it('cuts a body with a Content-Length short of it', async () => {
    const { r, tunnel } = await setUp();
    const res = await fetch(`${r.publicBase}/json?ms=5000`, { headers: route });
    expect(res.status).toBe(200);
    const reading = readAll(res);
    await new Promise((done) => setTimeout(done, 100));
    await tunnel.close();
    expect(await reading).toEqual({ text: '{"done":tr', error: 'TypeError: terminated' });
  });
});

describe('close({ graceMs }) drains the tunnel (a stopping CLI)', () => {
  it('open streams finish; new requests get 503 tunnel_offline at once; then the subdomain is free', async () => {
    const { r, tunnel } = await setUp();
    const res = await fetch(`${r.publicBase}/slow?ms=600`, { headers: route });
    const reading = readAll(res);
    const started = Date.now();
    const closing = tunnel.close({ graceMs: 3000 });
    await new Promise((done) => setTimeout(done, 100));
    const refused = await fetch(`${r.publicBase}/now`, { headers: route });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(((await refused.json()) as { error: { data: unknown } }).error.data).toEqual({
      reason: 'tunnel_offline',
      retryAfterMs: 5000,
    });
    expect(r.registry.lookup('laptop', 'alice')).toBeUndefined(); // draining: not live, listed nowhere
    expect(r.registry.list()).toEqual([]);
    expect(await reading).toEqual({ text: 'data: started\n\ndata: done\n\n' });
    await closing;
    expect(Date.now() - started).toBeLessThan(2000); // closed once the stream ended, not after the whole grace
    expect(tunnel.status).toEqual({ status: 'closed' });
    expect(r.registry.lookup('laptop', 'alice')).toBeUndefined();
    expect(r.registry.list()).toEqual([]);
  });

  it('a stream still open when the grace ends is cut (a network error)', async () => {
    const { r, tunnel } = await setUp();
    const res = await fetch(`${r.publicBase}/slow?ms=5000`, { headers: route });
    const reading = readAll(res);
    await new Promise((done) => setTimeout(done, 100));
    const started = Date.now();
    await tunnel.close({ graceMs: 300 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(await reading).toEqual({ text: 'data: started\n\n', error: 'TypeError: terminated' });
  });
});
