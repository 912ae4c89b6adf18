/**
 * Defaults of `@mcppipe/oauth`, one place for every number (STYLE.md §4). Units are in the names.
 *
 * @module
 */

/** A plain admin password shorter than this many characters is accepted with a warning at startup. */
export const MIN_RECOMMENDED_PASSWORD_LENGTH = 12;
/** Access-token lifetime: 1 hour (short-lived, MCP "Token Theft"). */
export const DEFAULT_ACCESS_TOKEN_TTL_SEC = 3600;
/** Authorization-code lifetime: 2 minutes (OAuth 2.1 recommends at most 10; the issue asks for 60 s–5 min). */
export const DEFAULT_CODE_TTL_SEC = 120;
/** Bounds accepted for `codeTtlSec`. */
export const CODE_TTL_BOUNDS_SEC = [60, 300] as const;
/**
 * Refresh grace window: within it, the immediate predecessor of the current refresh token returns the same
 * successor pair instead of counting as reuse (RFC 9700 §4.14.2 practice; Connect2id uses 5 s).
 */
export const DEFAULT_REFRESH_GRACE_MS = 5000;
/** Upper bound for `refreshGraceMs` (the security reference: at most 60 s). */
export const MAX_REFRESH_GRACE_MS = 60_000;
/** A refresh-token family not used for this long expires (RFC 9700: expire after inactivity). */
export const DEFAULT_REFRESH_IDLE_TTL_SEC = 30 * 24 * 3600;
/** A refresh-token family expires this long after the login that started it, used or not. */
export const DEFAULT_REFRESH_MAX_TTL_SEC = 90 * 24 * 3600;
/** Clock skew tolerated when verifying `exp`/`nbf` of access tokens. */
export const ACCESS_TOKEN_SKEW_SEC = 30;
/**
 * Verified-token cache: at most this many access tokens (by SHA-256) have their signature and claim checks
 * remembered; the least recently used is evicted. Revocation is still checked on every use.
 */
export const DEFAULT_VERIFIED_TOKEN_CACHE_SIZE = 10_000;
/** Verified-token cache: an entry is trusted at most this long (and never past the token's `exp` + skew). */
export const DEFAULT_VERIFIED_TOKEN_CACHE_TTL_MS = 60_000;
/** Longest access token `verifyAccessToken` will parse (ours are about 600 characters). */
export const MAX_ACCESS_TOKEN_LENGTH = 4096;
/** A pending authorization request (between `/authorize` and the approval) lives this long. */
export const PENDING_REQUEST_TTL_MS = 10 * 60_000;
/** A browser session (the login cookie) lives this long. */
export const BROWSER_SESSION_TTL_MS = 12 * 3600_000;
/** At most this many pending requests and browser sessions are kept in memory; the oldest are evicted. */
export const MAX_PENDING_ENTRIES = 10_000;
/** A registered client that never completed an authorization is pruned after this long. */
export const UNUSED_CLIENT_TTL_MS = 24 * 3600_000;
/** At most this many registered clients are kept; registration fails with 503 beyond it. */
export const MAX_CLIENTS = 10_000;
/** The only scope mcppipe knows. Unknown requested scopes are ignored at `/authorize` (RFC 6749 §3.3). */
export const SUPPORTED_SCOPES = ['mcp'] as const;
/** The `sub` claim: the gateway has exactly one owner, the holder of the admin password. */
export const OWNER_SUBJECT = 'owner';
/** Private-use redirect schemes accepted by default (Cursor's `cursor://anysphere.cursor-mcp/oauth/callback`). */
export const DEFAULT_ALLOWED_REDIRECT_SCHEMES = ['cursor'] as const;
/** bcrypt work factor used by `hashPassword` (OWASP: at least 10). */
export const BCRYPT_COST = 12;
/** Login throttling: free failures per client IP, then the delay doubles from `LOGIN_BASE_DELAY_MS`. */
export const LOGIN_FREE_FAILURES_PER_IP = 5;
/** Login throttling: free failures across all IPs (the one account), then the delay doubles. */
export const LOGIN_FREE_FAILURES_ACCOUNT = 20;
/** First delay after the free failures are used up. */
export const LOGIN_BASE_DELAY_MS = 1000;
/** Longest delay (a temporary lock, never a permanent one: Keycloak's `maxFailureWait`). */
export const LOGIN_MAX_DELAY_MS = 15 * 60_000;
/** Interval of the background pruning of expired state entries. */
export const PRUNE_INTERVAL_MS = 10 * 60_000;
/**
 * Many nodes (S1): every node re-reads the shared OAuth state (clients, families, revocations) this often, besides
 * the `oauth` pub/sub channel, so a message lost while Redis was away delays a revocation by at most this long.
 */
export const SHARED_SYNC_INTERVAL_MS = 5_000;
