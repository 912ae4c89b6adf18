/**
 * The stable error codes of mcppipe: one entry per code, each with a doc comment that says when it is
 * thrown and what the user should change. The value names the package that throws it.
 *
 * Codes are never reused or renamed (STYLE.md §5). `docs/errors.md` is generated from this file
 * (`pnpm --filter @mcppipe/errors docs`) and a test fails when the two drift apart.
 *
 * @module
 */
export const errorCodes = {
  // ── @mcppipe/namespace ────────────────────────────────────────────────────────────
  /** An upstream name does not match `^[a-z][a-z0-9_-]{0,31}$`, contains `__` or ends with `_` (DESIGN.md A6). Rename the upstream. */
  MCPP_NS_INVALID_NAME: '@mcppipe/namespace',
  /** An exposed tool or prompt name has no `__` separator or its upstream part is not a valid upstream name (A1). */
  MCPP_NS_NOT_NAMESPACED: '@mcppipe/namespace',
  /** A resource URI or template is not one `@mcppipe/namespace` produced: `mcppipe://<upstream>/<base64url>` or `mcppipe+t://<upstream>/…` (A2). */
  MCPP_NS_NOT_WRAPPED: '@mcppipe/namespace',
  /** Two upstreams in one layout share a name (A6); names must be unique. */
  MCPP_NS_DUPLICATE_NAME: '@mcppipe/namespace',
  /** A resource URI to wrap contains a lone UTF-16 surrogate, which UTF-8 (hence base64url) cannot carry (A2); the upstream sent a malformed string. */
  MCPP_NS_INVALID_URI: '@mcppipe/namespace',

  // ── @mcppipe/upstream-state ───────────────────────────────────────────────────────
  /** A lifecycle policy value (from options or a `MCPPIPE_UPSTREAM_*` environment variable) is not a valid number. */
  MCPP_STATE_INVALID_POLICY: '@mcppipe/upstream-state',

  // ── @mcppipe/config ───────────────────────────────────────────────────────────────
  /** A configuration is invalid; `data.errors` lists every problem, each prefixed with its dot-path. */
  MCPP_CFG_INVALID: '@mcppipe/config',
  /** One bare `--upstream` and one bare `--stdio` were given: name them (`--upstream a=URL --stdio b="CMD"`) (A7). */
  MCPP_CFG_AMBIGUOUS_SOURCES: '@mcppipe/config',
  /** Two or more sources were given and one has no `name=` prefix (A7). */
  MCPP_CFG_BARE_SOURCE: '@mcppipe/config',
  /** `--upstreams-file` was combined with `--upstream` or `--stdio`; use one form (A8). */
  MCPP_CFG_SOURCE_CONFLICT: '@mcppipe/config',
  /** No upstream source was given and none was detected in local MCP clients. */
  MCPP_CFG_NO_SOURCES: '@mcppipe/config',
  /** A TOML or JSON configuration file has a syntax error; the message gives line and column. */
  MCPP_CFG_SYNTAX: '@mcppipe/config',
  /** A configuration file could not be read (missing, unreadable). */
  MCPP_CFG_READ_FAILED: '@mcppipe/config',
  /** `${VAR}` refers to an unset environment variable and has no `:-default`. Set the variable or add a default. */
  MCPP_CFG_UNSET_VARIABLE: '@mcppipe/config',

  // ── @mcppipe/supervisor ───────────────────────────────────────────────────────────
  /** A stdio upstream's command could not be started (not found, not executable, bad cwd). */
  MCPP_SUP_SPAWN_FAILED: '@mcppipe/supervisor',
  /** An upstream did not finish its handshake within its start timeout. */
  MCPP_SUP_START_TIMEOUT: '@mcppipe/supervisor',
  /** An upstream could not be connected (refused, handshake error, protocol error). */
  MCPP_SUP_CONNECT_FAILED: '@mcppipe/supervisor',
  /** An upstream's process exited or its connection closed. */
  MCPP_SUP_EXITED: '@mcppipe/supervisor',
  /** A liveness probe (`ping` or `server/discover`) failed or timed out; the upstream is restarted. */
  MCPP_SUP_PROBE_FAILED: '@mcppipe/supervisor',
  /** No upstream with this name is supervised. */
  MCPP_SUP_UNKNOWN_UPSTREAM: '@mcppipe/supervisor',
  /** The upstream is not `available` (connecting, recovering or failed); calls fail fast. */
  MCPP_SUP_UNAVAILABLE: '@mcppipe/supervisor',
  /** The supervisor was stopped; no more calls are accepted. */
  MCPP_SUP_STOPPED: '@mcppipe/supervisor',
  /** The agent's request could not be sent (it nests too deeply or is too large to serialize); JSON-RPC -32602. */
  MCPP_SUP_BAD_REQUEST: '@mcppipe/supervisor',

  // ── @mcppipe/aggregator ───────────────────────────────────────────────────────────
  /** A tool, prompt or resource named by the agent is unknown (unknown prefix or unknown name); JSON-RPC -32602. */
  MCPP_AGG_UNKNOWN_NAME: '@mcppipe/aggregator',
  /** The upstream is not available; JSON-RPC -32000 with one message format everywhere (mid-call, per-server proxy, the gateway's 503): `upstream_unavailable: upstream "<name>" is <phase>; retry in <n> s`, `data: { upstream, phase, retryAfterMs }`, `phase` one of `connecting`, `recovering`, `failed`. Retry after `retryAfterMs`; a `failed` upstream is retried by a new session (`initialize`). */
  MCPP_AGG_UPSTREAM_UNAVAILABLE: '@mcppipe/aggregator',

  // ── @mcppipe/hub ──────────────────────────────────────────────────────────────────
  /** `server` names no server visible to the hub (unknown, or `"hub": false`). */
  MCPP_HUB_UNKNOWN_SERVER: '@mcppipe/hub',
  /** `tool` names no tool of that server. */
  MCPP_HUB_UNKNOWN_TOOL: '@mcppipe/hub',
  /** The server is not available; the message names its phase. */
  MCPP_HUB_UNAVAILABLE: '@mcppipe/hub',
  /** `call_tool` saw neither a result nor progress within its timeout (5 min by default). */
  MCPP_HUB_TIMEOUT: '@mcppipe/hub',
  /** A meta-tool's arguments break its input schema (missing or unknown property, wrong type); the message says which. */
  MCPP_HUB_INVALID_ARGUMENTS: '@mcppipe/hub',
  /** The server answered a hub request with a JSON-RPC error, or its connection failed mid-request; `data` holds the upstream's code and message. */
  MCPP_HUB_UPSTREAM_ERROR: '@mcppipe/hub',
  /** The hub was closed; create a new one. */
  MCPP_HUB_CLOSED: '@mcppipe/hub',

  // ── @mcppipe/policy ───────────────────────────────────────────────────────────────
  /** A tool policy or rate-limit configuration is invalid; the message starts with the dot-path (`rules[2].match: …`) and `data.errors` lists every problem. */
  MCPP_POLICY_INVALID: '@mcppipe/policy',
  /** A call was refused by a rate limit; JSON-RPC -31429 `rate_limited` with `data: { retryAfterMs, limit }` (HTTP-level limits answer 429 + `Retry-After`). Wait `retryAfterMs`, or raise the limit. */
  MCPP_POLICY_RATE_LIMITED: '@mcppipe/policy',

  // ── @mcppipe/oauth ────────────────────────────────────────────────────────────────
  /** `jwt-key.pem` exists but is not a valid Ed25519 private key; the gateway refuses to start rather than mint a new key. */
  MCPP_OAUTH_KEY_CORRUPT: '@mcppipe/oauth',
  /** Neither `MCPPIPE_ADMIN_PASSWORD` nor `MCPPIPE_ADMIN_PASSWORD_HASH` is set, or the hash is not a bcrypt hash. */
  MCPP_OAUTH_NO_PASSWORD: '@mcppipe/oauth',
  /** An OAuth protocol error; `data.error` holds the RFC 6749 error code (`invalid_grant`, `invalid_client`, …). */
  MCPP_OAUTH_PROTOCOL: '@mcppipe/oauth',
  /** An access token failed verification (signature, algorithm, type, issuer, audience, expiry, revocation). */
  MCPP_OAUTH_INVALID_TOKEN: '@mcppipe/oauth',
  /** An option given to `createOAuthProvider` or `hashPassword` is invalid (public URL, TTL, password length); the message names it. */
  MCPP_OAUTH_INVALID_OPTIONS: '@mcppipe/oauth',
  /** `state.json` could not be written (disk full, read-only file system); the request that needed it failed and was not acknowledged. */
  MCPP_OAUTH_STATE_WRITE_FAILED: '@mcppipe/oauth',
  /** A relay account or API key command was refused: invalid slug, existing account, bad password length, or an unreadable `accounts.json`; the message says what to change (T1). */
  MCPP_OAUTH_ACCOUNT_INVALID: '@mcppipe/oauth',
  /** No such relay account or API key; list them with `mcppipe-gateway accounts list` / `keys list` (T1). */
  MCPP_OAUTH_ACCOUNT_NOT_FOUND: '@mcppipe/oauth',

  // ── @mcppipe/tunnel ───────────────────────────────────────────────────────────────
  /** No live tunnel serves this public address (never connected, dropped, or reconnecting); the relay answers 503 with `Retry-After` and JSON-RPC -32000 `tunnel_offline` (T6). Start `mcppipe up --tunnel` or wait for it to reconnect. */
  MCPP_TUNNEL_OFFLINE: '@mcppipe/tunnel',
  /** The relay refused the API key (HTTP 401 on `/tunnel/connect`); permanent, no retry. Create a key with `mcppipe-gateway keys create` and pass it as `--api-key` (T1). */
  MCPP_TUNNEL_BAD_KEY: '@mcppipe/tunnel',
  /** The subdomain is held by another account's live tunnel (HTTP 409); permanent, no retry. Pick another `--subdomain` (T2). */
  MCPP_TUNNEL_SUBDOMAIN_TAKEN: '@mcppipe/tunnel',
  /** The subdomain does not match `^[a-z][a-z0-9_-]{0,31}$` (no `__`, no trailing `_`; HTTP 400); permanent. Rename it (T2, A6). */
  MCPP_TUNNEL_INVALID_SUBDOMAIN: '@mcppipe/tunnel',
  /** The relay refused the tunnel for another reason (HTTP 403 or another 4xx), or a newer connection of the same account took the subdomain over; permanent, the message gives the relay's reason. */
  MCPP_TUNNEL_REFUSED: '@mcppipe/tunnel',
  /** The connect URL answered HTTP without a WebSocket upgrade and with no refusal of the relay's (404, 405, 200, a redirect…): no relay listens there; permanent, no retry. Point `--tunnel` at the base URL (no path) of a gateway started with `--tunnel-zone` (T2). */
  MCPP_TUNNEL_NO_RELAY: '@mcppipe/tunnel',
  /** An option of `connectTunnel` or `TunnelRegistry` is invalid (relay URL, durations, backoff); the message names it. */
  MCPP_TUNNEL_INVALID_OPTIONS: '@mcppipe/tunnel',

  // ── @mcppipe/store ────────────────────────────────────────────────────────────────
  /** The store's Redis is unreachable (down, restarting, network) or did not answer within the command timeout; the operation was refused and nothing changed. mcppipe reconnects on its own; check `--redis` / `MCPPIPE_REDIS_URL` and that Redis runs (S1). */
  MCPP_STORE_UNAVAILABLE: '@mcppipe/store',
  /** An atomic update lost the race to other writers more times than its retry limit allows; nothing was written. Retry the request; if it persists, one key is updated too often. */
  MCPP_STORE_CONFLICT: '@mcppipe/store',
  /** A store option is invalid (Redis URL scheme, collection name, durations); the message names it. */
  MCPP_STORE_INVALID_OPTIONS: '@mcppipe/store',
  /** The JSON state file could not be written (disk full, read-only file system); the old file stays intact (G12). Free space or fix the data directory's permissions. */
  MCPP_STORE_WRITE_FAILED: '@mcppipe/store',
  /** Redis refused a command with an error reply (wrong key type, memory limit, a disabled command); the message names the command. Check the Redis server's configuration. */
  MCPP_STORE_REDIS_ERROR: '@mcppipe/store',
  /** The store was closed; no more operations are accepted. */
  MCPP_STORE_CLOSED: '@mcppipe/store',

  // ── @mcppipe/events ───────────────────────────────────────────────────────────────
  /** A webhook subscription is invalid: the URL is not `http(s)://` with a host, or `events` is empty or names an unknown event type (E3); the message says which. */
  MCPP_EVENTS_INVALID_WEBHOOK: '@mcppipe/events',
  /** A webhook target resolves to a loopback, private, link-local or otherwise non-public address (E3). Use a public URL, or start the gateway with `MCPPIPE_WEBHOOKS_ALLOW_PRIVATE=1`. */
  MCPP_EVENTS_PRIVATE_TARGET: '@mcppipe/events',
  /** No webhook subscription has this id (removed, or another scope's). */
  MCPP_EVENTS_UNKNOWN_WEBHOOK: '@mcppipe/events',
  /** No pinned tool has this upstream and name; list the tools first (E4). */
  MCPP_EVENTS_UNKNOWN_TOOL: '@mcppipe/events',

  // ── @mcppipe/capture ──────────────────────────────────────────────────────────────
  /** A capture option is invalid: a ring bound (`MCPPIPE_CAPTURE_MAX_EXCHANGES`, `MCPPIPE_CAPTURE_MAX_BYTES`) is not a positive integer or the body cap (`MCPPIPE_CAPTURE_BODY_CAP_BYTES`) not a non-negative one (D3); the message names it. The gateway checks the variables at start: a value that is not a count or a size is `MCPP_CLI_USAGE` naming the variable and the value given; both exit 2. */
  MCPP_CAPTURE_INVALID_OPTIONS: '@mcppipe/capture',
  /** An edited replay request is not a JSON-RPC message (an object, or a non-empty batch); send `{"request": {…}}`. */
  MCPP_CAPTURE_INVALID_REQUEST: '@mcppipe/capture',

  // ── apps ──────────────────────────────────────────────────────────────────────────
  /** A command-line flag or argument is invalid; the message says which and how to fix it. */
  MCPP_CLI_USAGE: 'mcppipe',
  /** The HTTP listener could not bind (address in use, permission denied). */
  MCPP_CLI_LISTEN_FAILED: 'mcppipe',
  /** `PUBLIC_URL` is required when the gateway binds a non-loopback address. */
  MCPP_GW_PUBLIC_URL_REQUIRED: '@mcppipe/gateway',
} as const satisfies Record<string, string>;

/** Every stable mcppipe error code. */
export type McpPipeErrorCode = keyof typeof errorCodes;
