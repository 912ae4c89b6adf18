import { startRedis, type RunningRedis } from '@mcppipe/test-utils';
import { afterAll, expect, it } from 'vitest';
import { RedisBucketStore } from './redisBuckets.js';
import { openRedisStore } from './redisStore.js';

let redis: RunningRedis | undefined;
afterAll(async () => redis?.stop());

it('Redis restarted: the nodes reconnect, nothing crashes, refusals in the gap are clean errors', async () => {
  redis = await startRedis();
  const port = redis.port;
  const warnings: string[] = [];
  const logger = { warn: (_: object, m?: string) => warnings.push(m ?? ''), error: () => undefined };
  await using a = await openRedisStore({ url: redis.url, logger, commandTimeoutMs: 1000 });
  await using b = await openRedisStore({ url: redis.url, commandTimeoutMs: 1000 });
  const got: string[] = [];
  await b.subscribe('events', (m) => got.push(m));
  await a.collection<number>('c').set('k', 1);
  const buckets = new RedisBucketStore(a);

  await redis.stop(); // kill -9 by PID
  const started = Date.now();
  const refusals = await Promise.allSettled([
    a.collection<number>('c').get('k'),
    a.collection<number>('c').update('k', (v) => ({ op: 'set', value: (v ?? 0) + 1 })),
    buckets.take([{ key: 'x', count: 1, periodMs: 1000, burst: 1 }], Date.now()),
    a.publish('events', 'lost'),
    a.ping(),
  ]);
  expect(Date.now() - started).toBeLessThan(5000); // bounded: no hang
  for (const r of refusals) {
    expect(r.status).toBe('rejected');
    const err = (r as PromiseRejectedResult).reason as { code: string; message: string };
    expect(err.code).toBe('MCPP_STORE_UNAVAILABLE');
    expect(err.message).toMatch(/^the store's Redis at redis:\/\/127\.0\.0\.1:\d+ is unavailable \(/);
    expect(err.message).not.toMatch(/enableOfflineQueue|Stream|ECONNREFUSED/);
  }

  redis = await startRedis({ port });
  await expect
    .poll(
      () =>
        a
          .collection<number>('c')
          .get('k')
          .catch(() => 'down'),
      { timeout: 15_000, interval: 100 },
    )
    .toBeUndefined(); // fresh server: no data
  await expect
    .poll(
      () =>
        b
          .collection<number>('c')
          .set('k', 2)
          .then(
            () => 'ok',
            () => 'down',
          ),
      { timeout: 15_000, interval: 100 },
    )
    .toBe('ok');
  expect(await a.collection<number>('c').get('k')).toBe(2);
  await expect(a.ping()).resolves.toBeUndefined();
  expect(await buckets.take([{ key: 'x', count: 1, periodMs: 1000, burst: 1 }], Date.now())).toEqual({
    ok: true,
  });
  // b re-subscribed on its own
  await expect
    .poll(async () => (await a.publish('events', 'back'), got.includes('back')), {
      timeout: 15_000,
      interval: 100,
    })
    .toBe(true);
  expect(warnings).toEqual(
    expect.arrayContaining(['lost the connection to Redis; reconnecting', 'reconnected to Redis']),
  );
}, 60_000);
