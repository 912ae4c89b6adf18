/**
 * The per-client gate (DESIGN.md G5 stage 4): requests per minute and requests in flight, keyed by the
 * OAuth `client_id` rather than by IP (claude.ai traffic shares a few cloud IP ranges). Over either limit
 * the request is refused at once with a `Retry-After` — there is no queue. Every admitted request holds a
 * permit that its `release` returns exactly once, whatever ends the request.
 *
 * @module
 */

/** Options of {@link ClientGate}. */
export interface ClientGateOptions {
  /** Requests per client per minute (a fixed one-minute window). */
  requestsPerMinute: number;
  /** Requests of one client in flight at once. */
  maxInFlight: number;
  /** Most clients tracked; beyond it idle entries are dropped, and a full table of busy ones refuses. */
  tableSize: number;
  /** Clock in epoch ms. */
  now: () => number;
}

/** The outcome of {@link ClientGate.acquire}. */
export type GateResult =
  { ok: true; release: () => void } | { ok: false; reason: 'rate' | 'concurrency'; retryAfterSec: number };

interface Entry {
  windowStart: number;
  count: number;
  inFlight: number;
}

const WINDOW_MS = 60_000;

/** Per-client request-rate and concurrency limits with leak-proof permits. */
export class ClientGate {
  readonly #entries = new Map<string, Entry>();

  constructor(private readonly options: ClientGateOptions) {}

  /**
   * Admits one request of `clientId` or refuses it.
   *
   * @param clientId - the OAuth client id of the verified token
   * @returns a permit to release when the request ends, or the refusal with seconds to wait
   */
  acquire(clientId: string): GateResult {
    const now = this.options.now();
    let entry = this.#entries.get(clientId);
    if (entry === undefined) {
      if (this.#entries.size >= this.options.tableSize) this.#prune(now);
      if (this.#entries.size >= this.options.tableSize)
        return { ok: false, reason: 'concurrency', retryAfterSec: 1 };
      entry = { windowStart: now, count: 0, inFlight: 0 };
      this.#entries.set(clientId, entry);
    }
    if (now - entry.windowStart >= WINDOW_MS) {
      entry.windowStart = now;
      entry.count = 0;
    }
    if (entry.count >= this.options.requestsPerMinute) {
      return {
        ok: false,
        reason: 'rate',
        retryAfterSec: Math.max(1, Math.ceil((entry.windowStart + WINDOW_MS - now) / 1000)),
      };
    }
    if (entry.inFlight >= this.options.maxInFlight)
      return { ok: false, reason: 'concurrency', retryAfterSec: 1 };
    entry.count += 1;
    entry.inFlight += 1;
    const held = entry;
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        held.inFlight -= 1;
      },
    };
  }

  /** Requests of `clientId` in flight now (0 when unknown). */
  inFlight(clientId: string): number {
    return this.#entries.get(clientId)?.inFlight ?? 0;
  }

  /** Total requests in flight across all clients. */
  totalInFlight(): number {
    let total = 0;
    for (const entry of this.#entries.values()) total += entry.inFlight;
    return total;
  }

  /** Number of clients tracked. */
  get size(): number {
    return this.#entries.size;
  }

  #prune(now: number): void {
    for (const [id, entry] of this.#entries) {
      if (entry.inFlight === 0 && now - entry.windowStart >= WINDOW_MS) this.#entries.delete(id);
    }
    if (this.#entries.size < this.options.tableSize) return;
    for (const [id, entry] of this.#entries) {
      if (entry.inFlight === 0) {
        this.#entries.delete(id);
        return;
      }
    }
  }
}
