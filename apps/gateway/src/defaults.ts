/**
 * Defaults of the gateway (STYLE.md §4). Units are in the names.
 *
 * @module
 */
import { HTTP_TIMEOUTS, MAX_JSON_DEPTH } from '@mcppipe/http';

/** `MCP_BODY_LIMIT`: the largest MCP request body, in bytes (the SDK's own default). */
export const DEFAULT_BODY_LIMIT_BYTES = 4 * 1024 * 1024;

/**
 * A request refused before its body is read (401, 403, 404, 429) keeps its connection when its body is declared
 * by a `Content-Length` of at most this many bytes: Node drains it. Larger or chunked bodies close instead.
 */
export const DRAIN_LIMIT_BYTES = 64 * 1024;

/**
 * Deepest JSON nesting accepted in an MCP request body; checked before parsing (SECURITY-REFERENCE C4). The one
 * limit of both apps: `@mcppipe/http`'s `MAX_JSON_DEPTH`.
 */
export const DEFAULT_MAX_JSON_DEPTH = MAX_JSON_DEPTH;

/** Pre-auth rate limit: requests per client IP per window. Generous: claude.ai traffic shares a few IP ranges. */
export const DEFAULT_RATE_LIMIT_MAX = 1200;

/** Pre-auth rate limit window, in ms. */
export const DEFAULT_RATE_LIMIT_WINDOW_MS = 60_000;

/** Most client IPs the pre-auth limiter remembers (an LRU: an IP flood evicts, never grows memory). */
export const DEFAULT_RATE_LIMIT_CACHE_SIZE = 10_000;

/** Per-client gate: requests per OAuth client per minute. */
export const DEFAULT_CLIENT_REQUESTS_PER_MINUTE = 600;

/** Per-client gate: requests of one OAuth client in flight at once. */
export const DEFAULT_CLIENT_MAX_IN_FLIGHT = 16;

/** Most OAuth clients the per-client gate tracks at once (idle entries are dropped first). */
export const DEFAULT_CLIENT_TABLE_SIZE = 10_000;

/** Node `headersTimeout`: a client has this long to send its request headers, in ms (`@mcppipe/http`'s, D2). */
export const DEFAULT_HEADERS_TIMEOUT_MS = HTTP_TIMEOUTS.headersTimeoutMs;

/**
 * Node `requestTimeout`: a client has this long to send its whole request (headers and body), in ms; the one
 * policy of both apps (`@mcppipe/http`'s `HTTP_TIMEOUTS`, D2).
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = HTTP_TIMEOUTS.requestTimeoutMs;

/**
 * Socket inactivity timeout, in ms: longer than the hub's 5-minute call timeout, so a quiet tool call that
 * streams nothing is not cut off, while a dead socket is reclaimed eventually.
 */
export const DEFAULT_CONNECTION_TIMEOUT_MS = 360_000;

/** Idle keep-alive sockets are closed after this long, in ms (above the usual 60 s proxy idle timeout). */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** Per-server proxy: upstream request timeout in ms, restarted by every progress notification. */
export const DEFAULT_PROXY_TIMEOUT_MS = 300_000;

/** Graceful shutdown: in-flight requests get this long to finish before sockets are destroyed, in ms. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

/** `/health`: timeout of one upstream `tools/list` page while counting tools, in ms. */
export const DEFAULT_HEALTH_LIST_TIMEOUT_MS = 5_000;
