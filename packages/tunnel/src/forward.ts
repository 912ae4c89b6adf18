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
  /**
   * The request body, already read by the relay (a tunnel with policies, P3): sent instead of piping `req`, with
   * its `content-length`.
   */
  body?: Buffer;
  /**
   * Called with the CLI's response headers; a returned stream sits between the tunnel and `res` (the body is
   * rewritten, so `content-length` is dropped). Undefined: the body is piped as is.
   */
  transform?: (headers: http2.IncomingHttpHeaders) => NodeJS.ReadWriteStream | undefined;
}

const NO_BODY = new Set(['GET', 'HEAD', 'OPTIONS', 'DELETE']);

/** @internal The body of `TunnelRegistry.forward`: every failure is a rejection, never a synchronous throw. */
export async function forwardRequest(tunnel: Tunnel | undefined, exchange: ForwardExchange): Promise<void> {
  const { req, res } = exchange;
  if (tunnel === undefined || !tunnel.live) throw tunnelOffline(tunnel?.subdomain);
  const method = req.method ?? 'GET';
  const { body } = exchange;
  const hasBody =
    body !== undefined ||
    !NO_BODY.has(method) ||
    req.headers['content-length'] !== undefined ||
    req.headers['transfer-encoding'] !== undefined;
  const stream = tunnel.openStream(
    {
      ...endToEndHeaders(req.headers, {
        ...exchange.headers,
        ...(body !== undefined && { 'content-length': String(body.length) }),
      }),
      ':method': method,
      ':path': req.url ?? '/',
      ':authority': req.headers.host ?? tunnel.subdomain,
    },
    !hasBody,
  );
  if (body !== undefined) stream.end(body);
  else if (hasBody) req.pipe(stream);
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
      const through = exchange.transform?.(headers);
      res.writeHead(status, endToEndHeaders(headers, through ? { 'content-length': null } : undefined));
      res.flushHeaders();
      if (through === undefined) stream.pipe(res);
      else stream.pipe(through).pipe(res);
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
