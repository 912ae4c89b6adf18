import type { OutgoingHttpHeaders, Server } from 'node:http';
import type {
  Http2ServerRequest,
  Http2ServerResponse,
  ServerHttp2Stream,
  ServerStreamResponseOptions,
} from 'node:http2';
import type { TunnelHandler } from './client.js';
import { endToEndHeaders } from './headers.js';

/** Options of {@link serveInProcess}. */
export interface ServeInProcessOptions {
  /** The CLI's own HTTP server (its `request` listeners serve the tunnel's requests). */
  server: Pick<Server, 'emit'>;
  /** The address the server listens on, as a `Host` value (`127.0.0.1:8808`, `[::1]:8808`). */
  authority: string;
}

let nodeRespond: ServerHttp2Stream['respond'] | undefined;
let nodeWriteHead: Http2ServerResponse['writeHead'] | undefined;

/**
 * `Http2ServerResponse.writeHead` with the end-to-end headers only ({@link endToEndHeaders}, the tunnel's one rule):
 * HTTP/2 forbids connection-specific headers (RFC 9113 §8.2.2), which an HTTP/1.1 listener may well set (the SDK's
 * SSE responses set `connection`), and node's compatibility response drops them with an `UnsupportedWarning` on the
 * process's stderr or refuses them. One function for every response, called with the response as `this`.
 */
function writeHeadForH2(this: Http2ServerResponse, status: number, ...rest: unknown[]): Http2ServerResponse {
  const last = rest.length > 0 ? rest[rest.length - 1] : undefined;
  if (typeof last === 'object' && last !== null && !Array.isArray(last))
    rest[rest.length - 1] = endToEndHeaders(last as OutgoingHttpHeaders);
  return (nodeWriteHead as (...a: unknown[]) => Http2ServerResponse).call(this, status, ...rest);
}

/**
 * `ServerHttp2Stream.respond` without trailers. node's compatibility response always asks for trailers, so
 * END_STREAM would leave a loop turn after the body, in a frame (and a WebSocket message) of its own; the relay
 * forwards no trailers, so none are waited for. One function for every stream, called with the stream as `this`: no
 * closure and no options copy per request (the compatibility response passes a fresh options object each time).
 */
function respondWithoutTrailers(
  this: ServerHttp2Stream,
  headers?: OutgoingHttpHeaders,
  options?: ServerStreamResponseOptions,
): void {
  if (options === undefined) nodeRespond!.call(this, headers, { waitForTrailers: false });
  else {
    options.waitForTrailers = false;
    nodeRespond!.call(this, headers, options);
  }
}

/**
 * A tunnel handler that serves each tunnel request with the CLI's own HTTP server in the same process (T4): the h2
 * stream is handed to the server's `request` listeners (node's `http2` compatibility request and response), so
 * nothing is parsed or serialized twice and no loopback socket is crossed. What the listener sees is what
 * {@link forwardToLoopback} would send it: `Host` is the listener's own address, so its DNS-rebinding check stays on,
 * and `X-Forwarded-Host` keeps the public host (the relay's `X-Forwarded-*` pass through unchanged). An h2 request
 * carries no hop-by-hop headers (the relay drops them); its pseudo-headers stay, as node's compatibility API keeps
 * them. The response asks for no trailers (node's compatibility API always does), so END_STREAM rides on the last
 * DATA frame when the body ends in the tick of its last write, and its `writeHead` keeps the end-to-end headers only. A listener that cuts the request's connection (`req.socket.destroy()`, e.g. a refused upload past its
 * drain bounds) resets this one stream only: node's compatibility socket binds `destroy` to the stream.
 *
 * @param options - the server and its listening address
 * @returns the handler for `connectTunnel`
 * @example
 * ```ts
 * const tunnel = connectTunnel({ relayUrl, apiKey, subdomain: 'laptop',
 *   handler: serveInProcess({ server: app.server, authority: '127.0.0.1:8808' }) });
 * ```
 */
export function serveInProcess(options: ServeInProcessOptions): TunnelHandler {
  const { server, authority } = options;
  return (req: Http2ServerRequest, res: Http2ServerResponse): void => {
    const headers = req.headers;
    const publicHost = headers[':authority'];
    if (headers['x-forwarded-host'] === undefined && typeof publicHost === 'string')
      headers['x-forwarded-host'] = publicHost;
    headers.host = authority;
    const { stream } = res;
    nodeRespond ??= stream.respond;
    stream.respond = respondWithoutTrailers;
    nodeWriteHead ??= res.writeHead;
    res.writeHead = writeHeadForH2 as Http2ServerResponse['writeHead'];
    server.emit('request', req, res);
  };
}
