import { createHash } from 'node:crypto';
import { OAUTH_PATHS } from './metadata.js';
import type { OAuthHttpResponse } from './http.js';

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#222}' +
  'h1{font-size:1.4rem}dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem}dt{font-weight:600}' +
  'dd{margin:0;word-break:break-all}.err{color:#a00}button{font-size:1rem;margin-right:.5rem;padding:.4rem 1rem}' +
  'input[type=password]{font-size:1rem;width:100%;padding:.4rem;box-sizing:border-box;margin:.5rem 0}';
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/**
 * Headers of every HTML page: no framing (CSP `frame-ancestors 'none'` and `X-Frame-Options: DENY`), no
 * scripts, no external loads, no caching, no cross-origin referrer (the page URL holds the authorization request; same-origin keeps the
 * `Origin` header on the form POSTs).
 * `form-action` is left out on purpose: browsers apply it to the redirect that follows a form POST, which
 * would block the 303 to the client's redirect URI.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; base-uri 'none'; frame-ancestors 'none'`,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
};

/**
 * Escapes text for HTML element content and double-quoted attributes.
 *
 * @param s - untrusted text
 * @returns safe HTML
 */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page({
  status,
  title,
  body,
  cookies,
}: {
  status: number;
  title: string;
  body: string;
  cookies?: string[] | undefined;
}): OAuthHttpResponse {
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="same-origin">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title>` +
    `<style>${STYLE}</style></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
  return { status, headers: { ...PAGE_HEADERS }, body: html, ...(cookies ? { cookies } : {}) };
}

function hidden(csrf: string, requestId: string): string {
  return `<input type="hidden" name="csrf_token" value="${escapeHtml(csrf)}"><input type="hidden" name="request_id" value="${escapeHtml(requestId)}">`;
}

/** What the login and approval pages show about the client. */
export interface ClientView {
  clientId: string;
  clientName: string | undefined;
  redirectHost: string;
  redirectUri: string;
  resource: string;
  scopes: string[];
  /** The account whose password approves the request (a relay tunnel's owner, T5); undefined: the gateway's admin. */
  owner?: string | undefined;
}

function clientList(v: ClientView): string {
  const name = v.clientName
    ? `${escapeHtml(v.clientName)} <small>(name chosen by the client)</small>`
    : '<em>unnamed client</em>';
  return (
    `<dl><dt>Client</dt><dd>${name}</dd><dt>Client ID</dt><dd>${escapeHtml(v.clientId)}</dd>` +
    `<dt>Redirects to</dt><dd><strong>${escapeHtml(v.redirectHost)}</strong></dd>` +
    `<dt>Redirect URI</dt><dd>${escapeHtml(v.redirectUri)}</dd>` +
    `<dt>Access to</dt><dd>${escapeHtml(v.resource)}</dd><dt>Scopes</dt><dd>${escapeHtml(v.scopes.join(' '))}</dd></dl>`
  );
}

/**
 * The login page: a plain form (no JavaScript) posting `password`, `csrf_token` and `request_id`.
 *
 * @param v - the client
 * @param form - CSRF token, request id, an optional error and status
 * @returns the response
 */
export function loginPage(
  v: ClientView,
  form: { csrf: string; requestId: string; error?: string; status?: number; cookies?: string[] },
): OAuthHttpResponse {
  const err = form.error ? `<p class="err" role="alert">${escapeHtml(form.error)}</p>` : '';
  return page({
    status: form.status ?? 200,
    title: 'Sign in to the mcppipe gateway',
    body:
      (v.owner === undefined
        ? '<p>An application asks to connect to this gateway. Sign in as the owner to review it.</p>'
        : `<p>An application asks to connect to a tunnel of account <strong>${escapeHtml(v.owner)}</strong>. Sign in with that account's password to review it.</p>`) +
      `${clientList(v)}${err}` +
      `<form method="post" action="${OAUTH_PATHS.login}">${hidden(form.csrf, form.requestId)}` +
      `<label for="password">${v.owner === undefined ? 'Owner password' : `Password of account ${escapeHtml(v.owner)}`}</label><input type="password" id="password" name="password" autocomplete="current-password" required autofocus>` +
      `<button type="submit">Sign in</button></form>`,
    cookies: form.cookies,
  });
}

/**
 * The approval page: names the client and the host it redirects to; `decision` is `approve` or `deny`.
 *
 * @param v - the client
 * @param form - CSRF token and request id
 * @returns the response
 */
export function consentPage(
  v: ClientView,
  form: { csrf: string; requestId: string; cookies?: string[] },
): OAuthHttpResponse {
  return page({
    status: 200,
    title: 'Allow this application?',
    body:
      `<p>This application has not been approved yet. If you did not just start connecting it, deny.</p>${clientList(v)}` +
      `<form method="post" action="${OAUTH_PATHS.consent}">${hidden(form.csrf, form.requestId)}` +
      `<button type="submit" name="decision" value="approve">Approve</button>` +
      `<button type="submit" name="decision" value="deny">Deny</button></form>`,
    cookies: form.cookies,
  });
}

/**
 * An error page (never a redirect: the request could not be trusted enough to send the browser anywhere).
 *
 * @param status - HTTP status (400, 403, 429…)
 * @param error - an OAuth error code or short title
 * @param description - what went wrong, in words
 * @returns the response
 */
export function errorPage(status: number, error: string, description: string): OAuthHttpResponse {
  return page({
    status,
    title: 'Authorization failed',
    body: `<p><code>${escapeHtml(error)}</code></p><p>${escapeHtml(description)}</p><p>Return to your application and start again.</p>`,
  });
}
