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

/**
 * Copies the end-to-end headers of a message: drops hop-by-hop headers, the headers a `Connection` header
 * names, HTTP/2 pseudo-headers and `host`, then applies `overrides` (hop-by-hop names in them are ignored too).
 *
 * @param headers - the headers of an HTTP/1.1 or HTTP/2 message
 * @param overrides - headers to set (a value) or delete (`null`), applied last
 * @returns a new header object, safe for both `http2` and `http`
 */
export function endToEndHeaders(
  headers: IncomingHttpHeaders | OutgoingHttpHeaders,
  overrides: HeaderOverrides = {},
): OutgoingHttpHeaders {
  const named = String(headers.connection ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || lower.startsWith(':') || lower === 'host') continue;
    if (HOP_BY_HOP.has(lower) || named.includes(lower)) continue;
    out[lower] = value;
  }
  for (const [name, value] of Object.entries(overrides)) {
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower)) continue; // never valid on an h2 stream
    if (value === null) delete out[lower];
    else out[lower] = typeof value === 'string' ? value : [...value];
  }
  return out;
}
