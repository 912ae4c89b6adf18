/**
 * A real v2 SDK OAuth client for gateway tests: an in-memory `OAuthClientProvider` (as a desktop agent
 * implements it) and the owner's browser steps (login, approval) against the authorization server.
 *
 * @module
 */
import { MemoryOAuthProvider } from '@mcppipe/test-utils';
import { expect } from 'vitest';

/** An in-memory OAuth client provider, as a desktop agent would implement it (client name `sdk-flow-test`). */
export class TestClientProvider extends MemoryOAuthProvider {
  constructor() {
    super('sdk-flow-test');
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
