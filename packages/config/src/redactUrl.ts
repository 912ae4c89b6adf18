/**
 * The one home of URL redaction (STYLE.md: one home per behaviour). An upstream URL may carry secrets in its
 * userinfo (`user:pw@`), its query (`?token=…`) or its fragment; whatever shows a URL (logs, errors, the CLI's
 * table, the gateway's `/health` and events) shows it through {@link redactUrl}.
 */

/** What replaces a hidden part. */
const REDACTED = '[redacted]';

/** scheme `//`, optional userinfo `…@`, host and path, optional query, optional fragment (raw text: `${VAR}` kept). */
const URL_PARTS = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*@)?([^?#]*)(\?[^#]*)?(#.*)?$/is;

/**
 * A URL as it may be shown: its userinfo becomes `[redacted]@`, its query `?[redacted]` and its fragment
 * `#[redacted]`; scheme, host, port and path are kept as written (`${VAR}` references too). Text that is not an
 * absolute URL is returned unchanged.
 *
 * @param url - a URL as configured or as an error printed it
 * @returns the URL with its secrets hidden
 * @example Hide a token
 * ```ts
 * redactUrl('http://user:pw@127.0.0.1:3001/mcp?token=abc'); // 'http://[redacted]@127.0.0.1:3001/mcp?[redacted]'
 * ```
 */
export function redactUrl(url: string): string {
  const m = URL_PARTS.exec(url);
  if (m === null) return url;
  const [, scheme = '', userinfo, rest = '', query, fragment] = m;
  return [
    scheme,
    userinfo === undefined ? '' : `${REDACTED}@`,
    rest,
    query === undefined ? '' : `?${REDACTED}`,
    fragment === undefined ? '' : `#${REDACTED}`,
  ].join('');
}

/**
 * Whether a URL has a userinfo part (`user@`, `user:pw@`): `fetch` refuses to send a request to such a URL, and
 * the config rules refuse it (credentials go in a header).
 *
 * @param url - a URL as configured (`${VAR}` references kept)
 * @returns true when the URL's authority contains `@`
 * @example
 * ```ts
 * hasUrlCredentials('https://me:pw@example.com/mcp'); // true
 * ```
 */
export function hasUrlCredentials(url: string): boolean {
  return URL_PARTS.exec(url)?.[2] !== undefined;
}

/**
 * Replaces each known URL in a text (an error message that embeds one, as undici's and the SDK's do) by its
 * {@link redactUrl} form. Each URL is matched as given and as the WHATWG parser prints it (`href`).
 *
 * @param text - the text to clean
 * @param urls - the URLs whose secrets the text may carry (as configured, and after `${VAR}` expansion)
 * @returns the text without those URLs' userinfo, query and fragment
 * @example Clean an SDK error
 * ```ts
 * redactUrlsIn(`fetch to ${url} failed`, [url]);
 * ```
 */
export function redactUrlsIn(text: string, urls: Iterable<string>): string {
  const known = new Set<string>();
  for (const url of urls) {
    known.add(url);
    try {
      known.add(new URL(url).href);
    } catch {
      // not parseable (a `${VAR}` reference): matched as written only
    }
  }
  // longest first: a URL that is a prefix of another must not cut the other one in half
  const byLength = [...known].filter((u) => redactUrl(u) !== u).sort((a, b) => b.length - a.length);
  let out = text;
  for (const url of byLength) out = out.split(url).join(redactUrl(url));
  return out;
}
