import { invalidPolicyError } from './errors.js';
import { compileGlob } from './glob.js';
import type { NameMatcher } from './glob.js';
import { parseRate } from './rate.js';
import { MemoryBucketStore } from './store.js';
import type { BucketRequest, BucketStore, SyncBucketStore, TakeOutcome } from './store.js';
import type { Caller, LimitConfig, LimitInfo, LimitResult, LimitScope } from './types.js';
import { validatePolicyConfig } from './validate.js';

/** A source of the current time in epoch milliseconds (the `Clock` of `@mcppipe/upstream-state` fits). */
export interface Clock {
  now(): number;
}

/** Options of {@link createLimiter}. */
export interface LimiterOptions<S extends BucketStore = SyncBucketStore> {
  /** The limits, as in the `limits` section. */
  limits: readonly LimitConfig[];
  /** Where buckets live. Default: a new {@link MemoryBucketStore} (synchronous, bounded). */
  store?: S;
  /** The time source. Default: `Date.now` (shared stores need wall-clock time). */
  clock?: Clock;
  /** Prepended to every bucket key, to share one store between many policies (e.g. per tunnel). Default `""`. */
  keyPrefix?: string;
}

/** Applies rate limits to calls; `R` is `LimitResult` for a synchronous store, a promise of it otherwise. */
export interface Limiter<R = LimitResult> {
  /**
   * Takes one token from every bucket of every limit that matches the call, or none when one is empty.
   *
   * @param caller - the caller id (client id, API-key name, `anonymous`)
   * @param name - the exposed tool name (after `/hub` resolution, P3)
   * @returns `{ ok: true }`, or `{ ok: false, retryAfterMs, limit }` for the limit with the longest wait
   */
  take(caller: Caller, name: string): R;
}

interface CompiledLimit {
  info: LimitInfo;
  scope: LimitScope;
  match: NameMatcher;
  count: number;
  periodMs: number;
  burst: number;
  prefix: string;
}

const OK: LimitResult = Object.freeze({ ok: true });

function compileLimits(limits: readonly LimitConfig[], keyPrefix: string): CompiledLimit[] {
  return limits.map((limit, i) => {
    const rate = parseRate(limit.rate) ?? { count: 1, periodMs: 1000 };
    const burst = limit.burst ?? rate.count;
    const match = limit.match ?? '*';
    const info = Object.freeze({ scope: limit.scope, match, rate: limit.rate, burst });
    return {
      info,
      scope: limit.scope,
      match: compileGlob(match),
      ...rate,
      burst,
      prefix: `${keyPrefix}${i}\u0000`,
    };
  });
}

function keyOf(limit: CompiledLimit, caller: Caller, name: string): string {
  switch (limit.scope) {
    case 'caller':
      return `${limit.prefix}c\u0000${caller}`;
    case 'tool':
      return `${limit.prefix}t\u0000${name}`;
    case 'caller+tool':
      return `${limit.prefix}ct\u0000${caller}\u0000${name}`;
    case 'all':
      return `${limit.prefix}a`;
    default: {
      const never: never = limit.scope;
      return never;
    }
  }
}

/**
 * Creates a token-bucket rate limiter (P2). Every limit whose `match` covers the tool applies (a caller-wide
 * limit and a per-tool limit together); a call is accepted only when every bucket has a token, and then takes
 * one from each. A refusal takes nothing and reports the limit with the longest wait.
 *
 * @param options - `limits`, and optionally `store`, `clock`, `keyPrefix`
 * @returns the limiter; synchronous with the default memory store
 * @throws McpPipeError `MCPP_POLICY_INVALID` when a limit is invalid (message starts with `limits[i].…`)
 *
 * @example One noisy tool, 10 calls a minute per caller
 * ```ts
 * const limiter = createLimiter({ limits: [{ scope: 'caller+tool', match: 'search__query', rate: '10/min' }] });
 * const r = limiter.take('ci-bot', 'search__query');
 * if (!r.ok) throw rateLimitedError('search__query', r);
 * ```
 */
export function createLimiter(options: LimiterOptions<SyncBucketStore>): Limiter<LimitResult>;
export function createLimiter(
  options: LimiterOptions<BucketStore> & { store: BucketStore },
): Limiter<LimitResult | Promise<LimitResult>>;
export function createLimiter(
  options: LimiterOptions<BucketStore>,
): Limiter<LimitResult | Promise<LimitResult>> {
  const errors = validatePolicyConfig({ limits: options.limits });
  if (errors.length > 0) throw invalidPolicyError(errors);
  const limits = compileLimits(options.limits, options.keyPrefix ?? '');
  const store = options.store ?? new MemoryBucketStore();
  const clock = options.clock ?? Date;
  return {
    take(caller, name) {
      const requests: BucketRequest[] = [];
      const applied: CompiledLimit[] = [];
      for (const limit of limits) {
        if (!limit.match(name)) continue;
        requests.push({
          key: keyOf(limit, caller, name),
          count: limit.count,
          periodMs: limit.periodMs,
          burst: limit.burst,
        });
        applied.push(limit);
      }
      if (requests.length === 0) return OK;
      const toResult = (o: TakeOutcome): LimitResult =>
        o.ok
          ? OK
          : { ok: false, retryAfterMs: o.retryAfterMs, limit: (applied[o.index] as CompiledLimit).info };
      const outcome = store.take(requests, clock.now());
      return 'then' in outcome ? outcome.then(toResult) : toResult(outcome);
    },
  };
}
