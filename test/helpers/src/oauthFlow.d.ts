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
