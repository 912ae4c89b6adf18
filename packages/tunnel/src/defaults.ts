/** Interval of the h2 PING each side sends, in ms (T3). */
export const DEFAULT_PING_INTERVAL_MS = 20_000;
/** A tunnel that has sent nothing for this long is declared dead, in ms (T3). */
export const DEFAULT_DEAD_AFTER_MS = 45_000;
/** First reconnect delay, in ms (T6: 1, 2, 4, 8, 16 s, capped at 30 s). */
export const DEFAULT_INITIAL_BACKOFF_MS = 1_000;
/** Growth factor of the reconnect delay. */
export const DEFAULT_BACKOFF_MULTIPLIER = 2;
/** Cap of the reconnect delay, in ms. */
export const DEFAULT_MAX_BACKOFF_MS = 30_000;
/** Random spread of each reconnect delay (±20 %). */
export const DEFAULT_JITTER_RATIO = 0.2;
/** `Retry-After` of the offline answer, in seconds. */
export const DEFAULT_OFFLINE_RETRY_AFTER_S = 5;
/** How long `close()` waits for the WebSocket closing handshake before cutting the socket, in ms. */
export const CLOSE_GRACE_MS = 2_000;
/** Largest `metadata` header the relay accepts, in bytes. */
export const MAX_METADATA_BYTES = 4_096;

/** The request header that names the wanted subdomain. */
export const SUBDOMAIN_HEADER = 'x-mcppipe-subdomain';
/** The request header that asks for zero-knowledge mode (`1`; T7). */
export const ZERO_KNOWLEDGE_HEADER = 'x-mcppipe-zero-knowledge';
/** The request header that carries the client's metadata (a JSON object of strings). */
export const METADATA_HEADER = 'x-mcppipe-metadata';
/** The 101 response header that carries the tunnel's public URL. */
export const PUBLIC_URL_HEADER = 'x-mcppipe-public-url';
/**
 * The 101 response header that carries the auth mode the relay applies to the tunnel's public URL (T5), when the
 * relay says: the owner's saved setting can differ from the mode the client asked for in its metadata.
 */
export const TUNNEL_AUTH_HEADER = 'x-mcppipe-tunnel-auth';

/** WebSocket close code: a newer connection of the same account took the subdomain over (permanent for the old one). */
export const CLOSE_REPLACED = 4000;
/** WebSocket close code: the API key was revoked. */
export const CLOSE_KEY_REVOKED = 4001;
/** WebSocket close code: the relay is shutting down or closed the tunnel on purpose. */
export const CLOSE_RELAY_CLOSED = 4002;
/** WebSocket close code: the peer was silent for too long. */
export const CLOSE_DEAD = 4003;

/** h2 per-stream flow-control window both halves advertise, in bytes (Node's default of 64 KB stalls big bodies). */
export const STREAM_WINDOW_BYTES = 1024 * 1024;
/** h2 connection-level flow-control window both halves open up to, in bytes. */
export const SESSION_WINDOW_BYTES = 16 * 1024 * 1024;
