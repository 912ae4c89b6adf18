import { backoffDelay, gatewayPolicy } from '@mcppipe/upstream-state';
import type { LifecyclePolicy } from '@mcppipe/upstream-state';
import {
  DEFAULT_BACKOFF_MULTIPLIER,
  DEFAULT_INITIAL_BACKOFF_MS,
  DEFAULT_JITTER_RATIO,
  DEFAULT_MAX_BACKOFF_MS,
} from './defaults.js';
import { invalidOption } from './errors.js';

/** The reconnect backoff of a tunnel client (T6). */
export interface TunnelBackoff {
  /** First delay, in ms. Default 1 000. */
  initialMs?: number;
  /** Growth factor per failed attempt. Default 2. */
  multiplier?: number;
  /** Cap of the delay, in ms. Default 30 000. */
  maxMs?: number;
  /** Random spread as a fraction (0.2 = ±20 %); 0 disables jitter. Default 0.2. */
  jitterRatio?: number;
}

/**
 * Turns backoff options into the lifecycle policy whose `backoffDelay` computes the delays (one home for the
 * backoff formula: `@mcppipe/upstream-state`).
 *
 * @param backoff - the client's backoff options
 * @returns a policy carrying only the backoff numbers that matter here
 * @throws McpPipeError `MCPP_TUNNEL_INVALID_OPTIONS` naming the bad field
 */
export function backoffPolicy(backoff: TunnelBackoff = {}): LifecyclePolicy {
  const initialMs = backoff.initialMs ?? DEFAULT_INITIAL_BACKOFF_MS;
  const multiplier = backoff.multiplier ?? DEFAULT_BACKOFF_MULTIPLIER;
  const maxMs = backoff.maxMs ?? DEFAULT_MAX_BACKOFF_MS;
  const jitterRatio = backoff.jitterRatio ?? DEFAULT_JITTER_RATIO;
  if (!(Number.isFinite(initialMs) && initialMs > 0)) {
    throw invalidOption('backoff.initialMs', 'must be a positive number', initialMs);
  }
  if (!(Number.isFinite(multiplier) && multiplier >= 1)) {
    throw invalidOption('backoff.multiplier', 'must be a number ≥ 1', multiplier);
  }
  if (!(Number.isFinite(maxMs) && maxMs >= initialMs)) {
    throw invalidOption('backoff.maxMs', 'must be a number ≥ backoff.initialMs', maxMs);
  }
  if (!(jitterRatio >= 0 && jitterRatio < 1)) {
    throw invalidOption('backoff.jitterRatio', 'must be a number in [0, 1)', jitterRatio);
  }
  return gatewayPolicy({
    initialBackoffMs: initialMs,
    backoffMultiplier: multiplier,
    maxBackoffMs: maxMs,
    jitterRatio,
  });
}

/**
 * The delay before reconnect attempt `retry` (0 for the first retry after a drop).
 *
 * @param policy - from {@link backoffPolicy}
 * @param retry - failed attempts since the last good connection, minus one
 * @param random - a number in [0, 1)
 * @returns the delay in whole ms
 */
export function reconnectDelay(policy: LifecyclePolicy, retry: number, random: number): number {
  return backoffDelay(policy, retry, random);
}
