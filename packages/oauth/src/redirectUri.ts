/**
 * Redirect-URI rules (OAuth 2.1 "Redirect URI Registration", RFC 9700 §2.1/§4.1.3, MCP "Open Redirection"):
 * https, or plain http on a loopback host; private-use schemes only when allow-listed; never fragments,
 * userinfo, whitespace, or the dangerous schemes. Matching is exact string comparison, except that the port
 * of a loopback `http` redirect is ignored.
 *
 * @module
 */

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
const MAX_REDIRECT_URI_LENGTH = 2000;
const FORBIDDEN_SCHEMES = new Set([
  'javascript:',
  'data:',
  'file:',
  'vbscript:',
  'blob:',
  'about:',
  'ftp:',
  'ws:',
  'wss:',
]);

/** The outcome of {@link checkRedirectUri}. */
export type RedirectUriCheck = { ok: true } | { ok: false; reason: string };

/**
 * Checks one redirect URI offered at registration.
 *
 * @param raw - the URI as registered
 * @param allowedSchemes - private-use schemes (without `:`) that are allowed, e.g. `['cursor']`
 * @returns ok, or why it is refused
 * @example
 * ```ts
 * checkRedirectUri('http://127.0.0.1:33418/', ['cursor']); // { ok: true }
 * checkRedirectUri('javascript:alert(1)', ['cursor']); // { ok: false, reason: 'the javascript: scheme is not allowed' }
 * ```
 */
export function checkRedirectUri(raw: string, allowedSchemes: readonly string[]): RedirectUriCheck {
  if (raw.length === 0 || raw.length > MAX_REDIRECT_URI_LENGTH)
    return { ok: false, reason: 'empty or too long' };
  // eslint-disable-next-line no-control-regex
  if (/[\s\u0000-\u001f\u007f\\]/.test(raw))
    return { ok: false, reason: 'contains whitespace, control characters or a backslash' };
  if (raw.includes('#')) return { ok: false, reason: 'contains a fragment' };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'not an absolute URI' };
  }
  if (url.username !== '' || url.password !== '' || authorityOf(raw).includes('@')) {
    return { ok: false, reason: 'contains userinfo' };
  }
  const scheme = url.protocol;
  if (FORBIDDEN_SCHEMES.has(scheme)) return { ok: false, reason: `the ${scheme} scheme is not allowed` };
  if (scheme === 'https:') return url.hostname ? { ok: true } : { ok: false, reason: 'https without a host' };
  if (scheme === 'http:') {
    return LOOPBACK_HOSTS.has(url.hostname)
      ? { ok: true }
      : { ok: false, reason: 'plain http is only allowed for 127.0.0.1, [::1] and localhost' };
  }
  if (allowedSchemes.includes(scheme.slice(0, -1))) return { ok: true };
  return { ok: false, reason: `the ${scheme} scheme is not on the allow-list` };
}

function authorityOf(raw: string): string {
  const m = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/([^/?#]*)/.exec(raw);
  return m?.[1] ?? '';
}

function isLoopbackHttp(url: URL): boolean {
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

/**
 * Finds the registered redirect URI a request's `redirect_uri` matches: exactly, or for loopback `http`
 * with only the port differing (OAuth 2.1 "Loopback Interface Redirection").
 *
 * @param registered - the client's registered redirect URIs
 * @param presented - the `redirect_uri` of the request
 * @returns whether it matches one of them
 * @example
 * ```ts
 * matchRedirectUri(['http://127.0.0.1/cb'], 'http://127.0.0.1:53124/cb'); // true
 * matchRedirectUri(['https://claude.ai/cb'], 'https://claude.ai/cb/'); // false
 * ```
 */
export function matchRedirectUri(registered: readonly string[], presented: string): boolean {
  if (registered.includes(presented)) return true;
  if (presented.includes('#') || /[\s\\]/.test(presented)) return false;
  let p: URL;
  try {
    p = new URL(presented);
  } catch {
    return false;
  }
  if (!isLoopbackHttp(p) || p.username !== '' || p.password !== '' || authorityOf(presented).includes('@'))
    return false;
  return registered.some((r) => {
    let u: URL;
    try {
      u = new URL(r);
    } catch {
      return false;
    }
    return (
      isLoopbackHttp(u) &&
      u.hostname === p.hostname &&
      u.pathname === p.pathname &&
      u.search === p.search &&
      stripPort(r) === stripPort(presented)
    );
  });
}

/** The URI with the port of its authority removed, compared textually (no case or path normalization). */
function stripPort(raw: string): string {
  return raw.replace(/^(http:\/\/(?:\[::1\]|[^/:?#]+))(?::\d*)?/, '$1');
}
