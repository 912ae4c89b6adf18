/**
 * Loopback spellings (issue 13.4): on a loopback bind with no explicit public URL, a client may name the
 * gateway `http://127.0.0.1:PORT`, `http://localhost:PORT` or `http://[::1]:PORT`; each gets metadata,
 * challenges and audiences for the name it used. Anywhere else (a non-loopback bind, or an explicit public
 * URL) the configured public URL is the only base, never `Host`.
 *
 * @module
 */

/** The loopback host spellings answered as themselves. */
export const LOOPBACK_SPELLINGS = ['127.0.0.1', 'localhost', '[::1]'] as const;

/**
 * The origins equivalent to a loopback public URL: each spelling with the same scheme and port.
 *
 * @param publicUrl - the canonical public URL (an origin)
 * @returns the public URL first, then the other spellings; just the public URL when it is not loopback
 */
export function loopbackOrigins(publicUrl: string): string[] {
  const url = new URL(publicUrl);
  if (!(LOOPBACK_SPELLINGS as readonly string[]).includes(url.hostname)) return [publicUrl];
  const port = url.port === '' ? '' : `:${url.port}`;
  const others = LOOPBACK_SPELLINGS.map((h) => `${url.protocol}//${h}${port}`);
  return [publicUrl, ...others.filter((o) => o !== publicUrl)];
}

/**
 * Builds the per-request base URL resolver. With aliases off it always answers the public URL; with aliases
 * on, a `Host` of one loopback spelling with the public URL's port answers that spelling's origin (one map
 * lookup per request, no parsing), anything else the public URL.
 *
 * @param publicUrl - the canonical public URL
 * @param aliases - whether loopback spellings are answered as themselves (loopback bind, no explicit URL)
 * @returns `(host header) => base URL`
 */
export function createBaseUrlOf(publicUrl: string, aliases: boolean): (host: string | undefined) => string {
  if (!aliases) return () => publicUrl;
  const byHost = new Map(loopbackOrigins(publicUrl).map((o) => [new URL(o).host, o]));
  return (host) => (host === undefined ? publicUrl : (byHost.get(host.toLowerCase()) ?? publicUrl));
}
