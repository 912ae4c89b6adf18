import {
  AGGREGATOR_BACKOFF_RESET_AFTER_MS,
  AGGREGATOR_FAILED_AFTER_MS,
  AGGREGATOR_INITIAL_BACKOFF_MS,
  AGGREGATOR_MAX_ATTEMPTS,
  AGGREGATOR_MAX_BACKOFF_MS,
  DEFAULT_BACKOFF_MULTIPLIER,
  DEFAULT_JITTER_RATIO,
  DEFAULT_PROBE_INTERVAL_MS,
  DEFAULT_PROBE_TIMEOUT_MS,
  DEFAULT_TRIP_THRESHOLD,
  DEFAULT_TRIP_WINDOW_MS,
  ENV_FAILED_AFTER_SECS,
  ENV_MAX_ATTEMPTS,
  GATEWAY_BACKOFF_RESET_AFTER_MS,
  GATEWAY_INITIAL_BACKOFF_MS,
  GATEWAY_MAX_BACKOFF_MS,
} from './defaults.js';
import { invalidPolicy } from './errors.js';

/**
 * The numbers of one lifecycle policy. Every duration is in milliseconds; `Infinity` means "never".
 * Build one with {@link aggregatorPolicy} or {@link gatewayPolicy} rather than by hand.
 */
export interface LifecyclePolicy {
  /** A label for logs: `aggregator`, `gateway` or your own. */
  readonly name: string;
  /** Consecutive failed calls that trip `available` → `recovering`. Default 3. */
  readonly tripThreshold: number;
  /** The tripping failures must fall within this window, in ms. Default 30 000. */
  readonly tripWindowMs: number;
  /** Delay before the first retry, in ms. Aggregator 500, gateway 1 000. */
  readonly initialBackoffMs: number;
  /** Growth factor of the delay per retry. Default 2. */
  readonly backoffMultiplier: number;
  /** Cap of the delay, in ms. Aggregator 30 000, gateway 300 000. */
  readonly maxBackoffMs: number;
  /** Random spread of each delay as a fraction (0.2 = ±20 %); 0 disables jitter. Default 0.2. */
  readonly jitterRatio: number;
  /** Give up (→ `failed`) after this many attempts in one recovery. Aggregator 20, gateway `Infinity`. */
  readonly maxAttempts: number;
  /** Give up (→ `failed`) after this much downtime, in ms. Aggregator 300 000, gateway `Infinity`. */
  readonly failedAfterMs: number;
  /** The backoff level resets once the upstream has been up this long, in ms. Aggregator 30 000, gateway 300 000. */
  readonly backoffResetAfterMs: number;
  /** Liveness probe interval while available, in ms; 0 disables probing. Default 60 000. */
  readonly probeIntervalMs: number;
  /** Liveness probe timeout, in ms. Default 30 000. */
  readonly probeTimeoutMs: number;
}

/** The environment a policy reads its overrides from (usually `process.env`). */
export type PolicyEnv = Readonly<Record<string, string | undefined>>;

function invalid(field: string, value: unknown, rule: string): Error {
  return invalidPolicy(field, value, `${field}: ${rule}, got ${JSON.stringify(value)}`);
}

/**
 * Checks every field of a policy and returns it frozen.
 *
 * @param policy - the policy to check
 * @returns the same values, frozen
 * @throws McpPipeError `MCPP_STATE_INVALID_POLICY` naming the first bad field
 * @example Validating a hand-built policy
 * ```ts
 * const policy = validatePolicy({ ...gatewayPolicy(), probeIntervalMs: 10_000 });
 * ```
 */
export function validatePolicy(policy: LifecyclePolicy): LifecyclePolicy {
  const positive = (field: keyof LifecyclePolicy, allowInfinity: boolean): void => {
    const v = policy[field];
    if (typeof v !== 'number' || Number.isNaN(v) || v <= 0 || (!allowInfinity && !Number.isFinite(v))) {
      throw invalid(
        field,
        v,
        allowInfinity ? 'must be a positive number or Infinity' : 'must be a positive number',
      );
    }
  };
  const nonNegative = (field: keyof LifecyclePolicy): void => {
    const v = policy[field];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
      throw invalid(field, v, 'must be a number ≥ 0');
  };
  if (typeof policy.name !== 'string' || policy.name === '')
    throw invalid('name', policy.name, 'must be a string');
  if (!Number.isInteger(policy.tripThreshold) || policy.tripThreshold < 1) {
    throw invalid('tripThreshold', policy.tripThreshold, 'must be an integer ≥ 1');
  }
  positive('tripWindowMs', true);
  positive('initialBackoffMs', false);
  if (typeof policy.backoffMultiplier !== 'number' || !(policy.backoffMultiplier >= 1)) {
    throw invalid('backoffMultiplier', policy.backoffMultiplier, 'must be a number ≥ 1');
  }
  positive('maxBackoffMs', false);
  if (policy.maxBackoffMs < policy.initialBackoffMs) {
    throw invalid('maxBackoffMs', policy.maxBackoffMs, 'must be ≥ initialBackoffMs');
  }
  if (typeof policy.jitterRatio !== 'number' || !(policy.jitterRatio >= 0 && policy.jitterRatio < 1)) {
    throw invalid('jitterRatio', policy.jitterRatio, 'must be a number in [0, 1)');
  }
  if (!(Number.isInteger(policy.maxAttempts) || policy.maxAttempts === Infinity) || policy.maxAttempts < 1) {
    throw invalid('maxAttempts', policy.maxAttempts, 'must be an integer ≥ 1 or Infinity');
  }
  positive('failedAfterMs', true);
  nonNegative('backoffResetAfterMs');
  nonNegative('probeIntervalMs');
  positive('probeTimeoutMs', false);
  return Object.freeze({ ...policy });
}

function readPositive(env: PolicyEnv, name: string, integer: boolean): number | undefined {
  const raw = env[name];
  if (raw === undefined) return undefined;
  const pattern = integer ? /^\s*\d+\s*$/ : /^\s*\d+(\.\d+)?\s*$/;
  const value = Number(raw);
  if (!pattern.test(raw) || !Number.isFinite(value) || value <= 0) {
    throw invalidPolicy(
      name,
      raw,
      `${name}=${JSON.stringify(raw)} is not a valid value: expected a positive ${integer ? 'integer' : 'number'}`,
    );
  }
  return value;
}

function defaultEnv(): PolicyEnv {
  return (globalThis as { process?: { env?: PolicyEnv } }).process?.env ?? {};
}

/**
 * The aggregator policy (DESIGN.md A12): trip on 3 failures within 30 s, doubling backoff from 500 ms capped at
 * 30 s, give up after `MCPPIPE_UPSTREAM_MAX_ATTEMPTS` (default 20) attempts or `MCPPIPE_UPSTREAM_FAILED_AFTER_SECS`
 * (default 300) seconds of downtime, whichever comes first. Probes every 60 s with a 30 s timeout.
 *
 * @param overrides - fields to replace (they win over the environment)
 * @param env - where the two variables are read; default `process.env`
 * @returns a validated, frozen policy
 * @throws McpPipeError `MCPP_STATE_INVALID_POLICY` when a variable or an override is invalid
 * @example Small limits for a test
 * ```ts
 * const policy = aggregatorPolicy({ maxAttempts: 3, initialBackoffMs: 10 });
 * ```
 */
export function aggregatorPolicy(
  overrides: Partial<LifecyclePolicy> = {},
  env: PolicyEnv = defaultEnv(),
): LifecyclePolicy {
  const maxAttempts = readPositive(env, ENV_MAX_ATTEMPTS, true);
  const failedAfterSecs = readPositive(env, ENV_FAILED_AFTER_SECS, false);
  return validatePolicy({
    name: 'aggregator',
    tripThreshold: DEFAULT_TRIP_THRESHOLD,
    tripWindowMs: DEFAULT_TRIP_WINDOW_MS,
    initialBackoffMs: AGGREGATOR_INITIAL_BACKOFF_MS,
    backoffMultiplier: DEFAULT_BACKOFF_MULTIPLIER,
    maxBackoffMs: AGGREGATOR_MAX_BACKOFF_MS,
    jitterRatio: DEFAULT_JITTER_RATIO,
    maxAttempts: maxAttempts ?? AGGREGATOR_MAX_ATTEMPTS,
    failedAfterMs:
      failedAfterSecs === undefined ? AGGREGATOR_FAILED_AFTER_MS : Math.round(failedAfterSecs * 1000),
    backoffResetAfterMs: AGGREGATOR_BACKOFF_RESET_AFTER_MS,
    probeIntervalMs: DEFAULT_PROBE_INTERVAL_MS,
    probeTimeoutMs: DEFAULT_PROBE_TIMEOUT_MS,
    ...overrides,
  });
}

/**
 * The gateway policy (DESIGN.md G8): backoff from 1 s doubling to 5 min, never gives up, the backoff resets after
 * 5 min up, ping every 60 s with a 30 s timeout. The trip rule (3 failures within 30 s) applies too.
 *
 * @param overrides - fields to replace
 * @returns a validated, frozen policy
 * @throws McpPipeError `MCPP_STATE_INVALID_POLICY` when an override is invalid
 * @example Faster probing
 * ```ts
 * const policy = gatewayPolicy({ probeIntervalMs: 15_000 });
 * ```
 */
export function gatewayPolicy(overrides: Partial<LifecyclePolicy> = {}): LifecyclePolicy {
  return validatePolicy({
    name: 'gateway',
    tripThreshold: DEFAULT_TRIP_THRESHOLD,
    tripWindowMs: DEFAULT_TRIP_WINDOW_MS,
    initialBackoffMs: GATEWAY_INITIAL_BACKOFF_MS,
    backoffMultiplier: DEFAULT_BACKOFF_MULTIPLIER,
    maxBackoffMs: GATEWAY_MAX_BACKOFF_MS,
    jitterRatio: DEFAULT_JITTER_RATIO,
    maxAttempts: Infinity,
    failedAfterMs: Infinity,
    backoffResetAfterMs: GATEWAY_BACKOFF_RESET_AFTER_MS,
    probeIntervalMs: DEFAULT_PROBE_INTERVAL_MS,
    probeTimeoutMs: DEFAULT_PROBE_TIMEOUT_MS,
    ...overrides,
  });
}
