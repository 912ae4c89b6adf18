import http from 'node:http';
import http2 from 'node:http2';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import { endToEndHeaders } from './headers.js';
import type { TunnelHandler } from './client.js';
import { invalidOption } from './errors.js';

/** Default {@link ForwardToLoopbackOptions.idleSocketMs}. */
const LOOPBACK_IDLE_SOCKET_MS = 4_000;

/** Options of {@link forwardToLoopback}. */
export interface ForwardToLoopbackOptions {
  /** The port of the CLI's loopback listener. */
  port: number;
  /** Its address. Default `127.0.0.1`. */
  host?: string;
  /** Sockets kept open to the listener. Default 64. */
  maxSockets?: number;
  /**
   * An idle pooled socket is closed after this long, in ms: below the listener's keep-alive timeout (the CLI's
   * is 5 s), so a request never goes out on a socket the listener is closing (a 502 `loopback_unreachable`).
   * Default 4 000; a shorter `Keep-Alive: timeout=` hint from the listener wins.
   */
  idleSocketMs?: number;
}

/** A {@link TunnelHandler} that also releases its connection pool. */
export interface LoopbackHandler extends TunnelHandler {
  /** Closes the pooled loopback sockets. */
  close(): void;
}

/**
 * A tunnel handler that forwards each tunnel request to the CLI's own loopback HTTP listener (T4): `Host` becomes
 * the listener's address, so its DNS-rebinding check stays on, and `X-Forwarded-Host` keeps the public host
 * (the relay's `X-Forwarded-*` pass through unchanged). Bodies stream both ways; SSE arrives event by event; a
 * public client that goes away aborts the loopback request, so the CLI cancels the upstream call.
 *
 * @param options - the listener's port (and address)
 * @returns the handler for `connectTunnel`, with `close()` for its socket pool
 * @throws McpPipeError `MCPP_TUNNEL_INVALID_OPTIONS` for a bad port
 * @example
 * ```ts
 * const handler = forwardToLoopback({ port: 8808 });
 * const tunnel = connectTunnel({ relayUrl, apiKey, subdomain: 'laptop', handler });
 * ```
 */
export function forwardToLoopback(options: ForwardToLoopbackOptions): LoopbackHandler {
  const { port, host = '127.0.0.1' } = options;
  if (!(Number.isInteger(port) && port > 0 && port < 65_536)) {
    throw invalidOption('port', 'must be an integer in 1..65535', port);
  }
  const authority = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  // `timeout` closes FREE sockets only (the agent destroys a pooled socket that times out; a socket carrying a
  // request, e.g. an SSE stream, ignores it): the pool lets go of a socket before the listener does
  const agent = new http.Agent({
    keepAlive: true,
    maxSockets: options.maxSockets ?? 64,
    timeout: options.idleSocketMs ?? LOOPBACK_IDLE_SOCKET_MS,
    scheduling: 'lifo',
  });

  const handler = (req: Http2ServerRequest, res: Http2ServerResponse): void => {
    const publicHost = req.headers[':authority'];
    const headers = endToEndHeaders(req.headers, { host: authority });
    if (headers['x-forwarded-host'] === undefined && typeof publicHost === 'string') {
      headers['x-forwarded-host'] = publicHost;
    }
    const out = http.request({ host, port, agent, method: req.method, path: req.url, headers });
    out.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, endToEndHeaders(answer.headers));
      answer.pipe(res);
      answer.on('error', () => res.stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR));
    });
    out.on('error', () => {
      if (res.headersSent) {
        res.stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
        return;
      }
      const body = JSON.stringify({
        error: { code: 'loopback_unreachable', message: `the CLI's listener on ${authority} did not answer` },
      });
      res.writeHead(502, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
    // An RST from the relay (the public client went away) closes the h2 stream with `writableFinished` already
    // true, so whether the answer was ended here is what tells a cancel from a completed exchange.
    res.on('close', () => {
      if (!res.writableEnded) out.destroy();
    });
    req.pipe(out);
  };
  return Object.assign(handler, { close: () => agent.destroy() });
}
