/**
 * Node calls (issue 20, S2): the named JSON requests a node sends another over the real node link (two
 * `TunnelCluster`s listening on loopback), which the dashboard API uses for the data only the node holding a tunnel
 * has (replay, stats, stars). The ownership records are not involved here (a call names its owner record), so the
 * leases are a file store's collection.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMcpPipeError } from '@mcppipe/errors';
import { openFileStore } from '@mcppipe/store';
import type { Store } from '@mcppipe/store';
import { TunnelCluster, TunnelRegistry } from '@mcppipe/tunnel';
import type { TunnelOwner } from '@mcppipe/tunnel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SECRET = 's'.repeat(32);
let dir: string;
let store: Store;
const clusters: TunnelCluster[] = [];
const registries: TunnelRegistry[] = [];

async function node(id: string, secret = SECRET) {
  const registry = new TunnelRegistry({
    authenticate: async () => undefined,
    publicUrl: () => 'http://x/mcp',
  });
  const cluster = new TunnelCluster({
    leases: store.collection<TunnelOwner>('tunnels'),
    registry,
    nodeId: id,
    secret,
  });
  registries.push(registry);
  clusters.push(cluster);
  const url = await cluster.listen({ host: '127.0.0.1', port: 0 });
  const owner: TunnelOwner = {
    node: id,
    url,
    tunnelId: 't1',
    account: 'alice',
    subdomain: 'laptop',
    keyId: 'k',
    metadata: {},
  };
  return { cluster, owner };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcppipe-nodecall-'));
  store = await openFileStore({ dataDir: dir });
});
afterAll(async () => {
  await Promise.all(clusters.map((c) => c.close()));
  await Promise.all(registries.map((r) => r.close()));
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('node calls over the node link', () => {
  it('answers a named call with the handler of the called node; unknown names 404, failures 500, 204 empty', async () => {
    const a = await node('A');
    const b = await node('B');
    const seen: unknown[] = [];
    a.cluster.handle('echo', async (p) => (seen.push(p), { status: 201, body: { got: p, by: 'A' } }));
    a.cluster.handle('none', async () => ({ status: 204, body: null }));
    a.cluster.handle('boom', async () => {
      throw new Error('secret internals');
    });
    const payload = { tunnel: 'laptop--alice', text: 'é'.repeat(1000) };
    expect(await b.cluster.call(a.owner, 'echo', payload)).toEqual({
      status: 201,
      body: { got: payload, by: 'A' },
    });
    expect(seen).toEqual([payload]);
    expect(await b.cluster.call(a.owner, 'none', {})).toEqual({ status: 204, body: null });
    expect((await b.cluster.call(a.owner, 'other', {})).status).toBe(404);
    const failed = await b.cluster.call(a.owner, 'boom', {});
    expect(failed.status).toBe(500);
    expect(JSON.stringify(failed.body)).not.toContain('secret internals');
    // calls go to the named node only: B has no handler of its own
    expect((await a.cluster.call(b.owner, 'echo', {})).status).toBe(404);
  });

  it('a node without the secret is refused, and an unreachable owner: both MCPP_TUNNEL_OFFLINE', async () => {
    const a = await node('A2');
    a.cluster.handle('echo', async () => ({ status: 200, body: {} }));
    const stranger = await node('X', 'x'.repeat(32));
    const refused = await stranger.cluster.call(a.owner, 'echo', {}).catch((e: unknown) => e);
    expect(isMcpPipeError(refused, 'MCPP_TUNNEL_OFFLINE')).toBe(true);
    const gone = await node('G');
    await gone.cluster.close();
    const err = await a.cluster.call(gone.owner, 'echo', {}).catch((e: unknown) => e);
    expect(isMcpPipeError(err, 'MCPP_TUNNEL_OFFLINE')).toBe(true);
  });
});
