import { REDIS_URL_ENV } from './defaults.js';
import { openFileStore, type FileStoreOptions } from './fileStore.js';
import { openRedisStore, type RedisStoreOptions } from './redisStore.js';
import type { Store } from './types.js';

/** Options of {@link openStore}: the file store's, plus where Redis is. */
export interface OpenStoreOptions extends FileStoreOptions, Omit<RedisStoreOptions, 'url'> {
  /** The `--redis URL` flag. Unset: `MCPPIPE_REDIS_URL` from `env`; neither: the JSON file. */
  redisUrl?: string | undefined;
  /** Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Picks the backend (S1): Redis when `--redis URL` or `MCPPIPE_REDIS_URL` is set (many nodes), else the JSON file
 * in `dataDir` (one node).
 *
 * @param options - the flag, the environment and both backends' options
 * @returns the opened store
 * @throws McpPipeError `MCPP_STORE_INVALID_OPTIONS` for a bad URL; `MCPP_STORE_UNAVAILABLE` when Redis cannot be reached
 *
 * @example
 * ```ts
 * const store = await openStore({ redisUrl: argv.redis, dataDir: argv.dataDir, logger });
 * ```
 */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  const url = options.redisUrl || (options.env ?? process.env)[REDIS_URL_ENV] || undefined;
  if (url === undefined) return openFileStore(options);
  return openRedisStore({ ...options, url });
}
