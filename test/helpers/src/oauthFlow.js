// The OAuth flow an agent runs against the gateway, in plain JavaScript so that both the e2e tests and the
// benchmarks (plain Node, no TypeScript) use this one copy. Types: oauthFlow.d.ts.
import { createHash, randomBytes } from 'node:crypto';

const REDIRECT_URI = 'http://127.0.0.1:53682/callback';
const field = (html, name) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';
const cookieOf = (res) => (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';

/**
 * Obtains an access token for one endpoint the way an agent does: dynamic registration, an authorization request
 * with PKCE, the owner's login and approval, and the code exchange.
 *
 * @param {string} base - the gateway origin
 * @param {string} path - the endpoint path the token is for (`/hub`, `/servers/x/mcp`)
 * @param {{ password: string, clientName?: string }} options - the owner's password; the client's name
 * @returns {Promise<{ token: string, clientId: string }>}
 * @throws Error naming the step that did not answer as expected
 */
export async function obtainToken(base, path, { password, clientName = 'mcppipe test agent' }) {
  const reg = await fetch(`${base}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: clientName,
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    }),
  });
  if (reg.status !== 201) throw new Error(`register: ${reg.status} ${await reg.text()}`);
  const clientId = (await reg.json()).client_id;
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const resource = `${base}${path}`;
  const authorize = new URL(`${base}/authorize`);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource,
    state: 's1',
  })) {
    authorize.searchParams.set(k, v);
  }
  const location = await approveAsOwner(authorize, password);
  const code = location.searchParams.get('code');
  if (!code) throw new Error(`no authorization code (location ${location.href})`);
  const tokenRes = await fetch(`${base}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      client_id: clientId,
      code_verifier: verifier,
      resource,
    }).toString(),
  });
  if (tokenRes.status !== 200) throw new Error(`token: ${tokenRes.status} ${await tokenRes.text()}`);
  return { token: (await tokenRes.json()).access_token, clientId };
}

/**
 * Plays the owner's browser at the authorization server an authorization URL names (what an agent opens): the
 * login form with the owner's password, then the approval form when it is shown.
 *
 * @param {URL | string} authorizationUrl - the `/authorize?…` URL the client sent the owner to
 * @param {string} password - the owner account's password
 * @returns {Promise<URL>} the redirect back to the client (`code`, `state`, `iss` in its query)
 * @throws Error naming the step that did not answer as expected (`login: 401 …`)
 */
export async function approveAsOwner(authorizationUrl, password) {
  const origin = new URL(authorizationUrl).origin;
  const post = (p, cookie, body) =>
    fetch(`${origin}${p}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin },
      body: new URLSearchParams(body).toString(),
    });
  const loginPage = await fetch(authorizationUrl, { redirect: 'manual' });
  const loginHtml = await loginPage.text();
  const login = await post('/authorize/login', cookieOf(loginPage), {
    csrf_token: field(loginHtml, 'csrf_token'),
    request_id: field(loginHtml, 'request_id'),
    password,
  });
  if (login.status !== 303) throw new Error(`login: ${login.status} ${await login.text()}`);
  const cookie = cookieOf(login);
  const consentPage = await fetch(login.headers.get('location') ?? '', {
    redirect: 'manual',
    headers: { cookie },
  });
  let location = consentPage.headers.get('location');
  if (consentPage.status === 200) {
    const html = await consentPage.text();
    const consent = await post('/authorize/consent', cookie, {
      csrf_token: field(html, 'csrf_token'),
      request_id: field(html, 'request_id'),
      decision: 'approve',
    });
    location = consent.headers.get('location');
  }
  if (!location) throw new Error(`consent: no redirect (status ${consentPage.status})`);
  return new URL(location);
}
