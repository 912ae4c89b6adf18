import { checkTtl, collectionName, findById, toJson } from './collectionUtil.js';
import { invalidOption } from './errors.js';
import { RedisRing } from './redisRing.js';
import { RedisStore } from './redisStore.js';
import type { Ring, RingLimits, Store } from './types.js';

/**
 * Checks ring bounds.
 *
 * @throws McpPipeError `MCPP_STORE_INVALID_OPTIONS` unless `maxCount` and `maxBytes` are positive integers
 */
export function checkRingLimits(limits: RingLimits): void {
  for (const k of ['maxCount', 'maxBytes'] as const) {
    const v = limits[k];
    if (!Number.isInteger(v) || v < 1) throw invalidOption(k, `must be a positive integer, got ${v}`);
  }
  checkTtl(limits.ttlMs);
}

/**
 * A bounded ring per key over a store (S1; issue 19's traffic ring): on Redis, one list per key shared by every
 * node; on the file backend, memory of this process only (a ring is never written into `state.json`: it is
 * traffic, rewritten on every call, and lost with the process like the in-memory ring it replaces).
 *
 * @param store - the store
 * @param name - the ring's name (same rule as a collection name)
 * @param limits - count and byte bounds, optional TTL
 * @throws McpPipeError `MCPP_STORE_INVALID_OPTIONS` for a bad name or bound
 * @example
 * ```ts
 * const ring = openRing<Exchange>(store, 'exchanges', { maxCount: 500, maxBytes: 8 << 20 });
 * await ring.appendMany([[tunnelId, [exchange]]]);
 * const newest = await ring.list(tunnelId, 50);
 * ```
 */
export function openRing<T extends { id: string }>(store: Store, name: string, limits: RingLimits): Ring<T> {
  collectionName(name);
  checkRingLimits(limits);
  if (store instanceof RedisStore) return new RedisRing<T>(store, name, limits);
  let rings = memoryRings.get(store);
  if (!rings) memoryRings.set(store, (rings = new Map()));
  let keys = rings.get(name);
  if (!keys) rings.set(name, (keys = new Map()));
  return new MemoryRing<T>(keys, limits);
}

interface Held {
  texts: string[];
  sizes: number[];
  bytes: number;
  /** When the key expires (the last append's TTL), or Infinity. */
  expiresAt: number;
}

/** The file backend's rings, per store and name: views of one name share the data, as collections do. */
const memoryRings = new WeakMap<Store, Map<string, Map<string, Held>>>();

/** The file backend's ring: JSON texts in memory (each read parses a fresh copy). */
class MemoryRing<T extends { id: string }> implements Ring<T> {
  constructor(
    readonly keys: Map<string, Held>,
    readonly limits: RingLimits,
  ) {}

  #held(key: string): Held | undefined {
    const h = this.keys.get(key);
    if (h && Date.now() >= h.expiresAt) {
      this.keys.delete(key);
      return undefined;
    }
    return h;
  }

  async appendMany(batches: Iterable<readonly [string, readonly T[]]>): Promise<void> {
    const { maxCount, maxBytes } = this.limits;
    for (const [key, records] of batches) {
      if (records.length === 0) continue;
      let h = this.#held(key);
      if (!h) this.keys.set(key, (h = { texts: [], sizes: [], bytes: 0, expiresAt: Infinity }));
      h.expiresAt = this.limits.ttlMs === undefined ? Infinity : Date.now() + this.limits.ttlMs;
      for (const r of records) {
        const text = toJson(r);
        const size = Buffer.byteLength(text);
        h.texts.push(text);
        h.sizes.push(size);
        h.bytes += size;
      }
      let drop = 0;
      while (h.texts.length - drop > 1 && (h.texts.length - drop > maxCount || h.bytes > maxBytes))
        h.bytes -= h.sizes[drop++]!;
      if (drop > 0) {
        h.texts.splice(0, drop);
        h.sizes.splice(0, drop);
      }
    }
  }

  async list(key: string, limit?: number): Promise<T[]> {
    const texts = this.#held(key)?.texts ?? [];
    const from = limit === undefined ? 0 : Math.max(0, texts.length - limit);
    const out: T[] = [];
    for (let i = texts.length - 1; i >= from; i--) out.push(JSON.parse(texts[i]!) as T);
    return out;
  }

  async get(key: string, id: string): Promise<T | undefined> {
    return findById<T>(this.#held(key)?.texts ?? [], id);
  }

  async clear(key: string): Promise<boolean> {
    const had = this.#held(key) !== undefined;
    this.keys.delete(key);
    return had;
  }
}
