import { decodeUtf8Base64Url, encodeUtf8Base64Url, loneSurrogateIndex } from './base64url.js';
import { TEMPLATE_SCHEME_PREFIX, URI_SCHEME_PREFIX } from './defaults.js';
import { invalidUriError, notWrappedUriError, quote } from './errors.js';
import { isValidUpstreamName, validateUpstreamName } from './upstreamName.js';

/** A wrapped resource URI taken apart: the result of {@link unwrapResourceUri}. */
export interface UnwrappedResourceUri {
  /** The upstream that owns the resource. */
  readonly upstream: string;
  /** The upstream's own URI, exactly as the upstream listed it (or as its template expands). */
  readonly uri: string;
}

/** `<prefix><upstream>/<rest>` taken apart, or the reason it is not that shape. */
export type WrappedParts =
  | { readonly ok: true; readonly upstream: string; readonly rest: string }
  | { readonly ok: false; readonly reason: string };

/** Takes `<prefix><upstream>/<rest>` apart; the caller has checked that `input` starts with `prefix`. */
export function parseWrapped(input: string, prefix: string): WrappedParts {
  const slash = input.indexOf('/', prefix.length);
  if (slash < 0) return { ok: false, reason: 'no "/" follows the upstream name' };
  const upstream = input.slice(prefix.length, slash);
  if (!isValidUpstreamName(upstream))
    return { ok: false, reason: `${quote(upstream)} is not a valid upstream name` };
  return { ok: true, upstream, rest: input.slice(slash + 1) };
}

/**
 * Wraps an upstream's resource URI as `mcppipe://<upstream>/<base64url(utf8(uri))>`, without padding
 * (DESIGN.md A2). The URI is never parsed: any string round-trips byte-exactly through
 * {@link unwrapResourceUri}, whatever its scheme (`file:`, `ui://`, none), query, fragment or characters,
 * and the empty string too. No side table is needed.
 *
 * @param upstream - a valid upstream name
 * @param uri - the upstream's resource URI; any well-formed string
 * @returns the wrapped URI, made only of URI-safe characters
 * @throws McpPipeError `MCPP_NS_INVALID_NAME` when `upstream` is not a valid upstream name
 * @throws McpPipeError `MCPP_NS_INVALID_URI` when `uri` contains a lone UTF-16 surrogate, which UTF-8
 *   cannot carry (wrapping it would silently change the URI)
 *
 * @example Wrapping a file URI
 * ```ts
 * wrapResourceUri('fs', 'file:///tmp/a.txt'); // 'mcppipe://fs/ZmlsZTovLy90bXAvYS50eHQ'
 * ```
 */
export function wrapResourceUri(upstream: string, uri: string): string {
  validateUpstreamName(upstream);
  const bad = loneSurrogateIndex(uri);
  if (bad >= 0) throw invalidUriError(uri, bad);
  return `${URI_SCHEME_PREFIX}${upstream}/${encodeUtf8Base64Url(uri)}`;
}

/**
 * Takes a wrapped resource URI apart into the upstream and the upstream's URI (DESIGN.md A2). It accepts
 * both forms the codec produces, which never overlap:
 *
 * - `mcppipe://<upstream>/<base64url>` from {@link wrapResourceUri}: the base64url part must be the
 *   canonical unpadded encoding of UTF-8 text, so that `wrapResourceUri(unwrapResourceUri(w))` is `w`;
 * - `mcppipe+t://<upstream>/<rest>`, the expansion of a template wrapped by `wrapResourceTemplate`:
 *   `<rest>` is the upstream template's expansion, returned verbatim.
 *
 * The URI is never given to a URL parser.
 *
 * @param wrapped - a resource URI as the agent sends it in `resources/read` or `resources/subscribe`
 * @returns the upstream and its original URI
 * @throws McpPipeError `MCPP_NS_NOT_WRAPPED` for anything else; the message says why and `data.uri`
 *   holds the input
 *
 * @example Unwrapping both forms
 * ```ts
 * unwrapResourceUri('mcppipe://fs/ZmlsZTovLy90bXAvYS50eHQ');
 * // { upstream: 'fs', uri: 'file:///tmp/a.txt' }
 * unwrapResourceUri('mcppipe+t://gh/repo://octo/hello/issues/7');
 * // { upstream: 'gh', uri: 'repo://octo/hello/issues/7' }
 * ```
 */
export function unwrapResourceUri(wrapped: string): UnwrappedResourceUri {
  if (wrapped.startsWith(TEMPLATE_SCHEME_PREFIX)) {
    const parts = parseWrapped(wrapped, TEMPLATE_SCHEME_PREFIX);
    if (!parts.ok) throw notWrappedUriError(wrapped, parts.reason);
    return { upstream: parts.upstream, uri: parts.rest };
  }
  if (!wrapped.startsWith(URI_SCHEME_PREFIX)) {
    throw notWrappedUriError(
      wrapped,
      `it starts with neither "${URI_SCHEME_PREFIX}" nor "${TEMPLATE_SCHEME_PREFIX}"`,
    );
  }
  const parts = parseWrapped(wrapped, URI_SCHEME_PREFIX);
  if (!parts.ok) throw notWrappedUriError(wrapped, parts.reason);
  const uri = decodeUtf8Base64Url(parts.rest);
  if (uri === undefined) {
    throw notWrappedUriError(
      wrapped,
      `${quote(parts.rest)} is not canonical unpadded base64url of UTF-8 text`,
    );
  }
  return { upstream: parts.upstream, uri };
}
