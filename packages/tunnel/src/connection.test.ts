import { isMcpPipeError } from '@mcppipe/errors';
import { afterEach, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import type { TunnelClient, TunnelStatus } from './client.js';
import { connectTunnel } from './client.js';
import type { TestRelay } from './testRelay.js';
import { startTestRelay, testKeys } from './testRelay.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function relay(options: Parameters<typeof startTestRelay>[0] = {}): Promise<TestRelay> {
  const r = await startTestRelay(options);
  cleanups.push(() => r.close());
  return r;
}

/** A client whose handler answers `name` on every request. */
function client(
  r: TestRelay,
  opts: { apiKey?: string; subdomain?: string; name?: string } = {},
): { tunnel: TunnelClient; statuses: TunnelStatus[] } {
  const statuses: TunnelStatus[] = [];
  const tunnel = connectTunnel({
    relayUrl: r.connectUrl,
    apiKey: opts.apiKey ?? 'key-alice',
    subdomain: opts.subdomain ?? 'laptop',
    handler: (_req, res) => res.end(opts.name ?? 'app'),
    backoff: { initialMs: 50, maxMs: 200 },
    onStatus: (s) => statuses.push(s),
  });
  cleanups.push(() => tunnel.close());
  return { tunnel, statuses };
}

async function get(
  r: TestRelay,
  sub = 'laptop',
  account = 'alice',
): Promise<{ status: number; text: string; res: Response }> {
  const res = await fetch(`${r.publicBase}/mcp`, { headers: { 'x-test-tunnel': `${sub}--${account}` } });
  return { status: res.status, text: await res.text(), res };
}

async function refusal(tunnel: TunnelClient): Promise<{ code: string; message: string }> {
  try {
    await tunnel.connected();
  } catch (err) {
    if (isMcpPipeError(err)) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('expected a refusal');
}

const settle = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('connect, refusals and takeover', () => {
  it('a bad key is refused permanently (401): one attempt, no retry, status says why', async () => {
    const r = await relay();
    const { tunnel, statuses } = client(r, { apiKey: 'nope' });
    expect(await refusal(tunnel)).toEqual({
      code: 'MCPP_TUNNEL_BAD_KEY',
      message:
        'the API key is unknown or revoked: create one with `mcppipe-gateway keys create`, with the same --data-dir (or --redis) as the relay',
    });
    await settle(400); // eight initial backoffs' worth: a retry would have shown by now
    expect(r.upgrades).toBe(1);
    expect(statuses.map((s) => s.status)).toEqual(['connecting', 'refused']);
  });

  it('a subdomain held by another account is refused with 409, naming it; no retry', async () => {
    const r = await relay();
    const bob = client(r, { apiKey: 'key-bob', name: 'bob' });
    await bob.tunnel.connected();
    const alice = client(r, { apiKey: 'key-alice' });
    expect(await refusal(alice.tunnel)).toEqual({
      code: 'MCPP_TUNNEL_SUBDOMAIN_TAKEN',
      message: 'subdomain "laptop" is held by another account\'s live tunnel: pick another --subdomain',
    });
    await settle(400);
    expect(r.upgrades).toBe(2);
    expect((await get(r, 'laptop', 'bob')).text).toBe('bob');
  });

  it('two accounts racing for one subdomain: exactly one gets it, the other is refused with 409', async () => {
    // a key store that answers both lookups at the same moment, so the two upgrades truly race
    const waiting: (() => void)[] = [];
    const r = await relay({
      authenticate: (key) =>
        new Promise((resolve) => {
          waiting.push(() => resolve(testKeys[key]));
          if (waiting.length === 2) for (const go of waiting) go();
        }),
    });
    const bob = client(r, { apiKey: 'key-bob', name: 'bob' });
    const alice = client(r, { apiKey: 'key-alice', name: 'alice' });
    const outcomes = await Promise.all(
      [bob, alice].map(({ tunnel }) =>
        tunnel.connected().then(
          () => 'connected',
          (err: { code: string }) => err.code,
        ),
      ),
    );
    expect(outcomes.sort()).toEqual(['MCPP_TUNNEL_SUBDOMAIN_TAKEN', 'connected']);
    expect(r.registry.list()).toHaveLength(1);
  });

  it('an invalid subdomain is refused with 400', async () => {
    const r = await relay();
    const { tunnel } = client(r, { subdomain: 'Bad__Name' });
    expect((await refusal(tunnel)).code).toBe('MCPP_TUNNEL_INVALID_SUBDOMAIN');
  });

  it('the same account reconnecting takes its subdomain over; the old client stops, told why', async () => {
    const r = await relay();
    const old = client(r, { name: 'old' });
    await old.tunnel.connected();
    expect((await get(r)).text).toBe('old');
    const fresh = client(r, { apiKey: 'key-alice-2', name: 'new' });
    await fresh.tunnel.connected();
    expect((await get(r)).text).toBe('new');
    await expect.poll(() => old.tunnel.status.status, { timeout: 5_000 }).toBe('refused');
    expect(old.tunnel.status).toMatchObject({
      code: 'MCPP_TUNNEL_REFUSED',
      reason: 'replaced by a newer connection for subdomain "laptop"',
    });
    await settle(300);
    expect((await get(r)).text).toBe('new');
    expect(r.registry.list()).toMatchObject([{ keyId: 'ka2' }]);
    // the old connection's close says it was replaced: no disconnect to publish (the tunnel is still connected)
    expect(r.events.map((e) => [e.type, e.replaced ?? false])).toEqual([
      ['tunnel.connected', false],
      ['tunnel.connected', false],
      ['tunnel.disconnected', true],
    ]);
  });
});

describe('drops, offline, dead peers and closing', () => {
  it('after a relay process drop the client reconnects with backoff and requests work again', async () => {
    const first = await startTestRelay();
    const { tunnel, statuses } = client(first);
    await tunnel.connected();
    const port = first.port;
    await first.drop();
    await expect.poll(() => tunnel.status.status, { timeout: 5_000 }).toBe('reconnecting');
    await settle(300); // a few refused attempts while nothing listens
    const second = await relay({ port });
    await expect.poll(() => tunnel.status.status, { timeout: 10_000 }).toBe('connected');
    expect((await get(second)).text).toBe('app');
    const retries = statuses.filter((s) => s.status === 'reconnecting');
    expect(retries.length).toBeGreaterThanOrEqual(2);
    for (const s of retries) expect(s.retryInMs).toBeGreaterThanOrEqual(40); // 50 ms ±20 %, then doubling
    expect(retries[0]!.retryInMs).toBeLessThanOrEqual(60);
    await first.close();
  });

  it('forward with no tunnel rejects MCPP_TUNNEL_OFFLINE; the helper answers 503 + Retry-After + -32000 tunnel_offline', async () => {
    const r = await relay();
    const { status, text, res } = await get(r, 'nobody', 'alice');
    expect(r.forwardErrors).toEqual(['MCPP_TUNNEL_OFFLINE']);
    expect(status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(text)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32000,
        message: 'tunnel_offline: the tunnel for this address is not connected; retry shortly',
        data: { reason: 'tunnel_offline', retryAfterMs: 5000 },
      },
    });
  });

  it('a peer that stops answering is declared dead and its subdomain freed', async () => {
    const r = await relay({ pingIntervalMs: 50, deadAfterMs: 400 });
    // a raw WebSocket that completes the handshake but never speaks h2 (a frozen CLI)
    const frozen = new WebSocket(r.connectUrl.replace('http:', 'ws:'), {
      headers: { authorization: 'Bearer key-alice', 'x-mcppipe-subdomain': 'frozen' },
    });
    cleanups.push(async () => frozen.terminate());
    await new Promise((resolve, reject) => frozen.once('open', resolve).once('error', reject));
    expect(r.registry.lookup('frozen', 'alice')).toBeDefined();
    await expect
      .poll(() => r.events.find((e) => e.type === 'tunnel.disconnected'), { timeout: 5_000 })
      .toMatchObject({ subdomain: 'frozen', account: 'alice', reason: 'dead: silent for 400 ms' });
    expect(r.registry.lookup('frozen', 'alice')).toBeUndefined();
  });

  it('a relay that goes silent is declared dead by the client, which reconnects', async () => {
    // a relay that completes the upgrade and then never sends a byte
    const server = http.createServer();
    const wss = new WebSocketServer({ server });
    const sockets: WebSocket[] = [];
    wss.on('connection', (ws) => sockets.push(ws));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      for (const ws of sockets) ws.terminate();
      await new Promise((resolve) => wss.close(resolve));
      await new Promise((resolve) => server.close(resolve));
    });
    const statuses: TunnelStatus[] = [];
    const tunnel = connectTunnel({
      relayUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/tunnel/connect`,
      apiKey: 'key-alice',
      subdomain: 'laptop',
      handler: () => {},
      pingIntervalMs: 50,
      deadAfterMs: 400,
      backoff: { initialMs: 50, maxMs: 100 },
      onStatus: (s) => statuses.push(s),
    });
    cleanups.push(() => tunnel.close());
    await expect
      .poll(() => statuses.find((s) => s.status === 'reconnecting'), { timeout: 5_000 })
      .toMatchObject({ reason: 'the relay was silent for 400 ms' });
    expect(statuses[1]).toEqual({ status: 'connected', publicUrl: '' });
    await expect.poll(() => sockets.length, { timeout: 5_000 }).toBeGreaterThanOrEqual(2);
  });

  it('the relay sends its own request to the CLI over the tunnel (tunnel.request)', async () => {
    const r = await relay();
    const tunnel = connectTunnel({
      relayUrl: r.connectUrl,
      apiKey: 'key-alice',
      subdomain: 'laptop',
      handler: (req, res) => {
        let body = '';
        req.setEncoding('utf8');
        req.on('data', (c: string) => (body += c));
        req.on('end', () => {
          res.writeHead(201, { 'content-type': 'text/plain' });
          res.end(`${req.method} ${req.url} ${req.headers['x-relay'] as string} ${body}`);
        });
      },
    });
    cleanups.push(() => tunnel.close());
    await tunnel.connected();
    const live = r.registry.lookup('laptop', 'alice')!;
    const { status, headers, stream } = await live.request({
      method: 'POST',
      path: '/events?since=3',
      headers: { 'x-relay': 'yes', connection: 'keep-alive' },
      body: 'hello',
    });
    let text = '';
    for await (const chunk of stream) text += String(chunk);
    expect({ status, type: headers['content-type'], text }).toEqual({
      status: 201,
      type: 'text/plain',
      text: 'POST /events?since=3 yes hello',
    });
  });

  it('closeByKey closes the tunnels of a revoked key', async () => {
    const r = await relay();
    const { tunnel } = client(r, { apiKey: 'key-alice-2' });
    await tunnel.connected();
    expect(r.registry.closeByKey('ka2', 'key "laptop-key" was revoked')).toBe(1);
    expect(r.registry.lookup('laptop', 'alice')).toBeUndefined();
    await expect
      .poll(() => r.events.find((e) => e.type === 'tunnel.disconnected'), { timeout: 5_000 })
      .toMatchObject({ subdomain: 'laptop', reason: 'websocket closed (4001 key "laptop-key" was revoked)' });
    expect(r.registry.closeByKey('ka2')).toBe(0);
  });

  it('client close() frees the subdomain at once: lookup is empty, the same account connects again', async () => {
    const r = await relay();
    const { tunnel } = client(r);
    await tunnel.connected();
    await tunnel.close();
    expect(r.registry.lookup('laptop', 'alice')).toBeUndefined();
    expect(tunnel.status).toEqual({ status: 'closed' });
    const again = client(r, { apiKey: 'key-alice-2', name: 'again' });
    expect(await again.tunnel.connected()).toBe('https://laptop--alice.tunnel.test/mcp');
    expect((await get(r)).text).toBe('again');
  });
});
