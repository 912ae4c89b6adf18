/** The JSON-file backend's file name inside the data directory (DESIGN.md G12). */
export const STATE_FILE = 'state.json';
/** The collections of today's `state.json` (G12), created empty in a new file. */
export const DEFAULT_COLLECTIONS: readonly string[] = Object.freeze([
  'clients',
  'grants',
  'families',
  'revokedTokens',
]);
/** The environment variable naming the Redis URL (same as `--redis`). */
export const REDIS_URL_ENV = 'MCPPIPE_REDIS_URL';
/** Prefix of every Redis key and channel the store uses. */
export const DEFAULT_KEY_PREFIX = 'mcppipe:';
/** A Redis command that has not answered by then is refused with `MCPP_STORE_UNAVAILABLE`. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 2_000;
/** How long the first connection may take. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
/** Longest wait between reconnect attempts (they start at 50 ms and double). */
export const DEFAULT_MAX_RECONNECT_DELAY_MS = 2_000;
/** How many times `update` re-reads and retries after losing a race before `MCPP_STORE_CONFLICT`. */
export const DEFAULT_MAX_UPDATE_ATTEMPTS = 32;
/** Collection names: what fits in a file's top-level key and a Redis key segment. */
export const COLLECTION_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
