import { findClient } from './clients.js';
import { parseRequestedScopes, resolveResource, type OAuthContext } from './context.js';
import { oauthError } from './errors.js';
import { isPkceValue, param, requiredParam, type RawParams } from './params.js';
import { matchRedirectUri } from './redirectUri.js';
import { OAUTH_PATHS } from './metadata.js';
import type { ClientRecord } from './state.js';

/** A validated authorization request. */
export interface AuthorizationRequest {
  client: ClientRecord;
  /** Exactly as sent (or the single registered one when omitted). */
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  scopes: string[];
  state: string | undefined;
}

/**
 * Validates an authorization request (OAuth 2.1 §4.1.1, RFC 7636, RFC 8707). The client and the redirect
 * URI are checked first; any failure is shown as an error page, never redirected (RFC 9700 §4.11.2: an
 * unauthenticated redirect to a dynamically registered URI would be an open redirector).
 * PKCE with `S256` is required; `plain` and a missing method are refused.
 *
 * @param ctx - the context
 * @param query - the query parameters
 * @returns the request
 * @throws McpPipeError `MCPP_OAUTH_PROTOCOL` (`invalid_request`, `invalid_client`, `unsupported_response_type`, `invalid_target`, `unauthorized_client`)
 */
export function validateAuthorizationRequest(
  ctx: OAuthContext,
  query: RawParams | undefined,
): AuthorizationRequest {
  const clientId = requiredParam(query, 'client_id');
  const client = findClient(ctx, clientId);
  if (!client)
    throw oauthError('invalid_client', 'unknown client_id: the application must register again', 400);
  const presented = param(query, 'redirect_uri');
  let redirectUri: string;
  if (presented === undefined) {
    const only = client.redirect_uris.length === 1 ? client.redirect_uris[0] : undefined;
    if (only === undefined) throw oauthError('invalid_request', 'redirect_uri is required');
    redirectUri = only;
  } else if (matchRedirectUri(client.redirect_uris, presented)) {
    redirectUri = presented;
  } else {
    throw oauthError('invalid_request', 'redirect_uri is not registered for this client');
  }
  if (requiredParam(query, 'response_type') !== 'code')
    throw oauthError('unsupported_response_type', 'only response_type=code is supported');
  if (!client.grant_types.includes('authorization_code'))
    throw oauthError('unauthorized_client', 'the client may not use the authorization code grant');
  const codeChallenge = param(query, 'code_challenge');
  if (codeChallenge === undefined)
    throw oauthError(
      'invalid_request',
      'PKCE is required: send code_challenge with code_challenge_method=S256',
    );
  if (param(query, 'code_challenge_method') !== 'S256')
    throw oauthError('invalid_request', 'code_challenge_method must be S256');
  if (!isPkceValue(codeChallenge)) throw oauthError('invalid_request', 'code_challenge is malformed');
  const resource = resolveResource(ctx, param(query, 'resource'));
  return {
    client,
    redirectUri,
    codeChallenge,
    resource,
    scopes: parseRequestedScopes(param(query, 'scope')),
    state: param(query, 'state'),
  };
}

/**
 * Builds the redirect back to the client with the code or an error, plus `state` and `iss` (RFC 9207).
 *
 * @param issuer - the issuer
 * @param request - the validated request
 * @param result - `{ code }` or `{ error }`
 * @returns the URL to redirect to
 */
export function authorizationResponseUrl(
  issuer: string,
  request: AuthorizationRequest,
  result: { code: string } | { error: string },
): string {
  const url = new URL(request.redirectUri);
  if ('code' in result) url.searchParams.set('code', result.code);
  else url.searchParams.set('error', result.error);
  if (request.state !== undefined) url.searchParams.set('state', request.state);
  url.searchParams.set('iss', issuer);
  return url.href;
}

/**
 * The host to show on the approval page for a redirect URI (the scheme too for private-use schemes).
 *
 * @param redirectUri - the URI
 * @returns e.g. `claude.ai`, `127.0.0.1`, `cursor://anysphere.cursor-mcp`
 */
export function redirectHost(redirectUri: string): string {
  const url = new URL(redirectUri);
  if (url.protocol === 'https:' || url.protocol === 'http:') return url.hostname;
  return `${url.protocol}//${url.host}`;
}

/**
 * The `/authorize` URL that repeats a validated request (used after login, to continue the flow).
 *
 * @param issuer - the issuer
 * @param r - the validated request
 * @returns the URL
 */
export function authorizeUrl(issuer: string, r: AuthorizationRequest): string {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: r.client.client_id,
    redirect_uri: r.redirectUri,
    code_challenge: r.codeChallenge,
    code_challenge_method: 'S256',
    resource: r.resource,
    scope: r.scopes.join(' '),
  });
  if (r.state !== undefined) q.set('state', r.state);
  return `${issuer}${OAUTH_PATHS.authorize}?${q.toString()}`;
}
