import { createLimiter, MemoryBucketStore, type BucketRequest } from '@mcppipe/policy';
import { startRedis, type RunningRedis } from '@mcppipe/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisBucketStore } from './redisBuckets.js';
import { openRedisStore, type RedisStore } from './redisStore.js';

let redis: RunningRedis;
let a: RedisStore;
let b: RedisStore;
beforeAll(async () => {
  redis = await startRedis();
  a = await openRedisStore({ url: redis.url });
  b = await openRedisStore({ url: redis.url });
}, 30_000);
afterAll(async () => {
  await a?.close();
  await b?.close();
  await redis?.stop();
});

describe('RedisBucketStore', () => {
  it('a rate limit of 10/min holds across both nodes (not 20)', async () => {
    const limits = [{ scope: 'caller' as const, rate: '10/min' }];
    const now = 1_000_000;
    const clock = { now: () => now };
    const nodeA = createLimiter({ limits, store: new RedisBucketStore(a, { keyPrefix: 'ten:' }), clock });
    const nodeB = createLimiter({ limits, store: new RedisBucketStore(b, { keyPrefix: 'ten:' }), clock });
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? nodeA : nodeB).take('alice', 'x__y')),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(10);
    const refused = results.find((r) => !r.ok);
    expect(refused).toMatchObject({ ok: false, retryAfterMs: 6000, limit: { rate: '10/min', burst: 10 } });
    // another caller has its own bucket; after 6 s one more token, shared by both nodes
    expect((await nodeB.take('bob', 'x__y')).ok).toBe(true);
    const later = { now: () => now + 6000 };
    const a2 = createLimiter({ limits, store: new RedisBucketStore(a, { keyPrefix: 'ten:' }), clock: later });
    const b2 = createLimiter({ limits, store: new RedisBucketStore(b, { keyPrefix: 'ten:' }), clock: later });
    expect((await a2.take('alice', 'x__y')).ok).toBe(true);
    expect((await b2.take('alice', 'x__y')).ok).toBe(false);
  });

  it('answers exactly as MemoryBucketStore for the same sequence (all-or-nothing over several buckets)', async () => {
    const redisStore = new RedisBucketStore(a, { keyPrefix: 'same:' });
    const memory = new MemoryBucketStore();
    const reqs: BucketRequest[] = [
      { key: 'c\u0000alice', count: 3, periodMs: 1000, burst: 2 },
      { key: 'ct\u0000alice\u0000t', count: 10, periodMs: 60_000, burst: 5 },
    ];
    const times = [0, 0, 0, 100, 334, 400, 700, 1000, 1000, 1000, 5000, 5000, 60_000, 59_999, 61_000];
    for (const [i, t] of times.entries()) {
      const now = 2_000_000 + t;
      const which = i % 3 === 0 ? reqs.slice(0, 1) : reqs;
      expect(await redisStore.take(which, now), `call ${i} at +${t}`).toEqual(memory.take(which, now));
    }
  });

  it('an idle bucket expires from Redis once it would be full again', async () => {
    const store = new RedisBucketStore(a, { keyPrefix: 'ttl:' });
    await store.take([{ key: 'k', count: 5, periodMs: 1000, burst: 1 }], Date.now());
    const ttl = await a.run('pttl', (r) => r.pttl('mcppipe:ttl:k'));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(201);
  });
});
