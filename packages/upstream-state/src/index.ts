/**
 * `@mcppipe/upstream-state`: the per-upstream lifecycle state machine. Every export here is public API.
 *
 * The core is the pure {@link transition} function; {@link Lifecycle} runs it with an injected clock and
 * scheduler; {@link aggregatorPolicy} and {@link gatewayPolicy} are the two policies of DESIGN.md.
 *
 * @module
 */
export type { Phase, StateChangedEvent } from './types.js';
export { aggregatorPolicy, gatewayPolicy, validatePolicy } from './policy.js';
export type { LifecyclePolicy, PolicyEnv } from './policy.js';
export { initialTransition, transition } from './machine.js';
export type {
  AvailableState,
  ConnectingState,
  FailedState,
  LifecycleEffect,
  LifecycleInput,
  LifecycleState,
  RecoveringState,
  Transition,
} from './machine.js';
export { backoffDelay, nextRandom } from './backoff.js';
export { Lifecycle } from './lifecycle.js';
export type { LifecycleOptions } from './lifecycle.js';
export { VirtualClock, systemClock } from './clock.js';
export type { Clock, Scheduler, TimerHandle } from './clock.js';
export { ENV_FAILED_AFTER_SECS, ENV_MAX_ATTEMPTS } from './defaults.js';
export type { UpstreamStateErrorCode } from './errors.js';
