import type { McpPipeErrorCode } from './codes.js';
import { errorCodes } from './codes.js';

/** Options for {@link McpPipeError}. */
export interface McpPipeErrorOptions<D> {
  /** Structured details a caller can act on (never secrets). */
  data?: D;
  /** The underlying error (ES2022 `cause`). */
  cause?: unknown;
}

/**
 * The base class of every error mcppipe throws on purpose. Local errors carry a string `code` from
 * {@link McpPipeErrorCode}; they are mapped to JSON-RPC errors only at the wire boundary.
 *
 * @example Matching a code
 * ```ts
 * try { validateUpstreamName('Search'); }
 * catch (err) { if (isMcpPipeError(err, 'MCPP_NS_INVALID_NAME')) console.error(err.message); }
 * ```
 */
export class McpPipeError<C extends McpPipeErrorCode = McpPipeErrorCode, D = unknown> extends Error {
  /** The stable code; see `docs/errors.md`. */
  readonly code: C;
  /** Structured details, when the code defines any. */
  readonly data: D | undefined;

  /**
   * @param code - a stable code from {@link errorCodes}
   * @param message - a message that tells the user what to change
   * @param options - optional `data` and `cause`
   */
  constructor(code: C, message: string, options: McpPipeErrorOptions<D> = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'McpPipeError';
    this.code = code;
    this.data = options.data;
  }
}

/**
 * Narrows `err` to a {@link McpPipeError}, optionally of one code.
 *
 * @param err - anything caught
 * @param code - when given, the code the error must carry
 * @returns whether `err` is such an error
 */
export function isMcpPipeError<C extends McpPipeErrorCode>(err: unknown, code?: C): err is McpPipeError<C> {
  return err instanceof McpPipeError && (code === undefined || err.code === code);
}

/**
 * Whether `code` is one of mcppipe's stable codes.
 *
 * @param code - any string
 * @returns true for a code listed in {@link errorCodes}
 */
export function isMcpPipeErrorCode(code: string): code is McpPipeErrorCode {
  return Object.hasOwn(errorCodes, code);
}
