import { SUPPORTED_SCOPES } from './defaults.js';
import { oauthError } from './errors.js';
import type { SigningKey } from './keys.js';
import type { OAuthEventListener } from './events.js';
import type { Logger } from './logger.js';
import { normalizeResource } from './resource.js';
import type { SharedOAuthState } from './sharedState.js';
import type { StateStore } from './stateStore.js';

/** Settings after defaults and validation. */
export interface ResolvedSettings {
  accessTokenTtlSec: number;
  codeTtlSec: number;
  refreshGraceMs: number;
  refreshIdleTtlSec: number;
  refreshMaxTtlSec: number;
  allowedRedirectSchemes: readonly string[];
  /** The resource used when a request names none (`<publicUrl>/hub`). */
  defaultResource: string;
  /** Whether cookies get `Secure` and the `__Host-` prefix (false only for plain-http loopback). */
  secureCookies: boolean;
  /** Most tokens in the verified-token cache (0: disabled). */
  verifiedTokenCacheSize: number;
  /** Longest a verified-token cache entry is trusted, in ms. */
  verifiedTokenCacheTtlMs: number;
}

/** What the parts of the provider share. */
export interface OAuthContext {
  readonly issuer: string;
  readonly store: StateStore;
  /**
   * Many nodes (S1): clients, families and revocations in the shared store; `store.state` then mirrors them.
   * Undefined on one node (everything in `state.json`).
   */
  readonly shared?: SharedOAuthState | undefined;
  readonly key: SigningKey;
  readonly clock: () => number;
  readonly logger: Logger;
  readonly settings: ResolvedSettings;
  /** Reports an event (metrics, audit). */
  readonly emit: OAuthEventListener;
  /** The gateway's current resources, canonical form (re-read on every call: hot reload changes them). */
  resources(): ReadonlySet<string>;
}

/**
 * Resolves a request's `resource` parameter: absent → the default resource; otherwise normalized and
 * required to be one of the gateway's resources.
 *
 * @param ctx - the context
 * @param raw - the parameter value
 * @returns the canonical resource
 * @throws McpPipeError `MCPP_OAUTH_PROTOCOL` `invalid_target`
 */
export function resolveResource(ctx: OAuthContext, raw: string | undefined): string {
  const wanted = raw === undefined ? ctx.settings.defaultResource : normalizeResource(raw);
  if (wanted === undefined || !ctx.resources().has(wanted)) {
    throw oauthError('invalid_target', 'the resource is not served by this gateway');
  }
  return wanted;
}

/**
 * Parses a requested `scope` at `/authorize`: unknown scopes are ignored (RFC 6749 §3.3 lets the server
 * grant less); nothing known means the default scope.
 *
 * @param raw - the `scope` parameter
 * @returns the scopes to request approval for
 */
export function parseRequestedScopes(raw: string | undefined): string[] {
  const known = new Set<string>(SUPPORTED_SCOPES);
  const asked = (raw ?? '').split(' ').filter((s) => known.has(s));
  return asked.length > 0 ? [...new Set(asked)] : [...SUPPORTED_SCOPES];
}
