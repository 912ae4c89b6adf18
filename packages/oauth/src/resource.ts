/**
 * RFC 8707 resource indicators and RFC 9728 protected-resource metadata locations.
 *
 * Canonical form (decision, documented in the README): scheme and host lower-case, default port dropped,
 * no fragment, no query, and no trailing slash (a trailing `/` on a request is tolerated and removed).
 *
 * @module
 */

/**
 * Normalizes a resource indicator to the canonical form, or returns undefined when it is not usable.
 *
 * @param raw - the `resource` parameter or a configured resource URL
 * @returns the canonical URL text, or undefined
 * @example
 * ```ts
 * normalizeResource('HTTPS://GW.example:443/hub/'); // 'https://gw.example/hub'
 * normalizeResource('https://gw.example/hub#x'); // undefined
 * ```
 */
export function normalizeResource(raw: string): string | undefined {
  if (raw.length === 0 || raw.length > 2000 || raw.includes('#') || /[\s\\]/.test(raw)) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password || url.search) {
    return undefined;
  }
  let path = url.pathname;
  while (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return `${url.protocol}//${url.host}${path === '/' ? '' : path}`;
}

/**
 * The RFC 9728 §3.1 path-inserted metadata URL of a resource:
 * `https://gw.example/servers/x/mcp` → `https://gw.example/.well-known/oauth-protected-resource/servers/x/mcp`.
 *
 * @param resourceUrl - the resource (endpoint) URL
 * @returns the metadata URL
 * @example
 * ```ts
 * protectedResourceMetadataUrl('https://gw.example/hub'); // 'https://gw.example/.well-known/oauth-protected-resource/hub'
 * ```
 */
export function protectedResourceMetadataUrl(resourceUrl: string): string {
  const url = new URL(resourceUrl);
  const path = url.pathname === '/' ? '' : url.pathname;
  return `${url.origin}/.well-known/oauth-protected-resource${path}`;
}
