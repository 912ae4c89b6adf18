import type { IncomingMessage, ServerResponse } from 'node:http';

/** The methods and request headers a browser client of the MCP endpoints may use. */
const ALLOW_METHODS = 'GET, POST, DELETE, OPTIONS';
const ALLOW_HEADERS = [
  'content-type',
  'accept',
  'authorization',
  'mcp-session-id',
  'mcp-protocol-version',
  'mcp-method',
  'last-event-id',
].join(', ');
/** What a browser client may read from a response: the session id and the negotiated protocol version. */
const EXPOSE_HEADERS = 'mcp-session-id, mcp-protocol-version';

/**
 * CORS for the CLI's front door, as `@fastify/cors` answered with mcppipe's options: `Vary: Origin` always; an
 * allowed (or absent) Origin gets `Access-Control-Allow-Origin` (the origin itself) and exposes `Mcp-Session-Id`; a
 * preflight from an allowed origin is answered 204 with the MCP methods and headers, one without `Origin` or
 * `Access-Control-Request-Method` 400. A disallowed origin gets no CORS headers (its preflight is not found).
 *
 * @param req - the request
 * @param res - its response (headers set here are kept when an endpoint writes its own head)
 * @param allowOrigin - whether an Origin is allowed (the Host/Origin policy; loopback origins always)
 * @returns `answered` when this was a preflight it answered, `refused` when the origin is not allowed, else `ok`
 */
export function applyCors(
  req: IncomingMessage,
  res: ServerResponse,
  allowOrigin: (origin: string) => boolean,
): 'answered' | 'refused' | 'ok' {
  res.setHeader('vary', 'Origin');
  const origin = req.headers.origin;
  if (origin && !allowOrigin(origin)) return 'refused';
  if (origin) res.setHeader('access-control-allow-origin', origin);
  res.setHeader('access-control-expose-headers', EXPOSE_HEADERS);
  if (req.method !== 'OPTIONS') return 'ok';
  if (!origin || !req.headers['access-control-request-method']) {
    res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' }).end('Invalid Preflight Request');
    return 'answered';
  }
  res.setHeader('access-control-allow-methods', ALLOW_METHODS);
  res.setHeader('access-control-allow-headers', ALLOW_HEADERS);
  res.writeHead(204, { 'content-length': '0' }).end();
  return 'answered';
}
