/**
 * Dashboard sessions shared through a real `redis-server` (S1, D1): two nodes' tables over two Redis connections.
 */
import { openRedisStore } from '@mcppipe/store';
import type { RedisStore } from '@mcppipe/store';
import { startRedis, waitFor } from '@mcppipe/test-utils';
import type { RunningRedis } from '@mcppipe/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../api/sessionStore.js';
import { sharedSessions } from './sessions.js';

const logger = { info() {}, warn() {}, error() {}, debug() {} } as never;
let redis: RunningRedis;
let stores: RedisStore[];

beforeAll(async () => {
  redis = await startRedis();
  stores = [await openRedisStore({ url: redis.url }), await openRedisStore({ url: redis.url })];
}, 30_000);
afterAll(async () => {
  await Promise.all((stores ?? []).map((s) => s.close()));
  await redis?.stop();
});

describe('sharedSessions over Redis', () => {
  it('a session created on A is loaded on B (same CSRF token); a logout on B ends it on A; an expired one is gone', async () => {
    let now = 1_000_000;
    const clock = { now: () => now, ttlMs: 120_000, logger };
    const a = sharedSessions(stores[0]!.collection<Session>('sessions'), clock);
    const b = sharedSessions(stores[1]!.collection<Session>('sessions'), clock);
    const { id, session } = await a.create('alice');
    expect(b.touch(id)).toBeUndefined(); // not loaded yet
    await b.load!(id);
    expect(b.touch(id)).toMatchObject({ account: 'alice', csrf: session.csrf });
    await b.delete(id);
    await a.load!(id);
    expect(a.touch(id)).toBeUndefined();

    const second = await a.create('alice');
    now += 119_000;
    await b.load!(second.id); // used near the end of its TTL: the shared expiry slides
    expect(b.touch(second.id)?.account).toBe('alice');
    const slid = now + 120_000;
    await waitFor(
      async () => (await stores[0]!.collection<Session>('sessions').get(second.id))?.expiresAt === slid,
      { timeoutMs: 2_000, intervalMs: 10, message: 'the slid expiry in Redis' },
    );
    now += 121_000;
    await a.load!(second.id);
    expect(a.touch(second.id)).toBeUndefined();
  });
});
