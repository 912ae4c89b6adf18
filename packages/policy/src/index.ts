/**
 * `@mcppipe/policy`: tool policies and rate limits on exposed (prefixed) names (DESIGN.md P1–P3). Every export
 * here is public API.
 *
 * {@link compilePolicy} compiles a `policies` section once into a {@link Policy} (`allows`, `filterTools`, …);
 * {@link createLimiter} (or `policy.limiter()`) applies token-bucket limits over a {@link BucketStore}.
 * Framework-free: hosts (gateway, relay, `mcppipe up`) wire it in a few lines, see the README.
 *
 * @module
 */
export type {
  Caller,
  LimitConfig,
  LimitInfo,
  LimitResult,
  LimitScope,
  PolicyAction,
  PolicyConfig,
  PolicyKind,
  PolicyRule,
} from './types.js';
export { ANONYMOUS, compilePolicy } from './policy.js';
export type { Policy, PolicyDecision, PolicyLimiterOptions } from './policy.js';
export { validatePolicyConfig } from './validate.js';
export { createLimiter } from './limiter.js';
export type { Clock, Limiter, LimiterOptions } from './limiter.js';
export { MemoryBucketStore } from './store.js';
export type {
  BucketRequest,
  BucketStore,
  MemoryBucketStoreOptions,
  SyncBucketStore,
  TakeOutcome,
} from './store.js';
export { parseRate } from './rate.js';
export type { Rate } from './rate.js';
export { DEFAULT_MAX_BUCKETS } from './defaults.js';
export { RATE_LIMITED_CODE, rateLimitedError, rateLimitedWireError, retryAfterHeader } from './errors.js';
export type { JsonRpcErrorObject, PolicyErrorCode, RateLimitedData } from './errors.js';
