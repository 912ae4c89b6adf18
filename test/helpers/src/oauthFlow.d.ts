/**
 * Obtains an access token for one endpoint the way an agent does: dynamic registration, an authorization request
 * with PKCE, the owner's login and approval, and the code exchange (implementation: oauthFlow.js).
 *
 * @param base - the gateway origin
 * @param path - the endpoint path the token is for (`/hub`, `/servers/x/mcp`)
 * @param options - the owner's password; the client's name
 * @throws Error naming the step that did not answer as expected
 */
export function obtainToken(
  base: string,
  path: string,
  options: { password: string; clientName?: string },
): Promise<{ token: string; clientId: string }>;

/**
 * Plays the owner's browser at the authorization server an authorization URL names: the login form with the
 * owner's password, then the approval form when it is shown (implementation: oauthFlow.js).
 *
 * @param authorizationUrl - the `/authorize?…` URL the client sent the owner to
 * @param password - the owner account's password
 * @returns the redirect back to the client (`code`, `state`, `iss` in its query)
 * @throws Error naming the step that did not answer as expected (`login: 401 …`)
 */
export function approveAsOwner(authorizationUrl: URL | string, password: string): Promise<URL>;
