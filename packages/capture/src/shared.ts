import type { ExchangeDetail } from './types.js';

/**
 * Where the capture also writes its exchanges so every node can read them (issue 19 item 2, issue 20, S1):
 * `@mcppipe/store`'s `openRing<ExchangeDetail>(store, …)` fits it. Records are the details as the API shows them
 * (values redacted unless the owner turned their capture on; metadata only for zero-knowledge tunnels): the
 * original request bodies kept for a replay never leave the node.
 */
export interface SharedExchangeRing {
  appendMany(batches: Iterable<readonly [string, readonly ExchangeDetail[]]>): Promise<void>;
  list(key: string, limit?: number): Promise<ExchangeDetail[]>;
  get(key: string, id: string): Promise<ExchangeDetail | undefined>;
}

/** Options of the shared ring's writer. */
export interface SharedWriterOptions {
  /** A batch is written at most this long after its first entry, ms. Default 100. */
  flushMs?: number;
  /** A batch this large is written at once. Default 100. */
  maxBatch?: number;
  /** A failed write (the batch is dropped: it is traffic, the owner node keeps its own ring). */
  onError?: (err: unknown) => void;
}

/**
 * Batches the exchanges a node records into one `appendMany` (one pipeline) per flush: the per-call cost is an
 * array push, the detail is built and serialized at the flush (R10: the hot path stays as without the store).
 */
export class SharedWriter<T> {
  #pending = new Map<string, T[]>();
  #count = 0;
  #timer: NodeJS.Timeout | undefined;
  #inFlight: Promise<void> = Promise.resolve();
  readonly #flushMs: number;
  readonly #maxBatch: number;

  /**
   * @param ring - where to write
   * @param detail - the record of an entry, built at the flush
   * @param options - flush interval, batch size, error sink
   */
  constructor(
    readonly ring: SharedExchangeRing,
    readonly detail: (entry: T) => ExchangeDetail,
    readonly options: SharedWriterOptions = {},
  ) {
    this.#flushMs = options.flushMs ?? 100;
    this.#maxBatch = options.maxBatch ?? 100;
  }

  /** Queues one entry of a tunnel. */
  add(tunnel: string, entry: T): void {
    const list = this.#pending.get(tunnel);
    if (list === undefined) this.#pending.set(tunnel, [entry]);
    else list.push(entry);
    if (++this.#count >= this.#maxBatch) void this.flush();
    else if (this.#timer === undefined) {
      this.#timer = setTimeout(() => void this.flush(), this.#flushMs);
      this.#timer.unref();
    }
  }

  /** Writes what is queued; resolves once it (and any earlier flush) is written or failed. Never rejects. */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#pending;
    if (this.#count > 0) {
      this.#pending = new Map();
      this.#count = 0;
      const records: Array<[string, ExchangeDetail[]]> = [];
      for (const [tunnel, entries] of batch) records.push([tunnel, entries.map(this.detail)]);
      const prev = this.#inFlight;
      this.#inFlight = prev
        .then(() => this.ring.appendMany(records))
        .catch((err) => this.options.onError?.(err));
    }
    return this.#inFlight;
  }
}
