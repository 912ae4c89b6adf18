/**
 * Requests to a tunnel refused by the gateway's per-IP rate limit (stage 1, before the relay's own checks) are
 * recorded in the tunnel's exchanges like the relay's own refusals (issue 19 Live): the owner sees the 429s an
 * agent gets, not only the calls that went through.
 */
import { waitFor } from '@mcppipe/test-utils';
import { connectTunnel } from '@mcppipe/tunnel';
import type { TunnelClient } from '@mcppipe/tunnel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpcHeaders } from './gatewayProcess.js';
import { startTunnelGateway } from './tunnelStack.js';
import type { TunnelGateway } from './tunnelStack.js';

const LIMIT = 40; // requests per IP per minute: one token every 1.5 s after the burst

describe('a tunnel request refused by the per-IP rate limit', () => {
  let stack: TunnelGateway;
  let tunnel: TunnelClient;

  beforeAll(async () => {
    stack = await startTunnelGateway({
      name: 'refusals',
      zone: 'refusals.test',
      accounts: { alice: 'alice refusals pw' },
      keys: { alice: ['alice', 'laptop'] },
      env: { RATE_LIMIT_PER_MINUTE: String(LIMIT) },
    });
    tunnel = connectTunnel({
      relayUrl: `${stack.gw.url}/tunnel/connect`,
      apiKey: stack.keys['alice']!,
      subdomain: 'rl',
      metadata: { auth: 'api-key' },
      handler: (_req, res) => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }));
      },
    });
    await tunnel.connected();
  }, 120_000);

  afterAll(async () => {
    await tunnel?.close();
    if (stack) expect(await stack.close()).toBe(0);
  });

  it('is recorded as http 429 with the client address', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 5; i++) {
      const res = await fetch(`${stack.gw.url}/t/rl--alice/mcp`, {
        method: 'POST',
        headers: rpcHeaders(stack.keys['alice']),
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      await res.text();
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    let rows: Array<{ status: unknown; caller: unknown }> = [];
    await waitFor(
      async () => {
        // the API shares the per-IP bucket: a 429 here just means "read again once a token is back"
        const res = await fetch(`${stack.gw.url}/api/tunnels/rl--alice/exchanges`, {
          headers: { authorization: `Bearer ${stack.keys['alice']}` },
        });
        if (res.status !== 200) return false;
        rows = ((await res.json()) as { exchanges: typeof rows }).exchanges;
        return rows.some((r) => r.status === 'http_429');
      },
      { timeoutMs: 15_000, intervalMs: 1_600 },
    );
    expect(rows.find((r) => r.status === 'http_429')).toMatchObject({ caller: 'refused (127.0.0.1)' });
    expect(rows.filter((r) => r.status === 'ok').length).toBeGreaterThan(0);
  });
});
