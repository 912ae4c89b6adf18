import {
  LOGIN_BASE_DELAY_MS,
  LOGIN_FREE_FAILURES_ACCOUNT,
  LOGIN_FREE_FAILURES_PER_IP,
  LOGIN_MAX_DELAY_MS,
  MAX_PENDING_ENTRIES,
} from './defaults.js';

interface Entry {
  failures: number;
  /** Epoch ms before which no attempt is accepted. */
  blockedUntil: number;
  lastFailureAt: number;
  inFlight: boolean;
}

/** The outcome of {@link LoginThrottle.begin}. */
export type ThrottleDecision =
  { allowed: true; finish: (success: boolean) => void } | { allowed: false; retryAfterSec: number };

const ACCOUNT = '\u0000account';

/**
 * Login throttling (NIST 800-63B §5.2.2): per client IP and for the one account, a few free failures, then
 * a delay that doubles per failure up to 15 minutes; attempts during the delay are refused (429 with
 * `Retry-After`) before any bcrypt work. One attempt per IP at a time, so parallel guesses cannot race past
 * the counter. A success resets the IP and the account. The lock is always temporary.
 */
export class LoginThrottle {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly clock: () => number) {}

  /**
   * Asks whether an attempt from `ip` may proceed now.
   *
   * @param ip - the client address (as Fastify resolved it with `trustProxy`)
   * @returns allowed with a `finish` callback to report the result, or the seconds to wait
   */
  begin(ip: string): ThrottleDecision {
    const now = this.clock();
    const byIp = this.entry(`ip:${ip}`, now);
    const account = this.entry(ACCOUNT, now);
    const until = Math.max(byIp.blockedUntil, account.blockedUntil);
    if (until > now) return { allowed: false, retryAfterSec: Math.max(1, Math.ceil((until - now) / 1000)) };
    if (byIp.inFlight) return { allowed: false, retryAfterSec: 1 };
    byIp.inFlight = true;
    let done = false;
    return {
      allowed: true,
      finish: (success) => {
        if (done) return;
        done = true;
        byIp.inFlight = false;
        if (success) {
          this.entries.delete(`ip:${ip}`);
          this.entries.delete(ACCOUNT);
          return;
        }
        const t = this.clock();
        this.fail(byIp, LOGIN_FREE_FAILURES_PER_IP, t);
        this.fail(account, LOGIN_FREE_FAILURES_ACCOUNT, t);
      },
    };
  }

  private fail(e: Entry, free: number, now: number): void {
    e.failures++;
    e.lastFailureAt = now;
    if (e.failures > free) {
      const exp = Math.min(e.failures - free - 1, 30);
      e.blockedUntil = now + Math.min(LOGIN_BASE_DELAY_MS * 2 ** exp, LOGIN_MAX_DELAY_MS);
    }
  }

  private entry(key: string, now: number): Entry {
    let e = this.entries.get(key);
    // Forget a key whose last failure is long past (the lock is temporary, the count too).
    if (e && !e.inFlight && e.blockedUntil <= now && now - e.lastFailureAt > 2 * LOGIN_MAX_DELAY_MS) {
      this.entries.delete(key);
      e = undefined;
    }
    if (!e) {
      e = { failures: 0, blockedUntil: 0, lastFailureAt: now, inFlight: false };
      this.entries.set(key, e);
      this.evict();
    }
    return e;
  }

  private evict(): void {
    if (this.entries.size <= MAX_PENDING_ENTRIES) return;
    for (const [key, e] of this.entries) {
      if (this.entries.size <= MAX_PENDING_ENTRIES) break;
      if (key !== ACCOUNT && !e.inFlight) this.entries.delete(key);
    }
  }
}
