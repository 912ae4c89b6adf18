/**
 * The request limits both apps (`mcppipe up` and `mcppipe-gateway`) share, in one home: the JSON nesting-depth
 * pre-scan (SECURITY-REFERENCE C4), the request/header timeouts that cut slow clients without touching
 * long-lived SSE streams (D2), and the bounded drain behind a 413 (issue 13.11).
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';

/**
 * The deepest JSON nesting an MCP endpoint accepts (C4). A body nesting deeper is answered 400 / -32700 before
 * `JSON.parse` runs: a deep body then costs one linear byte scan, never a deep parse, a `RangeError` from
 * `JSON.stringify` or a recursive validator (both throw from about 5 000 levels). 100 is far above any real MCP
 * message (tool arguments included).
 */
export const MAX_JSON_DEPTH = 100;

/**
 * Whether a JSON document nests deeper than `limit`, scanned without parsing (strings and escapes respected);
 * stops as soon as the limit is exceeded (C4).
 *
 * @param bytes - the UTF-8 body
 * @param limit - the deepest nesting allowed (default {@link MAX_JSON_DEPTH})
 * @returns true when the body nests deeper than `limit`
 */
export function exceedsDepth(bytes: Uint8Array, limit: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/**
 * The stable message of a body refused by the depth pre-scan (answered 400 with JSON-RPC code -32700).
 *
 * @param limit - the limit that was exceeded
 * @returns the message an agent sees
 */
export function depthMessage(limit: number = MAX_JSON_DEPTH): string {
  return `Parse error: JSON nests deeper than ${limit} levels`;
}

/** How long a client has to send its request (D2): the one policy of both apps. */
export interface HttpTimeouts {
  /** A client has this long to send its request headers, in ms. */
  headersTimeoutMs: number;
  /**
   * A client has this long to send its whole request (headers and body), in ms. Node clears it once the request
   * is received, so a response that streams for hours (an SSE `GET`, a long tool call) is not affected.
   */
  requestTimeoutMs: number;
}

/** The defaults of {@link HttpTimeouts}: headers within 10 s, the whole request within 30 s (answered 408). */
export const HTTP_TIMEOUTS: Readonly<HttpTimeouts> = Object.freeze({
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
});

/**
 * The Fastify server options that apply {@link HttpTimeouts} (D2): `requestTimeout`, and Node's `headersTimeout`
 * (never above the request timeout) with a `connectionsCheckingInterval` short enough that the cut comes close to
 * the limit (Node checks both only this often; its default is 30 s).
 *
 * @param timeouts - the limits (default {@link HTTP_TIMEOUTS})
 * @returns options to spread into `Fastify({...})`
 * @throws RangeError when a limit is not a positive finite number
 */
export function serverTimeoutOptions(timeouts: HttpTimeouts = HTTP_TIMEOUTS): {
  requestTimeout: number;
  http: { headersTimeout: number; connectionsCheckingInterval: number };
} {
  for (const [name, value] of Object.entries(timeouts)) {
    if (!Number.isFinite(value) || value <= 0)
      throw new RangeError(`${name} must be a positive number of ms`);
  }
  const headersTimeout = Math.min(timeouts.headersTimeoutMs, timeouts.requestTimeoutMs);
  return {
    requestTimeout: timeouts.requestTimeoutMs,
    http: {
      headersTimeout,
      connectionsCheckingInterval: Math.max(50, Math.min(2_000, Math.floor(headersTimeout / 2))),
    },
  };
}

/**
 * How much of an over-limit body is read and discarded after the 413 is sent (issue 13.11): closing a socket with
 * unread data makes the kernel send a reset, which a client still uploading sees instead of the 413.
 */
export const OVERSIZE_DRAIN: Readonly<{ maxBytes: number; maxMs: number }> = Object.freeze({
  maxBytes: 16 * 1024 * 1024,
  maxMs: 10_000,
});

/**
 * Reads and discards the rest of a refused request body, bounded in bytes and time, so the client can finish its
 * upload and read the answer; past either bound the connection is destroyed. Call it when answering 413 without
 * `Connection: close` (Node would close the socket with the body unread).
 *
 * @param req - the refused request
 * @param bounds - the byte and time bounds (default {@link OVERSIZE_DRAIN})
 */
export function drainRefusedBody(
  req: IncomingMessage,
  bounds: Readonly<{ maxBytes: number; maxMs: number }> = OVERSIZE_DRAIN,
): void {
  if (req.complete || req.destroyed) return;
  let seen = 0;
  const stop = () => {
    clearTimeout(timer);
    req.off('data', onData);
  };
  const cut = () => {
    stop();
    req.socket.destroy();
  };
  const onData = (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > bounds.maxBytes) cut();
  };
  const timer = setTimeout(cut, bounds.maxMs);
  timer.unref();
  req.on('data', onData);
  req.once('end', stop);
  req.once('close', stop);
  req.resume();
}
