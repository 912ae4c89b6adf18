/**
 * The store interface (DESIGN.md S1): typed collections of JSON values with atomic updates and TTL keys, plus
 * pub/sub. One interface, two backends: the JSON file (one node) and Redis (many nodes).
 *
 * @module
 */

/** A pino-compatible logger (the subset the store uses). Logs go to stderr; URLs are logged without passwords. */
export interface StoreLogger {
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Options of a write. */
export interface SetOptions {
  /**
   * The entry disappears after this many milliseconds (a heartbeat, an ownership lease). Unset: kept until
   * deleted. The file backend keeps TTL entries in memory only (they never reach `state.json`).
   */
  ttlMs?: number;
}

/**
 * What an {@link Collection.update} function decides, given the current value: write `value`, delete the entry,
 * or keep it as it is. `result` is what `update` resolves to.
 */
export type Change<T, R> =
  | { op: 'set'; value: T; ttlMs?: number; result?: R }
  | { op: 'delete'; result?: R }
  | { op: 'keep'; result?: R };

/** The arguments of {@link Collection.compareAndSwap}. */
export interface Swap<T> extends SetOptions {
  /** The value the entry must have now (`undefined`: must be absent). */
  expected: T | undefined;
  /** The value to write (`undefined`: delete). */
  next: T | undefined;
}

/** A named collection of JSON values (objects, arrays, strings, numbers, booleans) keyed by string. */
export interface Collection<T> {
  /** The current value, or `undefined`. Each call returns a fresh copy. */
  get(key: string): Promise<T | undefined>;
  /** Writes a value (replacing any). */
  set(key: string, value: T, options?: SetOptions): Promise<void>;
  /** Deletes an entry; `true` when there was one. */
  delete(key: string): Promise<boolean>;
  /** Every live entry (order unspecified). */
  entries(): Promise<Array<[string, T]>>;
  /**
   * Writes `swap.next` (or deletes, when `undefined`) only if the entry still equals `swap.expected`
   * (`undefined`: absent), compared by its JSON text. Atomic across nodes on Redis.
   *
   * @param key - the entry
   * @param swap - `expected`, `next`, and `ttlMs` for the written value
   * @returns whether it was written
   * @example Take an ownership lease only if nobody holds it
   * ```ts
   * const mine = await owners.compareAndSwap(tunnelId, { expected: undefined, next: nodeId, ttlMs: 15_000 });
   * ```
   */
  compareAndSwap(key: string, swap: Swap<T>): Promise<boolean>;
  /**
   * Atomic read-modify-write: `fn` gets the current value and returns a {@link Change}. On Redis, when another
   * writer changed the entry in between, `fn` runs again on the new value, so it must be free of side effects
   * (compute, don't act: act on the returned `result`).
   *
   * @returns the `result` of the change that was applied
   * @throws McpPipeError `MCPP_STORE_CONFLICT` after too many lost races
   */
  update<R = undefined>(key: string, fn: (current: T | undefined) => Change<T, R>): Promise<R | undefined>;
}

/** The store: collections and pub/sub. Close it (or `await using`) to release files, sockets and timers. */
export interface Store extends AsyncDisposable {
  /** `file` (one node) or `redis` (many nodes). */
  readonly kind: 'file' | 'redis';
  /**
   * A typed view of one collection (cheap; views of one name share the data).
   *
   * @throws McpPipeError `MCPP_STORE_INVALID_OPTIONS` for a name outside `^[A-Za-z][A-Za-z0-9_-]{0,63}$`
   */
  collection<T>(name: string): Collection<T>;
  /** Sends a message to every subscriber of `channel` (on the file backend: in this process only). */
  publish(channel: string, message: string): Promise<void>;
  /**
   * Calls `fn` for every message on `channel` until the returned function is called. A throwing `fn` is logged,
   * never propagated.
   */
  subscribe(channel: string, fn: (message: string) => void): Promise<() => Promise<void>>;
  /**
   * Resolves once the backend answers: on Redis one `PING` over the store's connection, on the file backend at once
   * (its state is this process's). The gateway's readiness probe (`/readyz`).
   *
   * @throws McpPipeError `MCPP_STORE_UNAVAILABLE` while Redis is unreachable (within `commandTimeoutMs`, 2 s by
   *   default); `MCPP_STORE_CLOSED` after `close()`
   */
  ping(): Promise<void>;
  /** Flushes pending writes and releases everything; later calls reject with `MCPP_STORE_CLOSED`. */
  close(): Promise<void>;
}

/** The bounds of a {@link Ring}: both hold after every append (S1, issue 19 D3). */
export interface RingLimits {
  /** Records kept per key. */
  maxCount: number;
  /** Bytes kept per key: the sum of the records' UTF-8 JSON lengths. */
  maxBytes: number;
  /** A key's records disappear this many ms after its last append. Unset: kept until cleared. */
  ttlMs?: number;
}

/**
 * Per key (a tunnel id) a capped sequence of JSON records with an `id`, oldest evicted first until both bounds of
 * {@link RingLimits} hold (a single record larger than `maxBytes` is kept alone, so the newest is always visible).
 * On Redis it is shared by every node; on the file backend it lives in memory only (never in `state.json`).
 */
export interface Ring<T extends { id: string }> {
  /** Appends records (oldest first) to several keys at once: one round trip (one pipeline) on Redis. */
  appendMany(batches: Iterable<readonly [key: string, records: readonly T[]]>): Promise<void>;
  /** Up to `limit` records of `key` (default: all), newest first; fresh copies. */
  list(key: string, limit?: number): Promise<T[]>;
  /** The record with this id, if still held. */
  get(key: string, id: string): Promise<T | undefined>;
  /** Drops every record of `key`; `true` when there were some. */
  clear(key: string): Promise<boolean>;
}
