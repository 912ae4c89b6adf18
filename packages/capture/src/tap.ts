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
export class BodySink implements CapturedBody {
  bytes = 0;
  truncated = false;
  chunks: Buffer[] = [];

  /**
   * @param cap - bytes kept
   * @param keep - false: count only (zero-knowledge)
   */
  constructor(
    private readonly cap: number,
    private readonly keep: boolean,
  ) {}

  /** @param chunk - the next chunk, kept by reference while under the cap, counted past it */
  push(chunk: Buffer): void {
    const room = this.cap - this.bytes;
    this.bytes += chunk.length;
    if (!this.keep) return;
    if (room >= chunk.length) this.chunks.push(chunk);
    else {
      this.truncated = true;
      if (room > 0) this.chunks.push(chunk.subarray(0, room));
    }
  }

  /**
   * A chunk as `res.write` takes it: a string is encoded only while there is room under the cap (and only counted
   * past it, or for zero-knowledge tunnels).
   *
   * @param chunk - a Buffer, a Uint8Array or a string (anything else is ignored)
   * @param encoding - the string's encoding (default utf8)
   */
  add(chunk: unknown, encoding: unknown): void {
    if (Buffer.isBuffer(chunk)) return this.push(chunk);
    if (typeof chunk === 'string') {
      const enc = typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8';
      if (this.keep && this.bytes < this.cap) return this.push(Buffer.from(chunk, enc));
      const n = Buffer.byteLength(chunk, enc);
      if (this.keep && n > 0) this.truncated = true;
      this.bytes += n;
    } else if (chunk instanceof Uint8Array)
      this.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }
}

/** @internal A body collector (see {@link BodySink}). */
export const bodySink = (cap: number, keep: boolean): BodySink => new BodySink(cap, keep);

/** Exchanges closed this turn, recorded together on the next one (one `setImmediate` per turn, not per exchange). */
let due: (() => void)[] = [];
const runDue = () => {
  const now = due;
  due = [];
  for (const fn of now) fn();
};
const later = (fn: () => void) => {
  if (due.push(fn) === 1) setImmediate(runDue);
};

/**
 * The two body collectors of one teed exchange, fed by whoever moves the bytes (the relay's forwarder feeds them as
 * it pipes; {@link tapExchange} feeds them from the request's `data` events and the response's writes).
 */
export interface ExchangeTee {
  /** The request body's collector: `push(chunk)` for each chunk as it is read. */
  readonly request: Pick<BodySink, 'push'>;
  /** The response body's collector: `push(chunk)` for each chunk as it is written to the agent. */
  readonly response: Pick<BodySink, 'push' | 'add'>;
}

/**
 * Opens the record of one exchange without touching its bytes or wrapping anything: returns the body collectors for
 * the caller to feed (chunks kept by reference up to the cap, counted beyond it, nothing parsed) and, once `res`
 * has closed, runs `onDone` on a later turn (one `setImmediate` for the exchanges closed in a turn), after the agent
 * has its answer, with the raw exchange. Zero-knowledge tunnels keep no bytes, only counts (T7).
 *
 * @param exchange - `req`: the public request; `res`: the public response (nothing written yet)
 * @param options - the caller, the tunnel's mode, the cap
 * @param onDone - receives the raw exchange
 * @returns the collectors to feed
 */
export function teeExchange(
  { req, res }: { req: IncomingMessage; res: ServerResponse },
  options: TapOptions,
  onDone: (raw: RawExchange) => void,
): ExchangeTee {
  const now = options.now ?? Date.now;
  const startedAt = now();
  const cap = options.capBytes ?? DEFAULT_BODY_CAP_BYTES;
  const keep = !options.zeroKnowledge;
  const request = bodySink(cap, keep);
  const response = bodySink(cap, keep);
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
      startedAt,
      durationMs,
      httpStatus: res.headersSent ? res.statusCode : 499,
      contentType: typeof contentType === 'string' ? contentType : undefined,
      sessionId: replayHeaders['mcp-session-id'] ?? sessionOf(res),
      replayHeaders,
      request,
      response,
    };
    // assigned, not spread: a spread per exchange costs an object clone on the relay
    if (options.captureValues !== undefined) raw.captureValues = options.captureValues;
    if (options.replayOf !== undefined) raw.replayOf = options.replayOf;
    later(() => onDone(raw));
  });
  return { request, response };
}

/**
 * Tees one exchange of any Node request/response pair: {@link teeExchange}, fed from the request's `data` events
 * and by wrapping the response's `write`/`end`. Call it before the request is piped anywhere. A forwarder that
 * moves the bytes itself feeds a {@link teeExchange} instead (no wrapping on the path).
 *
 * @param exchange - `req`: the public request (not yet read); `res`: the public response (nothing written yet)
 * @param options - the caller, the tunnel's mode, the cap
 * @param onDone - receives the raw exchange
 */
export function tapExchange(
  exchange: { req: IncomingMessage; res: ServerResponse },
  options: TapOptions,
  onDone: (raw: RawExchange) => void,
): void {
  const { req, res } = exchange;
  const { request, response } = teeExchange(exchange, options, onDone);
  req.on('data', (chunk: Buffer) => request.push(chunk));
  const write = res.write as (c: unknown, e: unknown, cb: unknown) => boolean;
  const end = res.end as (c: unknown, e: unknown, cb: unknown) => ServerResponse;
  res.write = function (chunk: unknown, encoding?: unknown, cb?: unknown) {
    response.add(chunk, encoding);
    return write.call(res, chunk, encoding, cb);
  } as ServerResponse['write'];
  res.end = function (chunk?: unknown, encoding?: unknown, cb?: unknown) {
    response.add(chunk, encoding);
    return end.call(res, chunk, encoding, cb);
  } as ServerResponse['end'];
}

const sessionOf = (res: ServerResponse): string | undefined => {
  const v = res.getHeader('mcp-session-id');
  return typeof v === 'string' ? v : undefined;
};
