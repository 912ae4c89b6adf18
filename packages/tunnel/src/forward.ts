import http2 from 'node:http2';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HeaderOverrides } from './headers.js';
import { endToEndHeaders } from './headers.js';
import { tunnelOffline } from './errors.js';
import { writeTunnelOffline } from './offline.js';
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
  /**
   * Fed with the bytes as they pass (the relay's exchange capture, issue 19): the request body's chunks as they are
   * read from `req` (not `body`: a caller that read the body tees it itself), and the response body's chunks as
   * they are written to `res` (after `transform`), the relay's own 502 answer included.
   */
  tee?: ForwardTee | undefined;
}

/** The collectors {@link ForwardExchange.tee} feeds: `push(chunk)` on each side. */
export interface ForwardTee {
  readonly request: { push(chunk: Buffer): void };
  readonly response: { push(chunk: Buffer): void };
}

const NO_BODY = new Set(['GET', 'HEAD', 'OPTIONS', 'DELETE']);
const NO_COOKIE = { 'set-cookie': null } as const;
const NO_COOKIE_NO_LENGTH = { 'set-cookie': null, 'content-length': null } as const;

const isEventStream = (type: string | string[] | undefined): boolean =>
  typeof type === 'string' && type.toLowerCase().startsWith('text/event-stream');

/** @internal The body of `TunnelRegistry.forward`: every failure is a rejection, never a synchronous throw. */
export async function forwardRequest(tunnel: Tunnel | undefined, exchange: ForwardExchange): Promise<void> {
  const { req, body } = exchange;
  if (tunnel === undefined || !tunnel.live) throw tunnelOffline(tunnel?.subdomain);
  const hasBody = body !== undefined || requestHasBody(req);
  // pseudo-headers first (h2 requires them before the regular ones), then the filtered headers into the same object
  const headers = endToEndHeaders(
    req.headers,
    body === undefined ? exchange.headers : { ...exchange.headers, 'content-length': String(body.length) },
    {
      ':method': req.method ?? 'GET',
      ':path': req.url ?? '/',
      ':authority': req.headers.host ?? tunnel.subdomain,
    },
  );
  return pipeExchange(tunnel.openStream(headers, !hasBody), exchange, hasBody);
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
 * @internal Pipes one public exchange through an opened h2 stream (a tunnel's, or a peer node's, S2): the body up
 * (`exchange.body` when the relay read it, else `req`), the answer down (status, end-to-end headers without
 * `Set-Cookie`, streamed body, `exchange.transform` between); the public client leaving cancels the stream; a
 * stream that fails before its headers is a 502, after them a cut connection. Resolves when the response closes.
 */
export function pipeExchange(
  stream: http2.ClientHttp2Stream,
  exchange: ForwardExchange,
  hasBody: boolean,
): Promise<void> {
  const { req, res, body, tee } = exchange;
  if (body !== undefined) stream.end(body);
  else if (hasBody) pipeBody(req, stream, tee);
  return new Promise<void>((resolve) => {
    const cancel = (): void => {
      if (!stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL);
    };
    res.on('close', () => {
      if (!res.writableFinished) cancel();
      resolve();
    });
    req.on('error', cancel);
    let complete = false;
    // Only the CLI's END_STREAM ends the answer. node ends the stream's body then, while the stream is open and
    // its session up; a stream torn down with its tunnel (the WebSocket closed mid-body) or reset with NO_ERROR
    // gets its body ended too, but closed (and its session destroyed): no answer's end, a cut (`fail`).
    let peerEnded = false;
    const session = stream.session;
    const push = stream.push;
    stream.push = function (
      this: http2.ClientHttp2Stream,
      chunk: unknown,
      encoding?: BufferEncoding,
    ): boolean {
      if (chunk === null && !peerEnded)
        peerEnded = !this.closed && session !== undefined && !session.destroyed;
      return push.call(this, chunk, encoding);
    };
    stream.on('response', (headers) => {
      const status = Number(headers[':status']);
      const through = exchange.transform?.(headers);
      // a tunnel never sets cookies on the relay's origin (the path form shares it with the dashboard's session)
      res.writeHead(status, endToEndHeaders(headers, through ? NO_COOKIE_NO_LENGTH : NO_COOKIE));
      stream.pipe(through ?? res, { end: false });
      through?.pipe(res);
      stream.on('end', () => {
        if (!peerEnded) return; // torn down with its tunnel: `fail` cuts the answer
        complete = true;
        (through ?? res).end();
      });
      if (tee !== undefined) (through ?? stream).on('data', (chunk: Buffer) => tee.response.push(chunk));
      // Headers leave with the first body chunk, in one write instead of two. An event stream's first event may
      // come much later, and the agent waits for the headers: those are flushed after this turn of the event loop
      // if no chunk took them along (a no-op when one did).
      if (isEventStream(headers['content-type']))
        setImmediate(() => {
          if (!res.destroyed) res.flushHeaders();
        });
    });
    // The tunnel dropped or the CLI reset the stream: the call fails, it is never replayed (T6). After the headers
    // the agent's connection is cut (a chunked body without its last chunk, or short of its Content-Length), so
    // its client sees a network error, never the clean end of a 200.
    const fail = (): void => {
      if (res.headersSent) {
        if (!res.writableEnded) res.destroy();
        return;
      }
      // refused by a tunnel that is closing (GOAWAY, the CLI stopping): never served, so offline, not dropped
      if (stream.rstCode === http2.constants.NGHTTP2_REFUSED_STREAM) {
        writeTunnelOffline(res);
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
      tee?.response.push(Buffer.from(body));
      res.end(body);
    };
    stream.on('error', fail);
    stream.on('close', () => {
      if (!complete || stream.rstCode !== http2.constants.NGHTTP2_NO_ERROR) fail();
    });
  });
}

/**
 * `req.pipe(stream)`, except that the chunk completing a declared `Content-Length` ends the stream: node then sets
 * END_STREAM on that DATA frame (it does when `end()` comes in the tick of the last write), where a piped `end`
 * comes a tick later and leaves in a frame (and a WebSocket message) of its own a loop turn later, which the CLI
 * waits for before it reads the body.
 */
function pipeBody(req: IncomingMessage, stream: http2.ClientHttp2Stream, tee: ForwardTee | undefined): void {
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  let seen = 0;
  req.on('data', (chunk: Buffer) => {
    tee?.request.push(chunk);
    if (stream.destroyed || stream.writableEnded) return;
    seen += chunk.length;
    if (seen === declared) stream.end(chunk);
    else if (!stream.write(chunk)) {
      req.pause();
      stream.once('drain', () => req.resume());
    }
  });
  req.once('end', () => {
    if (!stream.destroyed && !stream.writableEnded) stream.end();
  });
}
