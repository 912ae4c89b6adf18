import http2 from 'node:http2';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HeaderOverrides } from './headers.js';
import { endToEndHeaders } from './headers.js';
import { tunnelOffline } from './errors.js';
import type { Tunnel } from './tunnel.js';

/** One public exchange for `TunnelRegistry.forward`. */
export interface ForwardExchange {
  /** The public request. */
  req: IncomingMessage;
  /** The public response (nothing written yet). */
  res: ServerResponse;
  /**
   * Header overrides applied after the hop-by-hop filter: a value sets, `null` deletes. The relay strips the
   * agent's credentials and sets `X-Forwarded-Host/Proto/For` here (T4, T5).
   */
  headers?: HeaderOverrides;
}

const NO_BODY = new Set(['GET', 'HEAD', 'OPTIONS', 'DELETE']);

/** @internal The body of `TunnelRegistry.forward`: every failure is a rejection, never a synchronous throw. */
export async function forwardRequest(tunnel: Tunnel | undefined, exchange: ForwardExchange): Promise<void> {
  const { req } = exchange;
  if (tunnel === undefined || !tunnel.live) throw tunnelOffline(tunnel?.subdomain);
  const method = req.method ?? 'GET';
  const hasBody = requestHasBody(req);
  const stream = tunnel.openStream(
    {
      ...endToEndHeaders(req.headers, exchange.headers),
      ':method': method,
      ':path': req.url ?? '/',
      ':authority': req.headers.host ?? tunnel.subdomain,
    },
    !hasBody,
  );
  return pipeExchange(stream, exchange, hasBody);
}

/** Whether a public request has a body to stream (a method that carries one, or framing headers). */
export function requestHasBody(req: IncomingMessage): boolean {
  return (
    !NO_BODY.has(req.method ?? 'GET') ||
    req.headers['content-length'] !== undefined ||
    req.headers['transfer-encoding'] !== undefined
  );
}

/**
 * @internal Pipes one public exchange through an opened h2 stream (a tunnel's, or a peer node's, S2): the body up,
 * the answer down (status, end-to-end headers, streamed body); the public client leaving cancels the stream; a
 * stream that fails before its headers is a 502, after them a cut connection. Resolves when the response closes.
 */
export function pipeExchange(
  stream: http2.ClientHttp2Stream,
  exchange: ForwardExchange,
  hasBody: boolean,
): Promise<void> {
  const { req, res } = exchange;
  if (hasBody) req.pipe(stream);
  return new Promise<void>((resolve) => {
    const cancel = (): void => {
      if (!stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL);
    };
    res.on('close', () => {
      if (!res.writableFinished) cancel();
      resolve();
    });
    req.on('error', cancel);
    stream.on('response', (headers) => {
      const status = Number(headers[':status']);
      res.writeHead(status, endToEndHeaders(headers));
      res.flushHeaders();
      stream.pipe(res);
    });
    // The tunnel dropped or the CLI reset the stream: the call fails, it is never replayed (T6).
    const fail = (): void => {
      if (res.headersSent) {
        if (!res.writableEnded) res.destroy();
        return;
      }
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32000,
          message: 'tunnel_offline: the tunnel dropped during the call; it was not replayed',
          data: { reason: 'tunnel_offline' },
        },
      });
      res.writeHead(502, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
    stream.on('error', fail);
    stream.on('close', () => {
      if (!res.headersSent || stream.rstCode !== http2.constants.NGHTTP2_NO_ERROR) fail();
    });
  });
}
