import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { TunnelStatus } from './client.js';
import { connectTunnel } from './client.js';
import { refusalCodeOf } from './errors.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A server that answers every upgrade with `status` and `body` (no relay there); counts the attempts. */
async function answering(status: number, body: string): Promise<{ url: string; attempts: () => number }> {
  let attempts = 0;
  const server = http.createServer();
  server.on('upgrade', (_req, socket) => {
    attempts++;
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tunnel/connect`;
  return { url, attempts: () => attempts };
}

function dial(relayUrl: string): TunnelStatus[] {
  const statuses: TunnelStatus[] = [];
  const tunnel = connectTunnel({
    relayUrl,
    apiKey: 'key-alice',
    subdomain: 'laptop',
    handler: () => {},
    backoff: { initialMs: 50, maxMs: 100 },
    onStatus: (s) => statuses.push(s),
  });
  cleanups.push(() => tunnel.close());
  return statuses;
}

const settle = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('an HTTP answer that is no upgrade and no refusal of the relay: no relay there', () => {
  it('a gateway without --tunnel-zone (404 Not found) is refused once, not retried', async () => {
    const gw = await answering(
      404,
      JSON.stringify({ error: 'Not Found', message: 'Not found', statusCode: 404 }),
    );
    const statuses = dial(gw.url);
    await expect.poll(() => statuses.at(-1)?.status, { timeout: 5_000 }).toBe('refused');
    await settle(300); // several backoff periods: no second attempt
    expect(gw.attempts()).toBe(1);
    expect(statuses).toEqual([
      { status: 'connecting', attempt: 1 },
      {
        status: 'refused',
        code: 'MCPP_TUNNEL_NO_RELAY',
        reason: `${gw.url} answered 404 (Not found) instead of a WebSocket upgrade`,
      },
    ]);
  });

  it('a bare 404 and a 200 say their status; a 503 stays transient (a relay restarting)', async () => {
    const bare = await answering(404, '');
    const ok = await answering(200, '{}');
    const busy = await answering(
      503,
      JSON.stringify({ error: { code: 'MCPP_TUNNEL_OFFLINE', message: 'down' } }),
    );
    const [a, b, c] = [dial(bare.url), dial(ok.url), dial(busy.url)];
    await expect.poll(() => b.at(-1)?.status, { timeout: 5_000 }).toBe('refused');
    await expect.poll(() => busy.attempts(), { timeout: 5_000 }).toBeGreaterThanOrEqual(3);
    expect(a.at(-1)).toEqual({
      status: 'refused',
      code: 'MCPP_TUNNEL_NO_RELAY',
      reason: `${bare.url} answered 404 (Not Found) instead of a WebSocket upgrade`,
    });
    expect(b.at(-1)).toEqual({
      status: 'refused',
      code: 'MCPP_TUNNEL_NO_RELAY',
      reason: `${ok.url} answered 200 instead of a WebSocket upgrade`,
    });
    expect(c.find((s) => s.status === 'reconnecting')).toMatchObject({ reason: 'relay answered 503: down' });
    expect(c.some((s) => s.status === 'refused')).toBe(false);
  });

  it('refusalCodeOf: the relay’s refusals, no relay for other answers, transient for 5xx, 408 and 429', () => {
    expect([400, 401, 403, 409].map((s) => refusalCodeOf(s, undefined))).toEqual([
      'MCPP_TUNNEL_INVALID_SUBDOMAIN',
      'MCPP_TUNNEL_BAD_KEY',
      'MCPP_TUNNEL_REFUSED',
      'MCPP_TUNNEL_SUBDOMAIN_TAKEN',
    ]);
    expect([200, 302, 404, 405].map((s) => refusalCodeOf(s, undefined))).toEqual(
      Array(4).fill('MCPP_TUNNEL_NO_RELAY'),
    );
    expect([500, 502, 503, 408, 429].map((s) => refusalCodeOf(s, 'MCPP_TUNNEL_OFFLINE'))).toEqual(
      Array(5).fill(undefined),
    );
  });
});
