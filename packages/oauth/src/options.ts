import type { Collection, Store } from '@mcppipe/store';
import * as D from './defaults.js';
import { invalidOptions } from './errors.js';
import type { ResourceOwners } from './authorizeFlow.js';
import type { OAuthEventListener } from './events.js';
import type { Logger } from './logger.js';
import { normalizeResource } from './resource.js';
import type { ResolvedSettings } from './context.js';

/** Options of {@link createOAuthProvider}. */
export interface OAuthProviderOptions {
  /** Directory for `jwt-key.pem` and `state.json`; created with mode 0700 if missing. */
  dataDir: string;
  /**
   * The gateway's public origin, e.g. `https://gw.example` (the issuer; every URL in metadata is built
   * from it, never from `Host` or `X-Forwarded-*`). https, or http on a loopback host for development; no path.
   */
  publicUrl: string;
  /**
   * The protected resources, re-read on every use (hot reload changes them): `<publicUrl>/hub`,
   * `<publicUrl>/mcp` and each `<publicUrl>/servers/<name>/mcp`.
   */
  resources: () => readonly string[];
  /** The owner password in clear (`MCPPIPE_ADMIN_PASSWORD`). Exactly one of this and `adminPasswordHash`. */
  adminPassword?: string | undefined;
  /** A bcrypt hash of the owner password (`MCPPIPE_ADMIN_PASSWORD_HASH`, from `hashPassword`). */
  adminPasswordHash?: string | undefined;
  /**
   * Resources owned by relay accounts (tunnels, DESIGN.md T5): approving one needs the owner account's
   * password; the admin password does not approve them, and an account's password approves only its own.
   * Default: none (every resource is the admin's).
   */
  owners?: ResourceOwners;
  /**
   * Many nodes (S1): the shared store's `signing` collection; the signing key lives there instead of
   * `jwt-key.pem`, so every node signs with one key and serves one JWKS. Default: the key file.
   */
  sharedKeys?: Collection<string> | undefined;
  /**
   * Many nodes (S1): the shared store (a Redis store; a file store is ignored). Registered clients, refresh-token
   * families and access-token revocation markers then live there, so a client registered on one node works on
   * every node, a refresh token issued on one node refreshes on another, and the rotation is atomic across nodes
   * (G2). Approvals stay in this node's `state.json`. The caller closes the store. Default: everything in
   * `state.json`.
   */
  sharedStore?: Store | undefined;
  /** Epoch milliseconds. Default: `Date.now`. */
  clock?: () => number;
  /** pino-compatible logger. Default: silent. Secrets are never logged. */
  logger?: Logger;
  /** Called for each `OAuthEvent` (for metrics such as a corrupt-state counter). Default: none. */
  onEvent?: OAuthEventListener;
  /** Access-token lifetime in seconds. Default 3600; 60–86400. */
  accessTokenTtlSec?: number;
  /** Authorization-code lifetime in seconds. Default 120; 60–300. */
  codeTtlSec?: number;
  /** Refresh grace window in milliseconds (see README). Default 5000; 0–60000. */
  refreshGraceMs?: number;
  /** A refresh-token family unused this long expires. Default 30 days (in seconds). */
  refreshIdleTtlSec?: number;
  /** A refresh-token family expires this long after its login. Default 90 days (in seconds). */
  refreshMaxTtlSec?: number;
  /** Private-use redirect-URI schemes allowed at registration. Default `['cursor']`. */
  allowedRedirectSchemes?: readonly string[];
  /** The resource for requests that name none. Default `<publicUrl>/hub`. */
  defaultResource?: string;
  /**
   * Most access tokens whose signature and claim checks are remembered (keyed by the token's SHA-256;
   * revocation, audience and expiry are still checked on every use). Default 10000; 0 disables; at most 1000000.
   */
  verifiedTokenCacheSize?: number;
  /** Longest a remembered verification is trusted, in ms (never past the token's `exp`). Default 60000; 1000–3600000. */
  verifiedTokenCacheTtlMs?: number;
}

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

function bounded(name: string, v: number, [min, max]: readonly [number, number]): number {
  if (!Number.isInteger(v) || v < min || v > max)
    throw invalidOptions(`${name} must be an integer from ${min} to ${max} (got ${String(v)})`);
  return v;
}

/**
 * Validates the options (at construction, not at first use) and resolves defaults.
 *
 * @param options - the options
 * @returns the issuer and the settings
 * @throws McpPipeError `MCPP_OAUTH_INVALID_OPTIONS`
 */
export function resolveOptions(options: OAuthProviderOptions): {
  issuer: string;
  settings: ResolvedSettings;
} {
  let url: URL;
  try {
    url = new URL(options.publicUrl);
  } catch {
    throw invalidOptions(`publicUrl is not a URL: ${options.publicUrl}`);
  }
  if (url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
    throw invalidOptions(
      'publicUrl must be an origin without path, query or credentials, e.g. https://gw.example',
    );
  }
  const loopback = url.protocol === 'http:' && LOOPBACK.has(url.hostname);
  if (url.protocol !== 'https:' && !loopback)
    throw invalidOptions('publicUrl must use https (plain http only on 127.0.0.1, [::1] or localhost)');
  const issuer = url.origin;
  if (typeof options.resources !== 'function')
    throw invalidOptions('resources must be a function returning the resource URLs');
  const defaultResource = normalizeResource(options.defaultResource ?? `${issuer}/hub`);
  if (!defaultResource) throw invalidOptions('defaultResource is not a valid resource URL');
  const schemes = options.allowedRedirectSchemes ?? D.DEFAULT_ALLOWED_REDIRECT_SCHEMES;
  for (const s of schemes) {
    if (
      !/^[a-z][a-z0-9+.-]*$/.test(s) ||
      ['http', 'https', 'javascript', 'data', 'file', 'vbscript', 'blob', 'about'].includes(s)
    ) {
      throw invalidOptions(`allowedRedirectSchemes: ${s} is not a private-use scheme`);
    }
  }
  return {
    issuer,
    settings: {
      accessTokenTtlSec: bounded(
        'accessTokenTtlSec',
        options.accessTokenTtlSec ?? D.DEFAULT_ACCESS_TOKEN_TTL_SEC,
        [60, 86_400],
      ),
      codeTtlSec: bounded('codeTtlSec', options.codeTtlSec ?? D.DEFAULT_CODE_TTL_SEC, D.CODE_TTL_BOUNDS_SEC),
      refreshGraceMs: bounded('refreshGraceMs', options.refreshGraceMs ?? D.DEFAULT_REFRESH_GRACE_MS, [
        0,
        D.MAX_REFRESH_GRACE_MS,
      ]),
      refreshIdleTtlSec: bounded(
        'refreshIdleTtlSec',
        options.refreshIdleTtlSec ?? D.DEFAULT_REFRESH_IDLE_TTL_SEC,
        [3600, 365 * 86_400],
      ),
      refreshMaxTtlSec: bounded(
        'refreshMaxTtlSec',
        options.refreshMaxTtlSec ?? D.DEFAULT_REFRESH_MAX_TTL_SEC,
        [3600, 3 * 365 * 86_400],
      ),
      allowedRedirectSchemes: [...schemes],
      defaultResource,
      verifiedTokenCacheSize: bounded(
        'verifiedTokenCacheSize',
        options.verifiedTokenCacheSize ?? D.DEFAULT_VERIFIED_TOKEN_CACHE_SIZE,
        [0, 1_000_000],
      ),
      verifiedTokenCacheTtlMs: bounded(
        'verifiedTokenCacheTtlMs',
        options.verifiedTokenCacheTtlMs ?? D.DEFAULT_VERIFIED_TOKEN_CACHE_TTL_MS,
        [1000, 3_600_000],
      ),
      secureCookies: url.protocol === 'https:',
    },
  };
}
