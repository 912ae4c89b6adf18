import type { Clock, Scheduler, TimerHandle } from './clock.js';
import { systemClock } from './clock.js';
import type { LifecycleEffect, LifecycleInput, LifecycleState } from './machine.js';
import { initialTransition, transition } from './machine.js';
import type { LifecyclePolicy } from './policy.js';
import { validatePolicy } from './policy.js';
import type { Phase, StateChangedEvent } from './types.js';

/** Options of {@link Lifecycle}. */
export interface LifecycleOptions {
  /** The upstream name, copied into every event. */
  upstream: string;
  /** The policy; validated at construction. */
  policy: LifecyclePolicy;
  /** Time source. Default: the system clock. */
  clock?: Clock;
  /** Timer source for retries. Default: `setTimeout` (unref'd). */
  scheduler?: Scheduler;
  /** Jitter seed. Default: random. */
  seed?: number;
  /** Runs a `connect` effect: start attempt `attempt`, then call {@link Lifecycle.connected} or {@link Lifecycle.connectFailed}. */
  onConnect: (attempt: number) => void;
  /** Runs a `disconnect` effect: close the connection and abandon any attempt in flight. */
  onDisconnect: () => void;
  /** Receives every transition event. */
  onStateChanged?: (event: StateChangedEvent) => void;
}

/**
 * Runs the pure {@link transition} function for one upstream: keeps the state, turns `schedule_retry` effects into
 * timers on the injected scheduler and hands `connect`/`disconnect`/`emit` effects to callbacks. It owns no
 * connection itself; the supervisor does.
 *
 * @example In virtual time
 * ```ts
 * const clock = new VirtualClock();
 * const lc = new Lifecycle({ upstream: 'a', policy: aggregatorPolicy(), clock, scheduler: clock,
 *   onConnect: () => lc.connectFailed('refused'), onDisconnect: () => {} });
 * lc.start();
 * clock.advance(60_000);
 * ```
 */
export class Lifecycle {
  readonly #options: LifecycleOptions;
  readonly #policy: LifecyclePolicy;
  readonly #clock: Clock;
  readonly #scheduler: Scheduler;
  #state: LifecycleState | undefined;
  #timer: TimerHandle | undefined;
  #disposed = false;

  /**
   * @param options - see {@link LifecycleOptions}
   * @throws McpPipeError `MCPP_STATE_INVALID_POLICY` when the policy is invalid
   */
  constructor(options: LifecycleOptions) {
    this.#options = options;
    this.#policy = validatePolicy(options.policy);
    this.#clock = options.clock ?? systemClock;
    this.#scheduler = options.scheduler ?? systemClock;
  }

  /** The current state; undefined before {@link Lifecycle.start}. */
  get state(): LifecycleState | undefined {
    return this.#state;
  }

  /** The current phase (`connecting` before start). */
  get phase(): Phase {
    return this.#state?.phase ?? 'connecting';
  }

  /** The policy in force. */
  get policy(): LifecyclePolicy {
    return this.#policy;
  }

  /** Milliseconds until the scheduled retry, while recovering with a retry pending; otherwise undefined. */
  retryAfterMs(): number | undefined {
    const s = this.#state;
    if (s?.phase === 'recovering') {
      return s.nextAttemptAt === undefined ? 0 : Math.max(0, s.nextAttemptAt - this.#clock.now());
    }
    return s?.phase === 'connecting' ? 0 : undefined;
  }

  /** Enters `connecting` and runs the first `connect` effect. Calling it twice is a no-op. */
  start(): void {
    if (this.#state !== undefined || this.#disposed) return;
    const seed = this.#options.seed ?? Math.floor(Math.random() * 2 ** 31);
    const t = initialTransition(this.#options.upstream, this.#clock.now(), seed);
    this.#state = t.state;
    this.#run(t.effects);
  }

  /** Feeds one input (its `at` is filled from the clock when omitted by the helpers below). */
  dispatch(input: LifecycleInput): void {
    if (this.#state === undefined || this.#disposed) return;
    const t = transition(this.#state, input, this.#policy);
    if (t.state === this.#state) return;
    this.#state = t.state;
    if (t.effects.length > 0) this.#run(t.effects);
  }

  /** The attempt in flight connected. */
  connected(): void {
    this.dispatch({ type: 'connected', at: this.#clock.now() });
  }

  /** The attempt in flight failed; `fatal` goes straight to `failed`. */
  connectFailed(error: string, fatal = false): void {
    this.dispatch({ type: 'connect_failed', at: this.#clock.now(), error, fatal });
  }

  /** A routed call got an answer; cheap when there is no failure streak. */
  callSucceeded(): void {
    const s = this.#state;
    if (s?.phase === 'available' && s.failures.length > 0)
      this.dispatch({ type: 'call_succeeded', at: this.#clock.now() });
  }

  /** A routed call failed at the transport level or timed out. */
  callFailed(error: string): void {
    if (this.#state?.phase === 'available')
      this.dispatch({ type: 'call_failed', at: this.#clock.now(), error });
  }

  /** The process or connection died, or a liveness probe failed. */
  exited(error: string): void {
    this.dispatch({ type: 'exited', at: this.#clock.now(), error });
  }

  /** An agent's fresh handshake: `failed` → `connecting`; no-op in other phases. */
  reinitialize(): void {
    this.dispatch({ type: 'reinitialize', at: this.#clock.now() });
  }

  /** Close and reconnect from any phase. */
  restart(): void {
    this.dispatch({ type: 'restart', at: this.#clock.now() });
  }

  /** Cancels the retry timer; later inputs are ignored. */
  dispose(): void {
    this.#disposed = true;
    this.#cancelTimer();
  }

  #cancelTimer(): void {
    if (this.#timer !== undefined) {
      this.#scheduler.clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  #run(effects: readonly LifecycleEffect[]): void {
    for (const effect of effects) {
      switch (effect.type) {
        case 'connect':
          this.#cancelTimer();
          this.#options.onConnect(effect.attempt);
          break;
        case 'disconnect':
          this.#options.onDisconnect();
          break;
        case 'schedule_retry':
          this.#cancelTimer();
          this.#timer = this.#scheduler.setTimeout(() => {
            this.#timer = undefined;
            this.dispatch({ type: 'retry_due', at: this.#clock.now() });
          }, effect.delayMs);
          break;
        case 'cancel_retry':
          this.#cancelTimer();
          break;
        case 'emit':
          this.#options.onStateChanged?.(effect.event);
          break;
        default: {
          const unreachable: never = effect;
          throw new TypeError(`unknown effect ${JSON.stringify(unreachable)}`);
        }
      }
    }
  }
}
