/** Defaults of the supervisor. Durations in milliseconds, sizes in bytes. */

/** Handshake timeout of one connection attempt (enough for a cold `npx -y`). */
export const DEFAULT_START_TIMEOUT_MS = 60_000;
/** Per-request timeout (the SDK default). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** Wait between closing stdin, SIGTERM and SIGKILL of a stdio process group. */
export const DEFAULT_KILL_GRACE_MS = 2_000;
/** stderr bytes kept per stdio upstream. */
export const DEFAULT_STDERR_TAIL_BYTES = 16_384;
/**
 * stderr lines copied into `lastError` and state events: the first 3 non-empty lines, the first 2 later lines that
 * read like an error (within the first 4 KiB), and the last 5, with `…` where lines were left out. A server that
 * prints its real error first and usage text after keeps both.
 */
export const STDERR_LINES_IN_ERRORS = { head: 3, errors: 2, tail: 5 } as const;
/** Longest stdout line accepted from a stdio upstream; longer lines are skipped (the SDK's limit). */
export const MAX_STDOUT_LINE_BYTES = 10 * 1024 * 1024;
/** At most one warning per this interval about non-JSON stdout lines, per upstream. */
export const SKIPPED_LINE_LOG_INTERVAL_MS = 10_000;
/** The `clientInfo` sent to upstreams unless configured. */
export const DEFAULT_CLIENT_INFO = { name: 'mcppipe', version: '0.1.0' } as const;
/** HTTP statuses of the first POST that mean "not Streamable HTTP here": fall back to legacy SSE. */
export const SSE_FALLBACK_STATUSES: ReadonlySet<number> = new Set([400, 404, 405]);
