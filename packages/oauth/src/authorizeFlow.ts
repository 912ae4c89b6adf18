import { isMcpPipeError } from '@mcppipe/errors';
import {
  authorizationResponseUrl,
  authorizeUrl,
  redirectHost,
  validateAuthorizationRequest,
  type AuthorizationRequest,
} from './authorizationRequest.js';
import { ADMIN_PRINCIPAL } from './browserState.js';
import type { BrowserSession, BrowserState, PendingRequest } from './browserState.js';
import { findClient } from './clients.js';
import type { CodeStore } from './codes.js';
import type { OAuthContext } from './context.js';
import type { OAuthErrorData } from './errors.js';
import { header, readCookie, type OAuthHttpRequest, type OAuthHttpResponse } from './http.js';
import type { LoginThrottle } from './loginThrottle.js';
import { consentPage, errorPage, loginPage, type ClientView } from './pages.js';
import type { PasswordVerifier } from './password.js';
import { safeEqual } from './secrets.js';

/** What the browser-facing endpoints need besides the context. */
export interface AuthorizeDeps {
  codes: CodeStore;
  browser: BrowserState;
  throttle: LoginThrottle;
  verifyPassword: PasswordVerifier;
  /** Resources owned by relay accounts (tunnels, T5): their login is the owner's password, never the admin's. */
  owners?: ResourceOwners | undefined;
}

/** Maps a resource to the relay account that owns it, and checks that account's password (T5). */
export interface ResourceOwners {
  /** The owner account of a (canonical) resource, or undefined for the gateway's own resources. */
  ownerOf(resource: string): string | undefined;
  /** Checks an account's password. */
  verifyPassword(account: string, password: string): Promise<boolean>;
}

/** Who must sign in to approve `resource`: its owner account, or the admin. */
function principalFor(deps: AuthorizeDeps, resource: string): string {
  return deps.owners?.ownerOf(resource) ?? ADMIN_PRINCIPAL;
}

function signedInAs(session: BrowserSession, principal: string): boolean {
  return session.authenticated && (session.principal ?? ADMIN_PRINCIPAL) === principal;
}

const BROWSER_SESSION_MAX_AGE_SEC = 12 * 3600;

function cookieName(ctx: OAuthContext): string {
  return ctx.settings.secureCookies ? '__Host-mcppipe-session' : 'mcppipe-session';
}

function sessionCookie(ctx: OAuthContext, session: BrowserSession): string {
  const secure = ctx.settings.secureCookies ? '; Secure' : '';
  return `${cookieName(ctx)}=${session.id}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${BROWSER_SESSION_MAX_AGE_SEC}${secure}`;
}

function view(r: AuthorizationRequest, owner?: string): ClientView {
  return {
    owner,
    clientId: r.client.client_id,
    clientName: r.client.client_name,
    redirectHost: redirectHost(r.redirectUri),
    redirectUri: r.redirectUri,
    resource: r.resource,
    scopes: r.scopes,
  };
}

function redirect(status: 302 | 303, location: string, cookies?: string[]): OAuthHttpResponse {
  return {
    status,
    headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' },
    ...(cookies ? { cookies } : {}),
  };
}

function hasGrant(ctx: OAuthContext, r: AuthorizationRequest): boolean {
  const g = Object.hasOwn(ctx.store.state.grants, r.client.client_id)
    ? ctx.store.state.grants[r.client.client_id]
    : undefined;
  return !!g && g.resources.includes(r.resource) && r.scopes.every((s) => g.scopes.includes(s));
}

function issueCodeRedirect(
  ctx: OAuthContext,
  deps: AuthorizeDeps,
  { r, status, cookies }: { r: AuthorizationRequest; status: 302 | 303; cookies?: string[] },
): OAuthHttpResponse {
  const code = deps.codes.issue({
    clientId: r.client.client_id,
    redirectUri: r.redirectUri,
    codeChallenge: r.codeChallenge,
    resource: r.resource,
    scopes: r.scopes,
  });
  return redirect(status, authorizationResponseUrl(ctx.issuer, r, { code }), cookies);
}

/**
 * `GET /authorize`: validates the request; an owner already signed in whose approval covers this client,
 * resource and scopes gets the code at once (302); otherwise the login or the approval page.
 *
 * @param ctx - the context
 * @param deps - codes, browser sessions, throttle, password check
 * @param req - the request
 * @returns the response
 */
export function handleAuthorize(
  ctx: OAuthContext,
  deps: AuthorizeDeps,
  req: OAuthHttpRequest,
): OAuthHttpResponse {
  let request: AuthorizationRequest;
  try {
    request = validateAuthorizationRequest(ctx, req.query);
  } catch (err) {
    if (!isMcpPipeError(err, 'MCPP_OAUTH_PROTOCOL')) throw err;
    return errorPage(400, (err.data as OAuthErrorData).error, err.message);
  }
  let session = deps.browser.session(readCookie(req, cookieName(ctx)));
  const cookies: string[] = [];
  if (!session) {
    session = deps.browser.createSession();
    cookies.push(sessionCookie(ctx, session));
  }
  const signedIn = signedInAs(session, principalFor(deps, request.resource));
  if (signedIn && hasGrant(ctx, request))
    return issueCodeRedirect(ctx, deps, { r: request, status: 302, cookies });
  const pending = deps.browser.addPending(session.id, request);
  const form = { csrf: session.csrf, requestId: pending.id, cookies };
  const shown = view(request, deps.owners?.ownerOf(request.resource));
  return signedIn ? consentPage(shown, form) : loginPage(shown, form);
}

type FormCheck =
  { ok: true; session: BrowserSession; pending: PendingRequest } | { ok: false; response: OAuthHttpResponse };

/** CSRF defence for the two forms: same-origin `Origin`/`Sec-Fetch-Site`, session cookie, synchronizer token. */
function checkForm(ctx: OAuthContext, deps: AuthorizeDeps, req: OAuthHttpRequest): FormCheck {
  const forbidden = (why: string): FormCheck => ({
    ok: false,
    response: errorPage(403, 'access_denied', why),
  });
  const origin = header(req, 'origin');
  if (origin !== undefined && origin !== new URL(ctx.issuer).origin)
    return forbidden('The form was posted from another site.');
  const site = header(req, 'sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none')
    return forbidden('The form was posted from another site.');
  const session = deps.browser.session(readCookie(req, cookieName(ctx)));
  if (!session) return forbidden('Your sign-in session expired or cookies are blocked.');
  const csrf = req.form?.['csrf_token'];
  if (typeof csrf !== 'string' || !safeEqual(csrf, session.csrf))
    return forbidden('The form is stale or was not issued to this browser.');
  const id = req.form?.['request_id'];
  const pending = deps.browser.pendingFor(typeof id === 'string' ? id : undefined, session.id);
  if (!pending)
    return { ok: false, response: errorPage(400, 'invalid_request', 'This authorization request expired.') };
  if (!findClient(ctx, pending.request.client.client_id))
    return {
      ok: false,
      response: errorPage(400, 'invalid_client', 'The application is no longer registered.'),
    };
  return { ok: true, session, pending };
}

/**
 * `POST /authorize/login`: checks CSRF, the throttle (429 + `Retry-After` before any bcrypt work), then
 * the password. Success replaces the session and answers 303 back to `/authorize`.
 *
 * @param ctx - the context
 * @param deps - codes, browser sessions, throttle, password check
 * @param req - the request
 * @returns the response
 */
export async function handleLogin(
  ctx: OAuthContext,
  deps: AuthorizeDeps,
  req: OAuthHttpRequest,
): Promise<OAuthHttpResponse> {
  const check = checkForm(ctx, deps, req);
  if (!check.ok) return check.response;
  const { session, pending } = check;
  const decision = deps.throttle.begin(req.ip);
  if (!decision.allowed) {
    ctx.emit({ type: 'login_throttled', ip: req.ip, retryAfterSec: decision.retryAfterSec });
    const page = errorPage(
      429,
      'too_many_attempts',
      `Too many failed sign-ins. Try again in ${decision.retryAfterSec} s.`,
    );
    return { ...page, headers: { ...page.headers, 'retry-after': String(decision.retryAfterSec) } };
  }
  const password = req.form?.['password'];
  const principal = principalFor(deps, pending.request.resource);
  let ok = false;
  try {
    ok =
      typeof password === 'string' &&
      (principal === ADMIN_PRINCIPAL
        ? await deps.verifyPassword(password)
        : await deps.owners!.verifyPassword(principal, password));
  } finally {
    decision.finish(ok);
  }
  if (!ok) {
    ctx.logger.warn({ ip: req.ip }, 'failed owner sign-in');
    ctx.emit({ type: 'login_failed', ip: req.ip });
    const owner = principal === ADMIN_PRINCIPAL ? undefined : principal;
    return loginPage(view(pending.request, owner), {
      csrf: session.csrf,
      requestId: pending.id,
      error: owner === undefined ? 'Wrong password.' : `Wrong password for account ${owner}.`,
      status: 401,
    });
  }
  ctx.logger.info({ ip: req.ip }, 'owner signed in');
  ctx.emit({ type: 'login_succeeded', ip: req.ip });
  const fresh = deps.browser.authenticate(session, principal);
  deps.browser.finish(pending.id);
  return redirect(303, authorizeUrl(ctx.issuer, pending.request), [sessionCookie(ctx, fresh)]);
}

/**
 * `POST /authorize/consent`: `decision=approve` stores the grant (client, resource, scopes) and redirects
 * with a code; `decision=deny` redirects with `error=access_denied`. Both 303, with `state` and `iss`.
 *
 * @param ctx - the context
 * @param deps - codes, browser sessions, throttle, password check
 * @param req - the request
 * @returns the response
 */
export async function handleConsent(
  ctx: OAuthContext,
  deps: AuthorizeDeps,
  req: OAuthHttpRequest,
): Promise<OAuthHttpResponse> {
  const check = checkForm(ctx, deps, req);
  if (!check.ok) return check.response;
  const { session, pending } = check;
  const r = pending.request;
  if (!signedInAs(session, principalFor(deps, r.resource)))
    return errorPage(403, 'access_denied', 'Sign in first (as the owner of this resource).');
  const choice = req.form?.['decision'];
  if (choice === 'deny') {
    deps.browser.finish(pending.id);
    ctx.logger.info({ clientId: r.client.client_id }, 'owner denied a client');
    return redirect(303, authorizationResponseUrl(ctx.issuer, r, { error: 'access_denied' }));
  }
  if (choice !== 'approve') return errorPage(400, 'invalid_request', 'decision must be approve or deny.');
  deps.browser.finish(pending.id);
  const grants = ctx.store.state.grants;
  const g = Object.hasOwn(grants, r.client.client_id) ? grants[r.client.client_id] : undefined;
  grants[r.client.client_id] = {
    clientId: r.client.client_id,
    resources: [...new Set([...(g?.resources ?? []), r.resource])],
    scopes: [...new Set([...(g?.scopes ?? []), ...r.scopes])],
    approvedAt: ctx.clock(),
  };
  try {
    await ctx.store.persist();
  } catch (err) {
    if (!isMcpPipeError(err, 'MCPP_OAUTH_STATE_WRITE_FAILED')) throw err;
    return errorPage(503, 'temporarily_unavailable', 'The approval could not be saved. Try again.');
  }
  ctx.logger.info({ clientId: r.client.client_id, resource: r.resource }, 'owner approved a client');
  ctx.emit({ type: 'client_approved', clientId: r.client.client_id, resource: r.resource });
  return issueCodeRedirect(ctx, deps, { r, status: 303 });
}
