import { backoffDelay, nextRandom } from './backoff.js';
import type { LifecyclePolicy } from './policy.js';
import type { Phase, StateChangedEvent } from './types.js';

interface StateCommon {
  readonly upstream: string;
  /** Epoch ms when this phase was entered. */
  readonly since: number;
  /** Retries scheduled since the last backoff reset; the next delay is `initial × multiplier^backoffLevel`. */
  readonly backoffLevel: number;
  /** The PRNG state for jitter (32-bit integer). */
  readonly rng: number;
  /** The last error message seen, if any. */
  readonly lastError: string | undefined;
}

/** A handshake attempt is in flight and the upstream has not been available since (re)starting. */
export interface ConnectingState extends StateCommon {
  readonly phase: 'connecting';
  /** The attempt in flight (1-based). */
  readonly attempt: number;
  /** Epoch ms the upstream went down, when it was up before (restart, reinitialize); undefined on first start. */
  readonly downSince: number | undefined;
}

/** Connected; calls are routed to it. */
export interface AvailableState extends StateCommon {
  readonly phase: 'available';
  /** Epoch ms of the current run of consecutive failed calls (at most `tripThreshold` kept). */
  readonly failures: readonly number[];
}

/** Down; a retry is scheduled or in flight. */
export interface RecoveringState extends StateCommon {
  readonly phase: 'recovering';
  /** Epoch ms the upstream went down (start of this recovery). */
  readonly downSince: number;
  /** Attempts made or in flight in this recovery. */
  readonly attempt: number;
  /** Whether the next attempt waits for its timer or is running. */
  readonly pending: 'scheduled' | 'attempting';
  /** Epoch ms the scheduled attempt fires, while `pending` is `scheduled`. */
  readonly nextAttemptAt: number | undefined;
}

/** Recovery gave up; only `reinitialize` or `restart` leave this phase. */
export interface FailedState extends StateCommon {
  readonly phase: 'failed';
  readonly downSince: number;
  /** Attempts made before giving up. */
  readonly attempt: number;
}

/** The full lifecycle state of one upstream, discriminated on `phase`. */
export type LifecycleState = ConnectingState | AvailableState | RecoveringState | FailedState;

/** An input to the state machine. `at` is epoch ms from the injected clock. */
export type LifecycleInput =
  /** The attempt in flight completed its handshake. */
  | { readonly type: 'connected'; readonly at: number }
  /** The attempt in flight failed. `fatal` (e.g. a configuration error) skips retrying and goes to `failed`. */
  | { readonly type: 'connect_failed'; readonly at: number; readonly error: string; readonly fatal?: boolean }
  /** A routed call got an answer (a result or a JSON-RPC error response). */
  | { readonly type: 'call_succeeded'; readonly at: number }
  /** A routed call failed at the transport level or timed out. */
  | { readonly type: 'call_failed'; readonly at: number; readonly error: string }
  /** The process exited, the connection closed, or a liveness probe failed. */
  | { readonly type: 'exited'; readonly at: number; readonly error: string }
  /** The retry timer requested by a `schedule_retry` effect fired. */
  | { readonly type: 'retry_due'; readonly at: number }
  /** An agent's fresh handshake: moves `failed` to `connecting`, no-op otherwise. */
  | { readonly type: 'reinitialize'; readonly at: number }
  /** An operator's restart: close and reconnect from any phase. */
  | { readonly type: 'restart'; readonly at: number };

/** What the runner must do after a transition, in order. */
export type LifecycleEffect =
  /** Start connection attempt `attempt` (abandoning any attempt still in flight); report `connected` or `connect_failed`. */
  | { readonly type: 'connect'; readonly attempt: number }
  /** Close the current connection (kill the process tree) and abandon any attempt in flight. */
  | { readonly type: 'disconnect' }
  /** Dispatch `retry_due` after `delayMs`; `attempt` is the number of the attempt it will start. */
  | { readonly type: 'schedule_retry'; readonly delayMs: number; readonly attempt: number }
  /** Cancel a scheduled retry timer. */
  | { readonly type: 'cancel_retry' }
  /** Publish one `upstream.state_changed` event (exactly one per phase change). */
  | { readonly type: 'emit'; readonly event: StateChangedEvent };

/** The result of {@link transition}: the next state and the effects to run. */
export interface Transition {
  readonly state: LifecycleState;
  readonly effects: readonly LifecycleEffect[];
}

const NO_EFFECTS: readonly LifecycleEffect[] = Object.freeze([]);

function stay(state: LifecycleState): Transition {
  return { state, effects: NO_EFFECTS };
}

function changed(
  from: LifecycleState,
  to: Phase,
  extra: { at: number; attempt?: number; error?: string; downtimeMs?: number },
): LifecycleEffect {
  const event: StateChangedEvent = { upstream: from.upstream, from: from.phase, to, at: extra.at };
  if (extra.attempt !== undefined) event.attempt = extra.attempt;
  if (extra.error !== undefined) event.error = extra.error;
  if (extra.downtimeMs !== undefined) event.downtimeMs = extra.downtimeMs;
  return { type: 'emit', event };
}

/**
 * The state before the first attempt: `connecting`, attempt 1, with a `connect` effect to run.
 *
 * @param upstream - the upstream name
 * @param at - epoch ms now
 * @param seed - jitter seed (any integer); the same seed gives the same delays
 * @returns the initial state and its `connect` effect
 * @example
 * ```ts
 * let { state, effects } = initialTransition('search', Date.now(), 42);
 * ```
 */
export function initialTransition(upstream: string, at: number, seed = 0): Transition {
  const state: ConnectingState = {
    phase: 'connecting',
    upstream,
    since: at,
    backoffLevel: 0,
    rng: seed | 0,
    lastError: undefined,
    attempt: 1,
    downSince: undefined,
  };
  return { state, effects: [{ type: 'connect', attempt: 1 }] };
}

/** A failed attempt: give up, or schedule the next one. `from` is connecting or recovering. */
function afterFailedAttempt(
  from: ConnectingState | RecoveringState,
  input: { at: number; error: string; fatal?: boolean },
  policy: LifecyclePolicy,
): Transition {
  const { at, error } = input;
  const downSince = from.downSince ?? from.since;
  const attempt = from.attempt;
  if (input.fatal === true || attempt >= policy.maxAttempts || at - downSince >= policy.failedAfterMs) {
    const state: FailedState = {
      ...base(from),
      phase: 'failed',
      since: at,
      lastError: error,
      downSince,
      attempt,
    };
    return { state, effects: [changed(from, 'failed', { at, attempt, error })] };
  }
  const [random, rng] = nextRandom(from.rng);
  let delayMs = backoffDelay(policy, from.backoffLevel, random);
  const deadline = downSince + policy.failedAfterMs;
  if (at + delayMs > deadline) delayMs = Math.max(1, deadline - at);
  const state: RecoveringState = {
    ...base(from),
    phase: 'recovering',
    since: from.phase === 'recovering' ? from.since : at,
    backoffLevel: from.backoffLevel + 1,
    rng,
    lastError: error,
    downSince,
    attempt,
    pending: 'scheduled',
    nextAttemptAt: at + delayMs,
  };
  const effects: LifecycleEffect[] = [];
  if (from.phase !== 'recovering') effects.push(changed(from, 'recovering', { at, attempt, error }));
  effects.push({ type: 'schedule_retry', delayMs, attempt: attempt + 1 });
  return { state, effects };
}

/** Death or trip while available: go to `recovering`, close the connection and schedule attempt 1. */
function goDown(
  from: AvailableState,
  down: { at: number; error: string },
  policy: LifecyclePolicy,
): Transition {
  const { at, error } = down;
  const level = at - from.since >= policy.backoffResetAfterMs ? 0 : from.backoffLevel;
  const [random, rng] = nextRandom(from.rng);
  let delayMs = backoffDelay(policy, level, random);
  if (delayMs > policy.failedAfterMs) delayMs = Math.max(1, policy.failedAfterMs);
  const state: RecoveringState = {
    ...base(from),
    phase: 'recovering',
    since: at,
    backoffLevel: level + 1,
    rng,
    lastError: error,
    downSince: at,
    attempt: 0,
    pending: 'scheduled',
    nextAttemptAt: at + delayMs,
  };
  return {
    state,
    effects: [
      { type: 'disconnect' },
      changed(from, 'recovering', { at, error }),
      { type: 'schedule_retry', delayMs, attempt: 1 },
    ],
  };
}

function base(s: LifecycleState): StateCommon {
  return {
    upstream: s.upstream,
    since: s.since,
    backoffLevel: s.backoffLevel,
    rng: s.rng,
    lastError: s.lastError,
  };
}

function freshConnecting(from: LifecycleState, at: number, downSince: number | undefined): ConnectingState {
  return { ...base(from), phase: 'connecting', since: at, backoffLevel: 0, attempt: 1, downSince };
}

function fromConnecting(s: ConnectingState, input: LifecycleInput, policy: LifecyclePolicy): Transition {
  switch (input.type) {
    case 'connected': {
      const downtimeMs = s.downSince === undefined ? undefined : input.at - s.downSince;
      const state: AvailableState = { ...base(s), phase: 'available', since: input.at, failures: [] };
      return { state, effects: [changed(s, 'available', { at: input.at, attempt: s.attempt, downtimeMs })] };
    }
    case 'connect_failed':
    case 'exited':
      return afterFailedAttempt(s, input, policy);
    case 'restart':
      return {
        state: freshConnecting(s, input.at, s.downSince),
        effects: [{ type: 'disconnect' }, { type: 'connect', attempt: 1 }],
      };
    default:
      return stay(s);
  }
}

function fromAvailable(s: AvailableState, input: LifecycleInput, policy: LifecyclePolicy): Transition {
  switch (input.type) {
    case 'call_succeeded':
      return s.failures.length === 0 ? stay(s) : { state: { ...s, failures: [] }, effects: NO_EFFECTS };
    case 'call_failed': {
      const failures = [...s.failures, input.at].slice(-policy.tripThreshold);
      const first = failures[0] ?? input.at;
      if (failures.length >= policy.tripThreshold && input.at - first <= policy.tripWindowMs) {
        const error = `${failures.length} consecutive failed calls within ${input.at - first} ms; last: ${input.error}`;
        return goDown(s, { at: input.at, error }, policy);
      }
      return { state: { ...s, failures, lastError: input.error }, effects: NO_EFFECTS };
    }
    case 'exited':
      return goDown(s, input, policy);
    case 'restart':
      return {
        state: freshConnecting(s, input.at, input.at),
        effects: [
          { type: 'disconnect' },
          changed(s, 'connecting', { at: input.at }),
          { type: 'connect', attempt: 1 },
        ],
      };
    default:
      return stay(s);
  }
}

function fromRecovering(s: RecoveringState, input: LifecycleInput, policy: LifecyclePolicy): Transition {
  switch (input.type) {
    case 'retry_due': {
      if (s.pending !== 'scheduled') return stay(s);
      const attempt = s.attempt + 1;
      const state: RecoveringState = { ...s, attempt, pending: 'attempting', nextAttemptAt: undefined };
      return { state, effects: [{ type: 'connect', attempt }] };
    }
    case 'connected': {
      if (s.pending !== 'attempting') return stay(s);
      const state: AvailableState = { ...base(s), phase: 'available', since: input.at, failures: [] };
      const downtimeMs = input.at - s.downSince;
      return { state, effects: [changed(s, 'available', { at: input.at, attempt: s.attempt, downtimeMs })] };
    }
    case 'connect_failed':
    case 'exited':
      return s.pending === 'attempting' ? afterFailedAttempt(s, input, policy) : stay(s);
    case 'restart': {
      const effects: LifecycleEffect[] = [];
      if (s.pending === 'scheduled') effects.push({ type: 'cancel_retry' });
      effects.push({ type: 'disconnect' }, changed(s, 'connecting', { at: input.at }), {
        type: 'connect',
        attempt: 1,
      });
      return { state: freshConnecting(s, input.at, s.downSince), effects };
    }
    default:
      return stay(s);
  }
}

function fromFailed(s: FailedState, input: LifecycleInput): Transition {
  switch (input.type) {
    case 'reinitialize':
    case 'restart':
      return {
        state: freshConnecting(s, input.at, s.downSince),
        effects: [changed(s, 'connecting', { at: input.at }), { type: 'connect', attempt: 1 }],
      };
    default:
      return stay(s);
  }
}

/**
 * The lifecycle state machine: a pure function from a state and an input to the next state and the effects to
 * run. Inputs that do not apply to the current phase return the same state object and no effects. Every phase
 * change carries exactly one `emit` effect.
 *
 * @param state - the current state
 * @param input - what happened
 * @param policy - the lifecycle policy
 * @returns the next state and its effects
 * @example Driving the machine by hand
 * ```ts
 * const policy = aggregatorPolicy();
 * let t = initialTransition('search', 0);
 * t = transition(t.state, { type: 'connected', at: 10 }, policy);
 * t.state.phase; // 'available'
 * ```
 */
export function transition(
  state: LifecycleState,
  input: LifecycleInput,
  policy: LifecyclePolicy,
): Transition {
  switch (state.phase) {
    case 'connecting':
      return fromConnecting(state, input, policy);
    case 'available':
      return fromAvailable(state, input, policy);
    case 'recovering':
      return fromRecovering(state, input, policy);
    case 'failed':
      return fromFailed(state, input);
    default: {
      const unreachable: never = state;
      throw new TypeError(`unknown phase ${String((unreachable as LifecycleState).phase)}`);
    }
  }
}
