import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

/**
 * Connection-specific headers HTTP/2 forbids (RFC 9113 §8.2.2) plus the proxy hop-by-hop set (RFC 9110 §7.6.1).
 * `host` is not here: it becomes `:authority`.
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
]);

/** Header overrides: a value sets the header, `null` deletes it. Names are lower-case. */
export type HeaderOverrides = Readonly<Record<string, string | readonly string[] | null>>;

const NO_OVERRIDES: HeaderOverrides = Object.freeze({});

/** The names a `Connection` header lists (RFC 9110 §7.6.1), lower-case; undefined when there is none. */
function connectionNamed(value: unknown): Set<string> | undefined {
  if (value === undefined) return undefined;
  const named = new Set<string>();
  for (const part of String(value).split(',')) {
    const name = part.trim().toLowerCase();
    if (name !== '') named.add(name);
  }
  return named;
}

/**
 * Copies the end-to-end headers of a message: drops hop-by-hop headers, the headers a `Connection` header
 * names, HTTP/2 pseudo-headers and `host`, then applies `overrides` (hop-by-hop names in them are ignored too).
 * It runs per request on both sides of a tunnel, so it is one pass over the names with no intermediate arrays.
 *
 * @param headers - the headers of an HTTP/1.1 or HTTP/2 message
 * @param overrides - headers to set (a value) or delete (`null`), applied last
 * @param into - the object to fill (e.g. one already holding the h2 pseudo-headers); default a new one
 * @returns `into`, safe for both `http2` and `http`
 */
export function endToEndHeaders(
  headers: IncomingHttpHeaders | OutgoingHttpHeaders,
  overrides: HeaderOverrides = NO_OVERRIDES,
  into: OutgoingHttpHeaders = {},
): OutgoingHttpHeaders {
  const named = connectionNamed(headers.connection);
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || name.charCodeAt(0) === 58 /* : */) continue;
    // node lower-cases incoming names; an outgoing object may not
    const lower = name.toLowerCase();
    if (lower === 'host' || HOP_BY_HOP.has(lower) || named?.has(lower) === true) continue;
    // a deleted name is skipped here rather than deleted below: `delete` turns `into` into a slow dictionary object
    if (overrides[lower] === null) continue;
    into[lower] = value;
  }
  for (const name in overrides) {
    const value = overrides[name];
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    // hop-by-hop names are never valid on an h2 stream; pseudo-headers are the caller's (`into`)
    if (HOP_BY_HOP.has(lower) || lower.charCodeAt(0) === 58) continue;
    if (value === null) {
      if (into[lower] !== undefined) delete into[lower];
    } else into[lower] = typeof value === 'string' ? value : [...value];
  }
  return into;
}
