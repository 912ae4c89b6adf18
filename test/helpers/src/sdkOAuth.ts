import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';

/**
 * An in-memory `OAuthClientProvider` for the v2 SDK client, as a desktop agent implements it: dynamic registration
 * with a loopback redirect, PKCE verifier, discovery state and tokens kept in fields. `redirectToAuthorization`
 * only records the URL; the test plays the owner's browser with `approveAsOwner` (`@mcppipe/test-utils/oauth-flow`)
 * and hands the callback to the transport's `finishAuth`.
 */
export class MemoryOAuthProvider implements OAuthClientProvider {
  readonly redirectUrl = 'http://127.0.0.1:53682/callback';
  info: StoredOAuthClientInformation | undefined;
  current: StoredOAuthTokens | undefined;
  /** Where the SDK last sent the owner (`/authorize?…`). */
  authorizationUrl: URL | undefined;
  #verifier = '';
  #discovery: OAuthDiscoveryState | undefined;

  /** @param clientName - the `client_name` registered (shown on the consent page) */
  constructor(readonly clientName = 'mcppipe e2e agent') {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.clientName,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.info = info;
  }
  tokens() {
    return this.current;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.current = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.#verifier = v;
  }
  codeVerifier() {
    return this.#verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.#discovery = state;
  }
  discoveryState() {
    return this.#discovery;
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'tokens') this.current = undefined;
    if (scope === 'all' || scope === 'client') this.info = undefined;
    if (scope === 'all' || scope === 'verifier') this.#verifier = '';
    if (scope === 'all' || scope === 'discovery') this.#discovery = undefined;
  }
}
