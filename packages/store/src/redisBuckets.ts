import type { BucketRequest, BucketStore, TakeOutcome } from '@mcppipe/policy';
import type { RedisStore } from './redisStore.js';

// The integer math of @mcppipe/policy's MemoryBucketStore, in one script over all of a call's buckets, so a take is
// all-or-nothing and atomic across nodes. KEYS: the buckets; ARGV[1] = now, then count, periodMs, burst per bucket.
// A bucket is a hash {level, at}; it expires once it would have refilled completely (the same as no bucket).
// Numbers stay below 2^53 (burst × periodMs ≤ 3.6e12) and are written with %.0f (tostring would round to 14 digits).
const TAKE = `
local now = tonumber(ARGV[1])
local levels, ats = {}, {}
local worst, worstWait = -1, 0
for i = 1, #KEYS do
  local count, period, burst = tonumber(ARGV[i*3-1]), tonumber(ARGV[i*3]), tonumber(ARGV[i*3+1])
  local cap = burst * period
  local b = redis.call('HMGET', KEYS[i], 'level', 'at')
  local level, at = cap, now
  if b[1] then
    local last = tonumber(b[2])
    local elapsed = now - last
    if elapsed < 0 then elapsed = 0 end
    level = math.min(cap, tonumber(b[1]) + elapsed * count)
    if last > now then at = last end
  end
  levels[i], ats[i] = level, at
  if level < period then
    local wait = math.ceil((period - level) / count)
    if wait > worstWait then worst, worstWait = i - 1, wait end
  end
end
if worst >= 0 then return {0, worst, worstWait} end
for i = 1, #KEYS do
  local count, period, burst = tonumber(ARGV[i*3-1]), tonumber(ARGV[i*3]), tonumber(ARGV[i*3+1])
  local level = levels[i] - period
  redis.call('HSET', KEYS[i], 'level', string.format('%.0f', level), 'at', string.format('%.0f', ats[i]))
  redis.call('PEXPIRE', KEYS[i], math.ceil((burst * period - level) / count) + 1)
end
return {1}`;

interface WithTake {
  mcppipeTake(keyCount: number, ...args: Array<string | number>): Promise<number[]>;
}

/** Options of {@link RedisBucketStore}. */
export interface RedisBucketStoreOptions {
  /** Prepended (after the store's own prefix) to every bucket key. Default `bucket:`. */
  keyPrefix?: string;
}

const OK: TakeOutcome = Object.freeze({ ok: true });

/**
 * Token buckets in Redis for `@mcppipe/policy`'s limiter, shared by every node (S2): `take` runs one Lua script
 * over all of a call's buckets, all-or-nothing, with the same integer math as `MemoryBucketStore`, so a limit
 * of 10/min is 10/min across all nodes together. Time is the caller's `now` (keep node clocks in sync; a bucket
 * never moves backwards when one lags). While Redis is away, `take` rejects with `MCPP_STORE_UNAVAILABLE`.
 *
 * @example
 * ```ts
 * const limiter = policy.limiter({ store: new RedisBucketStore(store), keyPrefix: `${tunnelId}:` });
 * const r = await limiter.take(caller, name);
 * ```
 */
export class RedisBucketStore implements BucketStore {
  readonly #store: RedisStore;
  readonly #prefix: string;

  /**
   * @param store - the Redis store whose connection and error mapping to use
   * @param options - `keyPrefix`
   */
  constructor(store: RedisStore, options: RedisBucketStoreOptions = {}) {
    this.#store = store;
    this.#prefix = store.keyPrefix + (options.keyPrefix ?? 'bucket:');
    void store.run('define', async (r) => {
      if (!('mcppipeTake' in r)) r.defineCommand('mcppipeTake', { lua: TAKE });
    });
  }

  /**
   * {@inheritDoc @mcppipe/policy#BucketStore.take}
   *
   * @throws McpPipeError `MCPP_STORE_UNAVAILABLE` while Redis is unreachable (nothing was taken)
   */
  async take(requests: readonly BucketRequest[], now: number): Promise<TakeOutcome> {
    if (requests.length === 0) return OK;
    const args: Array<string | number> = [];
    for (const r of requests) args.push(this.#prefix + r.key);
    args.push(now);
    for (const r of requests) args.push(r.count, r.periodMs, r.burst);
    const reply = await this.#store.run('rate-limit take', (r) =>
      (r as unknown as WithTake).mcppipeTake(requests.length, ...args),
    );
    if (reply[0] === 1) return OK;
    return { ok: false, index: Number(reply[1]), retryAfterMs: Number(reply[2]) };
  }
}
