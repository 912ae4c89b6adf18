/**
 * The dashboard login's failure limit (`POST /api/session`): failed logins counted per account and client address
 * in a fixed one-minute window from the first failure; past {@link LOGIN_FAILURES_PER_MINUTE} the pair waits until
 * the window ends; a success clears the count. At most {@link MAX_TRACKED_LOGINS} pairs are remembered (the oldest
 * is forgotten first), so a flood of made-up accounts cannot grow the table without bound.
 *
 * @module
 */

/** Failed logins allowed per account and client address per minute (then 429). */
export const LOGIN_FAILURES_PER_MINUTE = 10;
/** The window of {@link LOGIN_FAILURES_PER_MINUTE}, in ms. */
const WINDOW_MS = 60_000;
/** The most (account, address) pairs remembered; beyond it the oldest are forgotten. */
export const MAX_TRACKED_LOGINS = 10_000;

/** Failed logins per (account, address) in fixed windows; times are epoch ms passed in by the caller. */
export class FailureWindows {
  readonly #windows = new Map<string, { start: number; failures: number }>();

  /**
   * @param key - the (account, address) pair, as one string
   * @param now - the time, epoch ms
   * @returns ms until `key` may try again (0: now)
   */
  waitMs(key: string, now: number): number {
    const w = this.#windows.get(key);
    if (w === undefined) return 0;
    if (now - w.start >= WINDOW_MS) {
      this.#windows.delete(key);
      return 0;
    }
    return w.failures >= LOGIN_FAILURES_PER_MINUTE ? w.start + WINDOW_MS - now : 0;
  }

  /**
   * Counts one failure of `key` (a new window when there is none or it ended).
   *
   * @param key - the (account, address) pair
   * @param now - the time, epoch ms
   */
  fail(key: string, now: number): void {
    const w = this.#windows.get(key);
    if (w !== undefined && now - w.start < WINDOW_MS) {
      w.failures++;
      return;
    }
    if (this.#windows.size >= MAX_TRACKED_LOGINS) {
      const oldest = this.#windows.keys().next().value;
      if (oldest !== undefined) this.#windows.delete(oldest);
    }
    this.#windows.set(key, { start: now, failures: 1 });
  }

  /**
   * Forgets `key`'s failures (a successful login).
   *
   * @param key - the (account, address) pair
   */
  clear(key: string): void {
    this.#windows.delete(key);
  }
}
