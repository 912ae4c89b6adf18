import type { LifecyclePolicy } from './policy.js';

/**
 * One step of mulberry32, a small seedable PRNG: returns a number in [0, 1) and the next state.
 * The state is a 32-bit integer kept inside the lifecycle state, so the machine stays pure.
 *
 * @param state - the current 32-bit state
 * @returns `[value, nextState]`
 */
export function nextRandom(state: number): [value: number, next: number] {
  const next = (state + 0x6d2b79f5) | 0;
  let t = next;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return [((t ^ (t >>> 14)) >>> 0) / 4294967296, next];
}

/**
 * The delay before a retry at backoff `level` (0 for the first retry): `initial × multiplier^level`, capped at
 * `maxBackoffMs`, then spread by ±`jitterRatio` and capped again.
 *
 * @param policy - the lifecycle policy
 * @param level - how many retries were scheduled since the last reset
 * @param random - a number in [0, 1) (from {@link nextRandom})
 * @returns the delay in whole milliseconds, at least 1
 * @example
 * ```ts
 * backoffDelay(gatewayPolicy({ jitterRatio: 0 }), 3, 0.5); // 8000
 * ```
 */
export function backoffDelay(policy: LifecyclePolicy, level: number, random: number): number {
  const base = Math.min(policy.maxBackoffMs, policy.initialBackoffMs * policy.backoffMultiplier ** level);
  const spread = 1 + policy.jitterRatio * (2 * random - 1);
  return Math.max(1, Math.min(policy.maxBackoffMs, Math.round(base * spread)));
}
