import { describe, expect, it } from 'vitest';
import { MemoryBucketStore } from './store.js';

const req = (key: string, burst = 1) => [{ key, count: 1, periodMs: 1000, burst }];

describe('MemoryBucketStore is bounded', () => {
  it('a flood of callers never holds more than maxBuckets', () => {
    const store = new MemoryBucketStore({ maxBuckets: 100 });
    for (let i = 0; i < 2_000; i++) {
      expect(store.take(req(`caller-${i}`), 0).ok).toBe(true);
      expect(store.size).toBeLessThanOrEqual(100);
    }
    expect(store.size).toBeGreaterThan(0);
  });

  it('evicts idle full buckets first and keeps the active ones', () => {
    const store = new MemoryBucketStore({ maxBuckets: 10 });
    const busy = (key: string) => [{ key, count: 1, periodMs: 3_600_000, burst: 2 }];
    // Five buckets of 1/h, burst 2, taken once at t=0: still not full at t=5 s.
    for (let i = 0; i < 5; i++) store.take(busy(`busy-${i}`), 0);
    // Five buckets of 1/s, burst 1: full again (idle) one second later.
    for (let i = 0; i < 5; i++) store.take(req(`idle-${i}`), 0);
    expect(store.size).toBe(10);
    store.take(req('newcomer'), 5000);
    expect(store.size).toBe(6);
    // busy-0 kept its level (1 token left): one more call passes, the next is refused.
    expect(store.take(busy('busy-0'), 5000).ok).toBe(true);
    expect(store.take(busy('busy-0'), 5000)).toEqual({ ok: false, index: 0, retryAfterMs: 3_600_000 - 5000 });
  });

  it('when nothing is idle, the oldest buckets go, down to 90 %', () => {
    const store = new MemoryBucketStore({ maxBuckets: 10 });
    for (let i = 0; i < 10; i++) store.take(req(`c${i}`), 0);
    store.take(req('c10'), 0);
    expect(store.size).toBe(10);
    // c0 was evicted (fresh bucket: accepted), c9 was kept (still empty: refused).
    expect(store.take(req('c9'), 0).ok).toBe(false);
    expect(store.take(req('c0'), 0).ok).toBe(true);
  });

  it('rejects a bad maxBuckets at construction', () => {
    expect(() => new MemoryBucketStore({ maxBuckets: 0 })).toThrow(RangeError);
  });
});
