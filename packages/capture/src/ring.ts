import { invalidOptionsError } from './errors.js';

/** Anything the ring can hold: an id and what it costs in bytes. */
export interface RingEntry {
  id: string;
  sizeBytes: number;
}

/**
 * A ring bounded by count and by bytes (D3): adding an entry evicts the oldest ones until both bounds hold again
 * (a single entry larger than the byte bound is still kept alone, so the newest exchange is always visible).
 */
export class BoundedRing<T extends RingEntry> {
  /** Evicted slots (before `#head`) hold undefined: an evicted entry is released at once, not at the splice. */
  readonly #entries: (T | undefined)[] = [];
  #head = 0;
  #bytes = 0;

  /**
   * @param maxCount - entries kept
   * @param maxBytes - bytes kept (the sum of `sizeBytes`)
   * @throws McpPipeError `MCPP_CAPTURE_INVALID_OPTIONS` when a bound is not a positive integer
   */
  constructor(
    readonly maxCount: number,
    readonly maxBytes: number,
  ) {
    for (const [k, v] of Object.entries({ maxCount, maxBytes }))
      if (!Number.isInteger(v) || v < 1) throw invalidOptionsError(k, v, 'a positive integer');
  }

  /** Entries held. */
  get size(): number {
    return this.#entries.length - this.#head;
  }

  /** Bytes held. */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Adds the newest entry, evicting the oldest as needed.
   *
   * @param entry - the entry
   */
  push(entry: T): void {
    this.#entries.push(entry);
    this.#bytes += entry.sizeBytes;
    while (this.size > 1 && (this.size > this.maxCount || this.#bytes > this.maxBytes)) {
      const old = this.#entries[this.#head]!;
      this.#entries[this.#head] = undefined;
      this.#head++;
      this.#bytes -= old.sizeBytes;
    }
    if (this.#head > 1024 && this.#head * 2 > this.#entries.length) {
      // evicted slots are released in blocks: amortized O(1) per push
      this.#entries.splice(0, this.#head);
      this.#head = 0;
    }
  }

  /**
   * Finds an entry by id, newest first (no index kept: a push stays O(1) without a map to update on every call,
   * and a lookup is one pass over at most `maxCount` entries, for the Inspector, not per call).
   *
   * @param id - an entry id
   * @returns the entry, if still held
   */
  get(id: string): T | undefined {
    for (let i = this.#entries.length - 1; i >= this.#head; i--)
      if (this.#entries[i]!.id === id) return this.#entries[i];
    return undefined;
  }

  /** @returns the entries, newest first */
  *newestFirst(): IterableIterator<T> {
    for (let i = this.#entries.length - 1; i >= this.#head; i--) yield this.#entries[i]!;
  }
}
