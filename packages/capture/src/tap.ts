import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULT_BODY_CAP_BYTES } from './defaults.js';
import type { CapturedBody, ExchangeContext, RawExchange } from './types.js';

/** Options of {@link tapExchange}. */
export interface TapOptions extends ExchangeContext {
  /** Bytes kept of each body. Default 64 KiB. */
  capBytes?: number;
  /** Time source, epoch ms. Default `Date.now`. */
  now?: () => number;
}

const REPLAY_HEADERS = ['mcp-session-id', 'mcp-protocol-version', 'mcp-method'] as const;

/** @internal A body collector: keeps references to the first `cap` bytes (no copy), counts the rest. */
export function bodySink(cap: number, keep: boolean): CapturedBody & { push(chunk: Buffer): void } {
  const body = {
    bytes: 0,
    truncated: false,
    chunks: [] as Buffer[],
    push(chunk: Buffer) {
      const room = cap - body.bytes;
      body.bytes += chunk.length;
      if (!keep) return;
      if (room >= chunk.length) body.chunks.push(chunk);
      else {
        body.truncated = true;
        if (room > 0) body.chunks.push(chunk.subarray(0, room));
      }
    },
  };
  return body;
}

const toBuffer = (chunk: unknown, encoding: unknown): Buffer | undefined => {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (typeof chunk === 'string')
    return Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return undefined;
};

/**
 * Tees one forwarded exchange without touching its bytes: the request's chunks as they are read, the response's as
 * they are written (kept by reference up to the cap, counted beyond it), nothing parsed. When the response has
 * closed, `onDone` runs on a later turn (`setImmediate`), after the agent has its answer, with the raw exchange.
 * Call it before the request is piped anywhere. Zero-knowledge tunnels keep no bytes, only counts (T7).
 *
 * @param exchange - `req`: the public request (not yet read); `res`: the public response (nothing written yet)
 * @param options - the caller, the tunnel's mode, the cap
 * @param onDone - receives the raw exchange
 */
export function tapExchange(
  { req, res }: { req: IncomingMessage; res: ServerResponse },
  options: TapOptions,
  onDone: (raw: RawExchange) => void,
): void {
  const now = options.now ?? Date.now;
  const startedAt = now();
  const cap = options.capBytes ?? DEFAULT_BODY_CAP_BYTES;
  const keep = !options.zeroKnowledge;
  const request = bodySink(cap, keep);
  const response = bodySink(cap, keep);
  req.on('data', (chunk: Buffer) => request.push(chunk));
  const { write, end } = res;
  res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    const b = toBuffer(chunk, rest[0]);
    if (b) response.push(b);
    return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
  } as ServerResponse['write'];
  res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    const b = typeof chunk === 'function' ? undefined : toBuffer(chunk, rest[0]);
    if (b) response.push(b);
    return (end as (...a: unknown[]) => ServerResponse).call(this, chunk, ...rest);
  } as ServerResponse['end'];
  res.once('close', () => {
    const durationMs = now() - startedAt;
    const replayHeaders: Record<string, string> = {};
    for (const h of REPLAY_HEADERS) {
      const v = req.headers[h];
      if (typeof v === 'string') replayHeaders[h] = v;
    }
    const contentType = res.getHeader('content-type');
    const raw: RawExchange = {
      caller: options.caller,
      zeroKnowledge: options.zeroKnowledge,
      ...(options.captureValues !== undefined && { captureValues: options.captureValues }),
      ...(options.replayOf !== undefined && { replayOf: options.replayOf }),
      startedAt,
      durationMs,
      httpStatus: res.headersSent ? res.statusCode : 499,
      contentType: typeof contentType === 'string' ? contentType : undefined,
      sessionId: replayHeaders['mcp-session-id'] ?? sessionOf(res),
      replayHeaders,
      request,
      response,
    };
    setImmediate(() => onDone(raw));
  });
}

const sessionOf = (res: ServerResponse): string | undefined => {
  const v = res.getHeader('mcp-session-id');
  return typeof v === 'string' ? v : undefined;
};
