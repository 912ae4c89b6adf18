/** A source of the current time in epoch milliseconds. */
export interface Clock {
  now(): number;
}

/** Opaque handle of a scheduled callback. */
export type TimerHandle = unknown;

/** Schedules callbacks; the real one wraps `setTimeout`, tests use {@link VirtualClock}. */
export interface Scheduler {
  setTimeout(callback: () => void, delayMs: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** The real clock and scheduler (`Date.now`, `setTimeout`); timers are unref'd so they never hold a process open. */
export const systemClock: Clock & Scheduler = {
  now: () => Date.now(),
  setTimeout(callback, delayMs) {
    const timer = setTimeout(callback, delayMs);
    (timer as { unref?: () => void }).unref?.();
    return timer;
  },
  clearTimeout(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};

interface VirtualTimer {
  id: number;
  at: number;
  callback: () => void;
}

/**
 * A clock and scheduler in virtual time for tests: nothing fires until {@link VirtualClock.advance} moves time on.
 *
 * @example
 * ```ts
 * const clock = new VirtualClock(0);
 * clock.setTimeout(() => console.log('fired'), 1000);
 * clock.advance(999); // nothing
 * clock.advance(1);   // fired
 * ```
 */
export class VirtualClock implements Clock, Scheduler {
  #now: number;
  #nextId = 1;
  #timers: VirtualTimer[] = [];

  /** @param start - the initial epoch ms. Default 0. */
  constructor(start = 0) {
    this.#now = start;
  }

  /** @returns the virtual epoch ms */
  now(): number {
    return this.#now;
  }

  /** Schedules `callback` at now + `delayMs` (virtual). */
  setTimeout(callback: () => void, delayMs: number): TimerHandle {
    const timer = { id: this.#nextId++, at: this.#now + Math.max(0, delayMs), callback };
    this.#timers.push(timer);
    return timer.id;
  }

  /** Cancels a scheduled callback; unknown handles are ignored. */
  clearTimeout(handle: TimerHandle): void {
    this.#timers = this.#timers.filter((t) => t.id !== handle);
  }

  /** How many callbacks are scheduled. */
  get pending(): number {
    return this.#timers.length;
  }

  /** Epoch ms of the earliest scheduled callback, if any. */
  get nextAt(): number | undefined {
    let min: number | undefined;
    for (const t of this.#timers) if (min === undefined || t.at < min) min = t.at;
    return min;
  }

  /**
   * Moves time forward by `ms`, running every callback that falls due, in time order (callbacks scheduled by
   * callbacks run too if they fall within the window).
   *
   * @param ms - milliseconds to advance, ≥ 0
   */
  advance(ms: number): void {
    const end = this.#now + ms;
    for (let guard = 0; guard < 1_000_000; guard++) {
      let next: VirtualTimer | undefined;
      for (const t of this.#timers) if (t.at <= end && (next === undefined || t.at < next.at)) next = t;
      if (next === undefined) break;
      const due = next;
      this.#timers = this.#timers.filter((t) => t !== due);
      this.#now = due.at;
      due.callback();
    }
    this.#now = end;
  }

  /** Advances exactly to the earliest scheduled callback and runs it (and any due at the same ms). */
  runNext(): void {
    const at = this.nextAt;
    if (at !== undefined) this.advance(at - this.#now);
  }
}
