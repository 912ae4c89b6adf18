import { describe, expect, it } from 'vitest';
import { RATE_LIMITED_CODE, rateLimitedError, rateLimitedWireError, retryAfterHeader } from './errors.js';
import { createLimiter } from './limiter.js';
import { compilePolicy } from './policy.js';
import { MemoryBucketStore } from './store.js';
import type { BucketStore } from './store.js';
import type { LimitConfig } from './types.js';

/** A fake clock (pure unit): time moves only when the test says so. */
function fakeClock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

function setup(limits: LimitConfig[]) {
  const clock = fakeClock();
  return { clock, limiter: createLimiter({ limits, clock }) };
}

describe('token buckets (fake clock)', () => {
  it('burst, then one call per refill interval, with exact retryAfterMs', () => {
    const { clock, limiter } = setup([{ scope: 'caller', rate: '10/min', burst: 2 }]);
    expect(limiter.take('alice', 'search__query')).toEqual({ ok: true });
    expect(limiter.take('alice', 'search__query')).toEqual({ ok: true });
    expect(limiter.take('alice', 'search__query')).toEqual({
      ok: false,
      retryAfterMs: 6000,
      limit: { scope: 'caller', match: '*', rate: '10/min', burst: 2 },
    });
    clock.advance(5999);
    expect(limiter.take('alice', 'search__query')).toMatchObject({ ok: false, retryAfterMs: 1 });
    clock.advance(1);
    expect(limiter.take('alice', 'search__query')).toEqual({ ok: true });
    clock.advance(3000);
    expect(limiter.take('alice', 'search__query')).toMatchObject({ ok: false, retryAfterMs: 3000 });
  });

  it('rates that do not divide evenly round the wait up to whole milliseconds', () => {
    const { clock, limiter } = setup([{ scope: 'caller', rate: '3/s', burst: 1 }]);
    expect(limiter.take('a', 't__x').ok).toBe(true);
    expect(limiter.take('a', 't__x')).toMatchObject({ ok: false, retryAfterMs: 334 });
    clock.advance(333);
    expect(limiter.take('a', 't__x')).toMatchObject({ ok: false, retryAfterMs: 1 });
    clock.advance(1);
    expect(limiter.take('a', 't__x').ok).toBe(true);
  });

  it('refill stops at burst however long the bucket was idle; burst defaults to n', () => {
    const { clock, limiter } = setup([{ scope: 'caller', rate: '100/h' }]);
    for (let i = 0; i < 100; i++) expect(limiter.take('a', 't__x').ok).toBe(true);
    expect(limiter.take('a', 't__x')).toMatchObject({ ok: false, retryAfterMs: 36_000 });
    clock.advance(24 * 3_600_000);
    for (let i = 0; i < 100; i++) expect(limiter.take('a', 't__x').ok).toBe(true);
    expect(limiter.take('a', 't__x')).toMatchObject({ ok: false, retryAfterMs: 36_000 });
  });

  it('a clock that goes backwards refills nothing', () => {
    const { clock, limiter } = setup([{ scope: 'caller', rate: '1/s', burst: 1 }]);
    expect(limiter.take('a', 't__x').ok).toBe(true);
    clock.advance(-10_000);
    expect(limiter.take('a', 't__x')).toMatchObject({ ok: false, retryAfterMs: 1000 });
  });

  it('scope caller: one bucket per caller across tools', () => {
    const { limiter } = setup([{ scope: 'caller', rate: '1/min', burst: 1 }]);
    expect(limiter.take('alice', 'a__one').ok).toBe(true);
    expect(limiter.take('alice', 'b__two').ok).toBe(false);
    expect(limiter.take('bob', 'a__one').ok).toBe(true);
  });

  it('scope tool: one bucket per tool shared by every caller', () => {
    const { limiter } = setup([{ scope: 'tool', rate: '1/min', burst: 1 }]);
    expect(limiter.take('alice', 'a__one').ok).toBe(true);
    expect(limiter.take('bob', 'a__one')).toMatchObject({ ok: false, retryAfterMs: 60_000 });
    expect(limiter.take('bob', 'b__two').ok).toBe(true);
  });

  it('scope all: one bucket for every call, whatever the caller and the tool', () => {
    const { limiter } = setup([{ scope: 'all', rate: '2/min', burst: 2 }]);
    expect(limiter.take('alice', 'a__one').ok).toBe(true);
    expect(limiter.take('bob', 'b__two').ok).toBe(true);
    expect(limiter.take('carol', 'c__three')).toMatchObject({ ok: false, retryAfterMs: 30_000 });
  });

  it('scope caller+tool: a caller over its per-tool limit is refused while another caller and another tool still pass', () => {
    const { limiter } = setup([{ scope: 'caller+tool', match: 'search__*', rate: '2/min', burst: 2 }]);
    expect(limiter.take('alice', 'search__query').ok).toBe(true);
    expect(limiter.take('alice', 'search__query').ok).toBe(true);
    expect(limiter.take('alice', 'search__query')).toEqual({
      ok: false,
      retryAfterMs: 30_000,
      limit: { scope: 'caller+tool', match: 'search__*', rate: '2/min', burst: 2 },
    });
    expect(limiter.take('bob', 'search__query').ok).toBe(true);
    expect(limiter.take('alice', 'search__suggest').ok).toBe(true);
    // Not matched by the limit: never counted.
    for (let i = 0; i < 10; i++) expect(limiter.take('alice', 'github__get_issue').ok).toBe(true);
  });

  it('all matching limits apply; a refusal takes nothing and reports the longest wait', () => {
    const { clock, limiter } = setup([
      { scope: 'caller', rate: '3/min', burst: 3 },
      { scope: 'caller+tool', match: 'search__query', rate: '1/h', burst: 1 },
    ]);
    expect(limiter.take('alice', 'search__query').ok).toBe(true); // caller 2 left, tool 0 left
    // Refused by the per-tool limit; the caller-wide bucket keeps its 2 tokens.
    expect(limiter.take('alice', 'search__query')).toMatchObject({
      ok: false,
      retryAfterMs: 3_600_000,
      limit: { scope: 'caller+tool' },
    });
    expect(limiter.take('alice', 'other__tool').ok).toBe(true);
    expect(limiter.take('alice', 'other__tool').ok).toBe(true);
    // Both empty now: the caller-wide bucket refills in 20 s, the per-tool one in an hour; the hour is reported.
    expect(limiter.take('alice', 'search__query')).toMatchObject({
      ok: false,
      limit: { scope: 'caller+tool' },
    });
    expect(limiter.take('alice', 'other__tool')).toMatchObject({
      ok: false,
      retryAfterMs: 20_000,
      limit: { scope: 'caller' },
    });
    clock.advance(20_000);
    expect(limiter.take('alice', 'search__query')).toMatchObject({ ok: false, retryAfterMs: 3_580_000 });
  });

  it('no limits, or none matching: accepted without touching the store', () => {
    const store = { take: () => expect.unreachable('store used') } as unknown as MemoryBucketStore;
    expect(createLimiter({ limits: [], store }).take('a', 'x__y')).toEqual({ ok: true });
    expect(
      createLimiter({ limits: [{ scope: 'tool', match: 'z__*', rate: '1/s' }], store }).take('a', 'x__y'),
    ).toEqual({
      ok: true,
    });
  });

  it('policy.limiter() uses the policy’s limits; an asynchronous store gives promises', async () => {
    const clock = fakeClock();
    const policy = compilePolicy({ limits: [{ scope: 'caller', rate: '1/s', burst: 1 }] });
    const sync = policy.limiter({ clock });
    expect(sync.take('a', 'x__y')).toEqual({ ok: true });
    expect(sync.take('a', 'x__y')).toMatchObject({ ok: false, retryAfterMs: 1000 });
    const memory = new MemoryBucketStore();
    const remote: BucketStore = { take: (reqs, now) => Promise.resolve(memory.take(reqs, now)) };
    const limiter = policy.limiter({ clock, store: remote, keyPrefix: 'tunnel-7:' });
    expect(await limiter.take('a', 'x__y')).toEqual({ ok: true });
    expect(await limiter.take('a', 'x__y')).toMatchObject({ ok: false, retryAfterMs: 1000 });
  });

  it('createLimiter validates its limits with paths', () => {
    expect(() => createLimiter({ limits: [{ scope: 'caller', rate: '5/s', burst: -1 }] })).toThrow(
      /^limits\[0\]\.burst: must be an integer from 1 to 1000000, got -1$/,
    );
  });
});

describe('refusal errors', () => {
  const refusal = {
    retryAfterMs: 1500,
    limit: { scope: 'caller+tool' as const, match: 'search__*', rate: '10/min', burst: 5 },
  };

  it('the wire error is -31429 with data { retryAfterMs, limit }', () => {
    expect(RATE_LIMITED_CODE).toBe(-31429);
    expect(RATE_LIMITED_CODE < -32768 || RATE_LIMITED_CODE > -32000).toBe(true);
    expect(rateLimitedWireError('search__query', refusal)).toEqual({
      code: -31429,
      message:
        'rate_limited: too many calls to "search__query" (limit 10/min per caller and tool, burst 5); retry in 2 s',
      data: { retryAfterMs: 1500, limit: refusal.limit },
    });
  });

  it('scope all says the limit is for all tools and callers together, not for the tool called', () => {
    const all = {
      retryAfterMs: 20_500,
      limit: { scope: 'all' as const, match: '*', rate: '3/min', burst: 3 },
    };
    expect(rateLimitedWireError('x__y', all).message).toBe(
      'rate_limited: too many tool calls (limit 3/min for all tools and callers together, burst 3); "x__y" was not called; retry in 21 s',
    );
  });

  it('the local error carries MCPP_POLICY_RATE_LIMITED and the same text', () => {
    const err = rateLimitedError('search__query', refusal);
    expect(err.code).toBe('MCPP_POLICY_RATE_LIMITED');
    expect(err.message).toBe(rateLimitedWireError('search__query', refusal).message);
    expect(err.data).toEqual({ retryAfterMs: 1500, limit: refusal.limit });
  });

  it('Retry-After is whole seconds rounded up, at least 1', () => {
    expect(retryAfterHeader(1)).toBe('1');
    expect(retryAfterHeader(1000)).toBe('1');
    expect(retryAfterHeader(1001)).toBe('2');
    expect(retryAfterHeader(0)).toBe('1');
  });
});
