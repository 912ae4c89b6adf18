/**
 * `@mcppipe/store`: everything the gateway and relay keep, behind one interface (DESIGN.md S1): typed
 * collections of JSON values with atomic updates (`compareAndSwap`, `update`) and TTL keys, plus pub/sub; over
 * the JSON file of one node (`state.json`, G12) or Redis shared by many nodes (S2); and `RedisBucketStore`, the
 * atomic token buckets of `@mcppipe/policy` in Redis. Every export here is public API.
 *
 * @module
 */
export type { Change, Collection, SetOptions, Store, StoreLogger, Swap } from './types.js';
export { fsyncDir, removeStrayTempFiles, writeFileAtomic } from './atomicFile.js';
export { openStore } from './openStore.js';
export type { OpenStoreOptions } from './openStore.js';
export { openFileStore } from './fileStore.js';
export type { FileStoreOptions } from './fileStore.js';
export { openRedisStore, RedisStore, redactRedisUrl } from './redisStore.js';
export type { RedisStoreOptions } from './redisStore.js';
export { RedisBucketStore } from './redisBuckets.js';
export type { RedisBucketStoreOptions } from './redisBuckets.js';
export { DEFAULT_COLLECTIONS, DEFAULT_KEY_PREFIX, REDIS_URL_ENV, STATE_FILE } from './defaults.js';
export type { StoreErrorCode } from './errors.js';
export type { Ring, RingLimits } from './types.js';
export { openRing } from './ring.js';
