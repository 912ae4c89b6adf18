/**
 * Issues 19 + 20, the traffic ring behind the store (DESIGN.md S1, D2, D3), all real processes: one `redis-server`
 * on a random port, two `mcppipe-gateway` processes sharing it, a real tunnel client held by node A and a real MCP
 * server behind it. The exchanges recorded on node A are read on node B, owner-scoped and redacted as on one node.
 */
import { waitFor } from '@mcppipe/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpcHeaders } from './gatewayProcess.js';
import type { RunningGateway } from './gatewayProcess.js';
import { connectHeldTunnel, nodeApi, startNodePair } from './tunnelStack.js';
import type { HeldTunnel, NodePair } from './tunnelStack.js';

const TUNNEL = 'cap--alice';

interface Summary {
  id: string;
  method: string | null;
  name: string | null;
  caller: string | null;
  status: unknown;
}

describe('two gateway nodes on one Redis: the traffic ring in the store (issues 19, 20)', () => {
  let pair: NodePair;
  let a: RunningGateway;
  let b: RunningGateway;
  let held: HeldTunnel;
  let keys: Record<string, string>;
  const api = (gw: RunningGateway, path: string, key: string) => nodeApi(gw, path, key);

  beforeAll(async () => {
    pair = await startNodePair({
      name: 'scale-ring',
      accounts: { alice: 'alice pw', bob: 'bob pw' },
      keys: { alice: ['alice', 'cli'], bob: ['bob', 'cli'] },
    });
    ({ a, b, keys } = pair);
    held = await connectHeldTunnel(pair, { key: keys['alice']!, subdomain: 'cap' });
  }, 180_000);

  afterAll(async () => {
    await held?.close();
    await pair?.close();
  });

  it('a call through the tunnel held by node A is listed on node B to its owner, redacted; another account gets 404', async () => {
    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'top secret value' } },
    });
    const res = await fetch(`${a.url}/t/${TUNNEL}/mcp`, {
      method: 'POST',
      headers: rpcHeaders(keys['alice']),
      body: call,
      signal: AbortSignal.timeout(10_000),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('top secret value');
    let row: Summary | undefined;
    await waitFor(
      async () => {
        const listed = await api(b, `/api/tunnels/${TUNNEL}/exchanges?method=tools/call`, keys['alice']!);
        expect(listed.status).toBe(200);
        row = (listed.body['exchanges'] as Summary[]).find((e) => e.name === 'echo');
        return row !== undefined;
      },
      { timeoutMs: 10_000, intervalMs: 100, message: 'node B lists the exchange recorded on node A' },
    );
    expect(row).toMatchObject({ method: 'tools/call', name: 'echo', caller: 'cli', status: 'ok' });
    const onA = await api(a, `/api/tunnels/${TUNNEL}/exchanges`, keys['alice']!);
    expect((onA.body['exchanges'] as Summary[]).map((e) => e.id)).toContain(row!.id);
    const detail = await api(b, `/api/tunnels/${TUNNEL}/exchanges/${row!.id}`, keys['alice']!);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      id: row!.id,
      request: { method: 'tools/call', params: { name: 'echo', arguments: { text: '[redacted]' } } },
      truncated: { request: false, response: false },
    });
    expect(JSON.stringify(detail.body['request'])).not.toContain('top secret');
    expect(detail.body).toEqual(
      (await api(a, `/api/tunnels/${TUNNEL}/exchanges/${row!.id}`, keys['alice']!)).body,
    );
    // E2: another account, an unknown tunnel and an unknown exchange are the same 404 on node B
    for (const [path, key] of [
      [`/api/tunnels/${TUNNEL}/exchanges`, keys['bob']!],
      [`/api/tunnels/${TUNNEL}/exchanges/${row!.id}`, keys['bob']!],
      ['/api/tunnels/nope--alice/exchanges', keys['alice']!],
      [`/api/tunnels/${TUNNEL}/exchanges/ex_missing`, keys['alice']!],
    ] as const)
      expect((await api(b, path, key)).status, path).toBe(404);
  }, 60_000);
});
