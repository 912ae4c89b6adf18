// The store contract, run against both backends: the JSON file (one process; concurrency through one instance)
// and Redis (two instances on one redis-server = two nodes).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedis, type RunningRedis } from '@mcppipe/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openFileStore } from './fileStore.js';
import { openRedisStore } from './redisStore.js';
import { openRing } from './ring.js';
import type { Change, Store } from './types.js';

let redis: RunningRedis;
let dir: string;
let n = 0;
beforeAll(async () => {
  redis = await startRedis();
  dir = await mkdtemp(join(tmpdir(), 'mcppipe-store-'));
}, 30_000);
afterAll(async () => {
  await redis?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Two "nodes": two Redis clients on one server, or one file store used twice (one process). */
const backends: Array<[string, () => Promise<[Store, Store]>]> = [
  [
    'file',
    async () => {
      const s = await openFileStore({ dataDir: await mkdtemp(join(dir, 'f')) });
      return [s, s];
    },
  ],
  [
    'redis',
    async () => {
      const keyPrefix = `t${++n}:`;
      return [
        await openRedisStore({ url: redis.url, keyPrefix }),
        await openRedisStore({ url: redis.url, keyPrefix }),
      ];
    },
  ],
];

interface Family {
  currentHash: string;
  previousHash?: string;
  status: 'active' | 'revoked';
}

type Outcome = 'rotated' | 'grace' | 'revoked' | 'refused';

/** G2's family rule as an update: current → rotate; predecessor → the winner's successor (grace); older → revoke. */
function rotate(presented: string, next: string) {
  return (f: Family | undefined): Change<Family, Outcome> => {
    if (!f || f.status === 'revoked') return { op: 'keep', result: 'refused' };
    if (f.currentHash === presented)
      return {
        op: 'set',
        value: { currentHash: next, previousHash: presented, status: 'active' },
        result: 'rotated',
      };
    if (f.previousHash === presented) return { op: 'keep', result: 'grace' };
    return { op: 'set', value: { ...f, status: 'revoked' }, result: 'revoked' };
  };
}

describe.each(backends)('store contract: %s', (kind, open) => {
  it('get, set, delete, entries round-trip JSON values; a value is a copy', async () => {
    const [a, b] = await open();
    await using _a = a;
    await using _b = b;
    const c = a.collection<{ n: number; tags: string[] }>('things');
    expect(await c.get('x')).toBeUndefined();
    await c.set('x', { n: 1, tags: ['a'] });
    await c.set('y', { n: 2, tags: [] });
    const got = await b.collection<{ n: number; tags: string[] }>('things').get('x');
    expect(got).toEqual({ n: 1, tags: ['a'] });
    got!.n = 99;
    expect(await c.get('x')).toEqual({ n: 1, tags: ['a'] });
    expect((await c.entries()).sort()).toEqual([
      ['x', { n: 1, tags: ['a'] }],
      ['y', { n: 2, tags: [] }],
    ]);
    expect(await c.delete('x')).toBe(true);
    expect(await c.delete('x')).toBe(false);
    expect(await c.entries()).toEqual([['y', { n: 2, tags: [] }]]);
    expect(await a.collection('other').entries()).toEqual([]);
  });

  it('compareAndSwap writes only over the expected value; absent is undefined', async () => {
    const [a, b] = await open();
    await using _a = a;
    await using _b = b;
    const ca = a.collection<{ owner: string }>('tunnels');
    const cb = b.collection<{ owner: string }>('tunnels');
    expect(await ca.compareAndSwap('t1', { expected: undefined, next: { owner: 'node-a' } })).toBe(true);
    expect(await cb.compareAndSwap('t1', { expected: undefined, next: { owner: 'node-b' } })).toBe(false);
    expect(await cb.compareAndSwap('t1', { expected: { owner: 'node-x' }, next: { owner: 'node-b' } })).toBe(
      false,
    );
    expect(await cb.compareAndSwap('t1', { expected: { owner: 'node-a' }, next: { owner: 'node-b' } })).toBe(
      true,
    );
    expect(await ca.get('t1')).toEqual({ owner: 'node-b' });
    expect(await ca.compareAndSwap('t1', { expected: { owner: 'node-b' }, next: undefined })).toBe(true);
    expect(await cb.get('t1')).toBeUndefined();
  });

  it('TTL keys expire; a heartbeat (set again) keeps them', async () => {
    const [a, b] = await open();
    await using _a = a;
    await using _b = b;
    const c = a.collection<string>('owners');
    await c.set('lease', 'node-a', { ttlMs: 300 });
    expect(await b.collection<string>('owners').get('lease')).toBe('node-a');
    await new Promise((r) => setTimeout(r, 150));
    await c.set('lease', 'node-a', { ttlMs: 300 });
    await new Promise((r) => setTimeout(r, 200));
    expect(await c.get('lease')).toBe('node-a');
    await new Promise((r) => setTimeout(r, 400));
    expect(await c.get('lease')).toBeUndefined();
    expect(await c.entries()).toEqual([]);
    await expect(c.set('lease', 'x', { ttlMs: 0 })).rejects.toMatchObject({
      code: 'MCPP_STORE_INVALID_OPTIONS',
    });
  });

  it('update is atomic: 100 concurrent increments from two nodes make 100', async () => {
    const [a, b] = await open();
    await using _a = a;
    await using _b = b;
    const inc = (s: Store) =>
      s.collection<number>('counters').update('hits', (v) => ({ op: 'set', value: (v ?? 0) + 1 }));
    await Promise.all(Array.from({ length: 100 }, (_, i) => inc(i % 2 ? a : b)));
    expect(await a.collection<number>('counters').get('hits')).toBe(100);
  });

  it('two nodes presenting the same refresh token at once: exactly one wins', async () => {
    const [a, b] = await open();
    await using _a = a;
    await using _b = b;
    const fa = a.collection<Family>('families');
    const fb = b.collection<Family>('families');
    for (let round = 0; round < 25; round++) {
      const id = `fam${round}`;
      await fa.set(id, { currentHash: 'h0', status: 'active' });
      const [ra, rb] = await Promise.all([
        fa.update(id, rotate('h0', 'h1-a')),
        fb.update(id, rotate('h0', 'h1-b')),
      ]);
      expect([ra, rb].sort()).toEqual(['grace', 'rotated']);
      const winner = ra === 'rotated' ? 'h1-a' : 'h1-b';
      expect(await fb.get(id)).toEqual({ currentHash: winner, previousHash: 'h0', status: 'active' });
    }
    // The family rule holds: an older token (not current, not the predecessor) revokes the family, on any node.
    await fa.set('old', { currentHash: 'h2', previousHash: 'h1', status: 'active' });
    expect(await fb.update('old', rotate('h0', 'h3'))).toBe('revoked');
    expect(await fa.update('old', rotate('h2', 'h3'))).toBe('refused');
    expect((await fa.get('old'))?.status).toBe('revoked');
  });

  it('publish reaches every subscriber of the channel until it unsubscribes', async () => {
    const [a, b] = await open();
    await using _a = a;
    await using _b = b;
    const got: string[] = [];
    const off = await b.subscribe('revocations', (m) => got.push(m));
    await b.subscribe('other', () => got.push('wrong channel'));
    await a.subscribe('revocations', () => {
      throw new Error('a throwing subscriber is isolated');
    });
    await a.publish('revocations', 'jti-1');
    await expect.poll(() => got, { timeout: 5000 }).toEqual(['jti-1']);
    await off();
    await a.publish('revocations', 'jti-2');
    await a.publish('other', 'x');
    await expect.poll(() => got.length, { timeout: 5000 }).toBe(2);
    expect(got).toEqual(['jti-1', 'wrong channel']);
  });

  it(`${kind}: closed stores refuse with MCPP_STORE_CLOSED; bad collection names are refused`, async () => {
    const [a, b] = await open();
    await expect(a.ping()).resolves.toBeUndefined();
    await b.close();
    expect(() => a.collection('version')).toThrow(
      expect.objectContaining({ code: 'MCPP_STORE_INVALID_OPTIONS' }),
    );
    expect(() => a.collection('a:b')).toThrow(
      expect.objectContaining({ code: 'MCPP_STORE_INVALID_OPTIONS' }),
    );
    await a.close();
    await expect(a.collection('x').get('k')).rejects.toMatchObject({ code: 'MCPP_STORE_CLOSED' });
    await expect(a.ping()).rejects.toMatchObject({ code: 'MCPP_STORE_CLOSED' });
  });
});

interface Rec {
  id: string;
  text: string;
}
const rec = (i: number, text = 'x'): Rec => ({ id: `e${i}`, text });
const size = (r: Rec) => Buffer.byteLength(JSON.stringify(r));

describe.each(backends)('store contract, rings: %s', (kind, open) => {
  it('appendMany from one node, list newest-first / get by id / clear from the other; copies', async () => {
    const [a, b] = await open();
    await using _a = a;
    await using _b = b;
    const w = openRing<Rec>(a, 'exchanges', { maxCount: 10, maxBytes: 1 << 20 });
    const r = openRing<Rec>(b, 'exchanges', { maxCount: 10, maxBytes: 1 << 20 });
    await w.appendMany([
      ['t1', [rec(1), rec(2)]],
      ['t2', [rec(9, 'é')]],
    ]);
    await w.appendMany([['t1', [rec(3)]]]);
    expect((await r.list('t1')).map((x) => x.id)).toEqual(['e3', 'e2', 'e1']);
    expect((await r.list('t1', 2)).map((x) => x.id)).toEqual(['e3', 'e2']);
    expect(await r.list('t1', 0)).toEqual([]);
    expect(await r.list('t2')).toEqual([{ id: 'e9', text: 'é' }]);
    expect(await r.list('none')).toEqual([]);
    const got = await r.get('t1', 'e2');
    expect(got).toEqual(rec(2));
    got!.text = 'changed';
    expect(await r.get('t1', 'e2')).toEqual(rec(2));
    expect(await r.get('t1', 'e9')).toBeUndefined();
    expect(await r.clear('t1')).toBe(true);
    expect(await r.clear('t1')).toBe(false);
    expect(await w.list('t1')).toEqual([]);
    expect((await w.list('t2')).length).toBe(1);
  });

  it('keeps both bounds: count and UTF-8 bytes, oldest evicted first, the newest always kept', async () => {
    const [a, b] = await open();
    await using _a = a;
    await using _b = b;
    const byCount = openRing<Rec>(a, 'byCount', { maxCount: 3, maxBytes: 1 << 20 });
    for (let i = 1; i <= 5; i++) await byCount.appendMany([['t', [rec(i)]]]);
    await byCount.appendMany([['t', [rec(6), rec(7)]]]);
    expect(
      (await openRing<Rec>(b, 'byCount', { maxCount: 3, maxBytes: 1 << 20 }).list('t')).map((x) => x.id),
    ).toEqual(['e7', 'e6', 'e5']);
    const one = size(rec(1, 'ééé')); // multi-byte text: bytes, not characters, count
    const byBytes = openRing<Rec>(a, 'byBytes', { maxCount: 100, maxBytes: one * 2 });
    await byBytes.appendMany([['t', [rec(1, 'ééé'), rec(2, 'ééé'), rec(3, 'ééé')]]]);
    expect((await byBytes.list('t')).map((x) => x.id)).toEqual(['e3', 'e2']);
    await byBytes.appendMany([['t', [rec(4, 'é'.repeat(one * 3))]]]);
    expect((await byBytes.list('t')).map((x) => x.id)).toEqual(['e4']);
    await byBytes.appendMany([['t', [rec(5, 'ééé')]]]);
    expect((await byBytes.list('t')).map((x) => x.id)).toEqual(['e5']);
  });

  it('a TTL drops a key after its last append; bad bounds and names are refused', async () => {
    const [a, b] = await open();
    await using _a = a;
    await using _b = b;
    const ring = openRing<Rec>(a, 'ttl', { maxCount: 5, maxBytes: 1000, ttlMs: 150 });
    await ring.appendMany([['t', [rec(1)]]]);
    expect((await ring.list('t')).length).toBe(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(await openRing<Rec>(b, 'ttl', { maxCount: 5, maxBytes: 1000 }).list('t')).toEqual([]);
    for (const bad of [
      { maxCount: 0, maxBytes: 1 },
      { maxCount: 1, maxBytes: 1.5 },
      { maxCount: 1, maxBytes: 1, ttlMs: -1 },
    ])
      expect(() => openRing(a, 'r', bad)).toThrow(
        expect.objectContaining({ code: 'MCPP_STORE_INVALID_OPTIONS' }),
      );
    expect(() => openRing(a, 'no spaces', { maxCount: 1, maxBytes: 1 })).toThrow(
      expect.objectContaining({ code: 'MCPP_STORE_INVALID_OPTIONS' }),
    );
    if (kind === 'redis') {
      await a.close();
      await expect(ring.list('t')).rejects.toMatchObject({ code: 'MCPP_STORE_CLOSED' });
    }
  });
});
