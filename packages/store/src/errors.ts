import { McpPipeError } from '@mcppipe/errors';

/** The error codes `@mcppipe/store` throws (documented in docs/errors.md). */
export type StoreErrorCode =
  | 'MCPP_STORE_UNAVAILABLE'
  | 'MCPP_STORE_CONFLICT'
  | 'MCPP_STORE_INVALID_OPTIONS'
  | 'MCPP_STORE_WRITE_FAILED'
  | 'MCPP_STORE_REDIS_ERROR'
  | 'MCPP_STORE_CLOSED';

/** A coded store error. */
export function storeError(
  code: StoreErrorCode,
  message: string,
  cause?: unknown,
): McpPipeError<StoreErrorCode> {
  return new McpPipeError(code, message, cause === undefined ? {} : { cause });
}

/** `MCPP_STORE_INVALID_OPTIONS` naming the option. */
export function invalidOption(name: string, problem: string): McpPipeError<StoreErrorCode> {
  return storeError('MCPP_STORE_INVALID_OPTIONS', `${name}: ${problem}`);
}

/** Reply errors that mean "not now" (Redis loading, failing over), not "wrong command". */
const TRANSIENT_REPLIES = /^(LOADING|READONLY|MASTERDOWN|BUSY|TRYAGAIN|CLUSTERDOWN)\b/;

/**
 * Normalises anything a Redis call threw into a coded error, once, at the store's boundary. The raw client
 * text stays in `cause` (for logs); the message says what happened and what to check.
 *
 * @param err - what the client threw
 * @param where - the redacted Redis address
 * @param op - the operation, for the message
 */
export function fromRedisError(err: unknown, where: string, op: string): McpPipeError {
  if (err instanceof McpPipeError) return err;
  const name = (err as { name?: unknown } | null)?.name;
  const message = (err as { message?: unknown } | null)?.message;
  if (name === 'ReplyError' && typeof message === 'string' && !TRANSIENT_REPLIES.test(message)) {
    const word = /^[A-Z]+/.exec(message)?.[0] ?? 'ERR';
    return storeError(
      'MCPP_STORE_REDIS_ERROR',
      `Redis at ${where} refused the store's ${op} (${word}); check the server's configuration (maxmemory, renamed or disabled commands)`,
      err,
    );
  }
  return storeError(
    'MCPP_STORE_UNAVAILABLE',
    `the store's Redis at ${where} is unavailable (${op} refused, nothing changed); mcppipe reconnects on its own: check that Redis runs and that --redis / MCPPIPE_REDIS_URL points at it`,
    err,
  );
}
