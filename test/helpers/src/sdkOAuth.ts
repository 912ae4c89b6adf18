/**
 * A real v2 SDK OAuth client for tests: an in-memory `OAuthClientProvider` (as a desktop agent implements it) and
 * the owner's browser steps (login, approval) against the authorization server.
 *
 * @module
 */
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { expect } from 'vitest';

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

/** {@link MemoryOAuthProvider} registered as `sdk-flow-test`, keeping every token set it was given (`history`). */
export class TestClientProvider extends MemoryOAuthProvider {
  readonly history: StoredOAuthTokens[] = [];
  constructor() {
    super('sdk-flow-test');
  }
  override saveTokens(tokens: StoredOAuthTokens) {
    super.saveTokens(tokens);
    this.history.push(tokens);
  }
}

/**
 * Plays the owner's browser at the authorization server that `authorizationUrl` names: login form, approval
 * form; returns the callback URL.
 *
 * @param authorizationUrl - where the client sent the owner
 * @param password - the owner's password
 */
export async function ownerApproves(authorizationUrl: URL, password: string): Promise<URL> {
  const origin = authorizationUrl.origin;
  const field = (html: string, name: string) =>
    new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';
  const cookieOf = (res: Response) => (res.headers.get('set-cookie') ?? '').split(';')[0]!;
  const post = (path: string, cookie: string, body: Record<string, string>) =>
    fetch(`${origin}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin },
      body: new URLSearchParams(body).toString(),
    });
  const loginPage = await fetch(authorizationUrl, { redirect: 'manual' });
  expect(loginPage.status).toBe(200);
  const html = await loginPage.text();
  expect(html).toContain('sdk-flow-test');
  const login = await post('/authorize/login', cookieOf(loginPage), {
    csrf_token: field(html, 'csrf_token'),
    request_id: field(html, 'request_id'),
    password,
  });
  expect(login.status).toBe(303);
  const cookie = cookieOf(login);
  const consentPage = await fetch(login.headers.get('location')!, {
    redirect: 'manual',
    headers: { cookie },
  });
  const consentHtml = await consentPage.text();
  expect(consentHtml).toContain('<strong>127.0.0.1</strong>');
  const approve = await post('/authorize/consent', cookie, {
    csrf_token: field(consentHtml, 'csrf_token'),
    request_id: field(consentHtml, 'request_id'),
    decision: 'approve',
  });
  expect(approve.status).toBe(303);
  return new URL(approve.headers.get('location')!);
}
