/** One entry of a {@link SessionTable}. */
export interface SessionEntry<S> {
  value: S;
  lastSeenMs: number;
}

/**
 * A bounded least-recently-used table of sessions. `touch` moves an entry to the young end;
 * inserting beyond `max` evicts the oldest; `sweep` removes entries idle longer than `idleMs`.
 * Map insertion order is the recency order, so every operation is O(1) except `sweep`, which stops
 * at the first young entry.
 */
export class SessionTable<S> {
  readonly #entries = new Map<string, SessionEntry<S>>();

  /**
   * @param max - maximum number of entries (≥ 1)
   * @param idleMs - idle timeout in ms used by {@link SessionTable.sweep}
   * @param onEvict - called for every entry removed by eviction or sweep (not by `delete`)
   */
  constructor(
    private readonly max: number,
    private readonly idleMs: number,
    private readonly onEvict: (id: string, value: S, reason: 'evicted' | 'idle') => void,
  ) {}

  get size(): number {
    return this.#entries.size;
  }

  /** Returns the session and marks it used now. */
  touch(id: string, nowMs: number): S | undefined {
    const entry = this.#entries.get(id);
    if (!entry) return undefined;
    this.#entries.delete(id);
    entry.lastSeenMs = nowMs;
    this.#entries.set(id, entry);
    return entry.value;
  }

  /** Adds a session, evicting the least recently used ones beyond `max`. */
  set(id: string, value: S, nowMs: number): void {
    this.#entries.delete(id);
    this.#entries.set(id, { value, lastSeenMs: nowMs });
    while (this.#entries.size > this.max) {
      const [oldestId, oldest] = this.#entries.entries().next().value as [string, SessionEntry<S>];
      this.#entries.delete(oldestId);
      this.onEvict(oldestId, oldest.value, 'evicted');
    }
  }

  delete(id: string): boolean {
    return this.#entries.delete(id);
  }

  /** Removes entries idle for longer than `idleMs`. */
  sweep(nowMs: number): void {
    for (const [id, entry] of this.#entries) {
      if (nowMs - entry.lastSeenMs <= this.idleMs) break;
      this.#entries.delete(id);
      this.onEvict(id, entry.value, 'idle');
    }
  }

  values(): S[] {
    return [...this.#entries.values()].map((e) => e.value);
  }

  clear(): void {
    this.#entries.clear();
  }
}
