import { DEFAULT_MAX_BUCKETS, EVICT_TO_RATIO } from './defaults.js';

/**
 * One bucket a call must take a token from. Integer arithmetic: the bucket holds up to `burst × periodMs` units,
 * refills `count` units per millisecond and a call costs `periodMs` units, so waits are exact milliseconds.
 */
export interface BucketRequest {
  /** The bucket's key (limit index, scope and identities; opaque to the store). */
  key: string;
  /** Tokens per period (the `n` of `n/unit`). */
  count: number;
  /** The period in milliseconds (1000, 60000 or 3600000). */
  periodMs: number;
  /** The bucket size in tokens. */
  burst: number;
}

/** What a store answers: all buckets had a token (all were taken), or none was taken and the longest wait. */
export type TakeOutcome = { ok: true } | { ok: false; index: number; retryAfterMs: number };

/**
 * Where buckets live. `take` is all-or-nothing: either every bucket gives one token, or none does and the
 * answer names the bucket with the longest wait. A shared store (Redis, the scale-out step) does the same
 * atomically (one script) and may answer with a promise.
 */
export interface BucketStore {
  take(requests: readonly BucketRequest[], now: number): TakeOutcome | Promise<TakeOutcome>;
}

/** A store that answers synchronously (the memory store), so the limiter's hot path stays synchronous. */
export interface SyncBucketStore extends BucketStore {
  take(requests: readonly BucketRequest[], now: number): TakeOutcome;
}

/** Options of {@link MemoryBucketStore}. */
export interface MemoryBucketStoreOptions {
  /** The most buckets kept; at the limit, idle full buckets are evicted, then the oldest. Default 100 000. */
  maxBuckets?: number;
}

interface Bucket {
  level: number;
  at: number;
  capacity: number;
  count: number;
}

const OK: TakeOutcome = Object.freeze({ ok: true });

function levelAt(b: Bucket, now: number): number {
  return Math.min(b.capacity, b.level + Math.max(0, now - b.at) * b.count);
}

/**
 * The in-process bucket store: synchronous, bounded. When full, it first drops buckets that have refilled
 * completely (an idle full bucket is the same as no bucket), then, if that freed too little, the oldest buckets,
 * down to 90 % of `maxBuckets`; so a flood of callers cannot grow memory without bound.
 *
 * @example
 * ```ts
 * const limiter = policy.limiter({ store: new MemoryBucketStore({ maxBuckets: 10_000 }) });
 * ```
 */
export class MemoryBucketStore implements SyncBucketStore {
  readonly #buckets = new Map<string, Bucket>();
  readonly #max: number;
  readonly #levels: number[] = [];

  /**
   * @param options - `maxBuckets`
   * @throws RangeError when `maxBuckets` is not a positive integer
   */
  constructor(options: MemoryBucketStoreOptions = {}) {
    const max = options.maxBuckets ?? DEFAULT_MAX_BUCKETS;
    if (!Number.isInteger(max) || max < 1)
      throw new RangeError(`maxBuckets: must be a positive integer, got ${max}`);
    this.#max = max;
  }

  /** How many buckets are held now. */
  get size(): number {
    return this.#buckets.size;
  }

  /** {@inheritDoc BucketStore.take} */
  take(requests: readonly BucketRequest[], now: number): TakeOutcome {
    let worst = -1;
    let worstWait = 0;
    for (let i = 0; i < requests.length; i++) {
      const r = requests[i] as BucketRequest;
      const b = this.#buckets.get(r.key);
      const level = b === undefined ? r.burst * r.periodMs : levelAt(b, now);
      this.#levels[i] = level;
      if (level >= r.periodMs) continue;
      const wait = Math.ceil((r.periodMs - level) / r.count);
      if (wait > worstWait) [worst, worstWait] = [i, wait];
    }
    if (worst >= 0) return { ok: false, index: worst, retryAfterMs: worstWait };
    for (let i = 0; i < requests.length; i++) {
      const r = requests[i] as BucketRequest;
      const level = (this.#levels[i] as number) - r.periodMs;
      const b = this.#buckets.get(r.key);
      if (b !== undefined) {
        b.level = level;
        b.at = Math.max(b.at, now);
        continue;
      }
      if (this.#buckets.size >= this.#max) this.#evict(now);
      this.#buckets.set(r.key, { level, at: now, capacity: r.burst * r.periodMs, count: r.count });
    }
    return OK;
  }

  #evict(now: number): void {
    const target = Math.floor(this.#max * EVICT_TO_RATIO);
    for (const [key, b] of this.#buckets) if (levelAt(b, now) >= b.capacity) this.#buckets.delete(key);
    for (const key of this.#buckets.keys()) {
      if (this.#buckets.size <= target) break;
      this.#buckets.delete(key);
    }
  }
}
