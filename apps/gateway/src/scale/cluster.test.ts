/**
 * `TunnelCluster` (DESIGN.md S2) over a real `redis-server` on a random port, with two nodes as two Redis
 * connections (the collection the gateway wires, `mcppipe:tunnels:<subdomain>`): lease writes, heartbeat TTL
 * expiry, ownership moving to another node, remote-owner lookups and the cross-node subdomain reservation. The
 * registries are stand-ins holding `TunnelInfo`s (the cluster reads only `list()` and `lookup()`); the tunnels'
 * real connections are covered by test/e2e/src/scaleOut*.test.ts.
 *
 * Here, not in packages/tunnel: the tunnel package may not import `@mcppipe/store` or the test helpers (they
 * import it), while the gateway has both.
 */
import { openRedisStore } from '@mcppipe/store';
import type { Collection, RedisStore } from '@mcppipe/store';
import { startRedis, waitFor } from '@mcppipe/test-utils';
import type { RunningRedis } from '@mcppipe/test-utils';
import { CLOSE_REPLACED, TunnelCluster } from '@mcppipe/tunnel';
import type { TunnelInfo, TunnelOwner, TunnelRegistry } from '@mcppipe/tunnel';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const SECRET = 'x'.repeat(32);
const TTL = 600;

/** A registry stand-in: the listed tunnels, and the close codes of the ones the cluster closed. */
function registry(...infos: TunnelInfo[]) {
  const closed: Array<{ id: string; code: number }> = [];
  const live = [...infos];
  const r = {
    list: () => [...live],
    lookup: (subdomain: string, account: string) => {
      const i = live.findIndex((t) => t.subdomain === subdomain && t.account === account);
      return i < 0
        ? undefined
        : {
            close: (code: number) => {
              closed.push({ id: live[i]!.id, code });
              live.splice(i, 1);
            },
          };
    },
  };
  return { registry: r as unknown as TunnelRegistry, closed, live };
}

const info = (id: string, subdomain: string, account: string): TunnelInfo => ({
  id,
  account,
  keyId: `key_${account}`,
  subdomain,
  publicUrl: `http://${subdomain}--${account}.zone/mcp`,
  zeroKnowledge: false,
  metadata: { auth: 'api-key' },
  connectedAt: Date.now(),
});

let redis: RunningRedis;
let stores: RedisStore[];
let leases: Collection<TunnelOwner>;
const clusters: TunnelCluster[] = [];
const node = (nodeId: string, reg: TunnelRegistry, store = stores[0]!) => {
  const c = new TunnelCluster({
    leases: store.collection<TunnelOwner>('tunnels'),
    registry: reg,
    nodeId,
    nodeUrl: `http://${nodeId}.internal:3100`,
    secret: SECRET,
    leaseTtlMs: TTL,
    heartbeatMs: 100,
  });
  clusters.push(c);
  return c;
};

beforeAll(async () => {
  redis = await startRedis();
  stores = [await openRedisStore({ url: redis.url }), await openRedisStore({ url: redis.url })];
  leases = stores[0]!.collection<TunnelOwner>('tunnels');
}, 30_000);
afterEach(async () => {
  await Promise.all(clusters.splice(0).map((c) => c.close()));
  for (const [k] of await leases.entries()) await leases.delete(k);
});
afterAll(async () => {
  await Promise.all((stores ?? []).map((s) => s.close()));
  await redis?.stop();
});

describe('TunnelCluster over Redis (S2)', () => {
  it('claim writes the lease; the other node finds the owner, the owner itself and other accounts do not', async () => {
    const t = info('t1', 'laptop', 'alice');
    const a = node('A', registry(t).registry);
    const b = node('B', registry().registry, stores[1]);
    await a.claim(t);
    expect(await leases.get('laptop')).toEqual({
      node: 'A',
      url: 'http://A.internal:3100',
      tunnelId: 't1',
      account: 'alice',
      subdomain: 'laptop',
      keyId: 'key_alice',
      metadata: { auth: 'api-key' },
      zeroKnowledge: false,
      connectedAt: t.connectedAt, // B lists it with this time when A does not answer
    });
    expect((await b.remoteOwner('laptop', 'alice'))?.node).toBe('A');
    expect(b.remoteTunnels().map((o) => o.tunnelId)).toEqual(['t1']);
    expect(await b.remoteOwner('laptop', 'bob')).toBeUndefined();
    expect(await b.remoteOwner('desktop', 'alice')).toBeUndefined();
    expect(await a.remoteOwner('laptop', 'alice')).toBeUndefined(); // local: not a remote owner
    expect(a.remoteTunnels()).toEqual([]);
  });

  it('the heartbeat keeps the lease past its TTL; without heartbeats it expires and lookups miss', async () => {
    const t = info('t1', 'laptop', 'alice');
    const a = node('A', registry(t).registry);
    const b = node('B', registry().registry, stores[1]);
    await a.claim(t);
    await new Promise((r) => setTimeout(r, TTL * 2.5));
    expect((await leases.get('laptop'))?.tunnelId).toBe('t1');
    await a.close(); // the node stops: no more heartbeats
    const stoppedAt = Date.now();
    await waitFor(async () => (await leases.get('laptop')) === undefined, {
      timeoutMs: 5_000,
      intervalMs: 20,
      message: 'the lease expires',
    });
    expect(Date.now() - stoppedAt).toBeLessThan(TTL + 1_000);
    expect(await b.remoteOwner('laptop', 'alice')).toBeUndefined();
    expect(b.remoteTunnels()).toEqual([]);
  });

  it('ownership moves: B claims the same subdomain, A closes its stale connection (CLOSE_REPLACED), A releasing its old id leaves B the owner', async () => {
    const old = registry(info('t1', 'laptop', 'alice'));
    const a = node('A', old.registry);
    await a.claim(old.live[0]!);
    const moved = info('t2', 'laptop', 'alice');
    const b = node('B', registry(moved).registry, stores[1]);
    expect(await b.reserve({ subdomain: 'laptop', account: 'alice', keyId: 'k', metadata: {} })).toBe(true);
    await b.claim(moved);
    await waitFor(() => old.closed.length > 0, { timeoutMs: 3_000, intervalMs: 20, message: 'A closes t1' });
    expect(old.closed).toEqual([{ id: 't1', code: CLOSE_REPLACED }]);
    await a.release('t1', 'laptop');
    expect((await leases.get('laptop'))?.node).toBe('B');
    expect((await a.remoteOwner('laptop', 'alice'))?.tunnelId).toBe('t2');
    await b.release('t2', 'laptop');
    expect(await leases.get('laptop')).toBeUndefined();
  });

  it("reserve: another account's subdomain is refused on every node; racing accounts on two nodes: exactly one wins", async () => {
    const a = node('A', registry().registry);
    const b = node('B', registry().registry, stores[1]);
    const claim = (subdomain: string, account: string) => ({ subdomain, account, keyId: 'k', metadata: {} });
    expect(await a.reserve(claim('one', 'alice'))).toBe(true);
    expect((await leases.get('one'))?.node).toBe('A'); // reserved at once (pending: no tunnel id yet)
    expect(await b.reserve(claim('one', 'bob'))).toBe(false);
    expect(await a.reserve(claim('one', 'bob'))).toBe(false);
    expect(await b.reserve(claim('one', 'alice'))).toBe(true);
    for (let round = 0; round < 10; round++) {
      const subdomain = `race${round}`;
      const won = await Promise.all([
        a.reserve(claim(subdomain, 'alice')),
        b.reserve(claim(subdomain, 'bob')),
      ]);
      expect(won.filter(Boolean)).toHaveLength(1);
      expect((await leases.get(subdomain))?.account).toBe(won[0] ? 'alice' : 'bob');
    }
  });
});
