import type { ServerResponse } from 'node:http';
import { DEFAULT_SSE_MAX_BUFFERED_BYTES, DEFAULT_SSE_PING_MS } from './defaults.js';
import type { EventHub } from './hub.js';
import type { McpPipeEvent } from './types.js';

/** Options of {@link openEventStream}. */
export interface EventStreamOptions {
  /** The client's `Last-Event-ID` header: missed buffered events are sent first. */
  lastEventId?: string | string[] | undefined;
  /** Interval of the `: ping` comment in ms. Default 15 000 (E2). */
  pingMs?: number;
  /** Only events this returns true for. */
  filter?: (event: McpPipeEvent) => boolean;
  /** Bytes the client may fall behind before the stream is closed. Default 1 MiB. */
  maxBufferedBytes?: number;
  /** Extra response headers (e.g. CORS). */
  headers?: Record<string, string>;
}

/** An open event stream. */
export interface EventStream {
  /** Ends the stream (idempotent). */
  close(): void;
  /** Settles when the stream ended, by either side. */
  closed: Promise<void>;
}

/**
 * Formats one event as an SSE frame: `id:`, `event:` (the type) and one `data:` line of JSON.
 *
 * @param event - the event
 * @returns the frame, ending in a blank line
 */
export function formatSseEvent(event: McpPipeEvent): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** Options of {@link openSseStream}. */
export interface SseStreamOptions {
  /** Interval of the `: ping` comment in ms. Default 15 000 (E2). */
  pingMs?: number;
  /** Bytes the client may fall behind before the stream is closed. Default 1 MiB. */
  maxBufferedBytes?: number;
  /** Extra response headers (e.g. CORS). */
  headers?: Record<string, string>;
}

/** An open Server-Sent Events stream: write frames to it. */
export interface SseStream extends EventStream {
  /**
   * Writes SSE text (one or more frames, each ending in a blank line; a Buffer when the same text goes to many
   * streams, encoded once) unless the stream ended; a client that falls behind by more than `maxBufferedBytes` is
   * disconnected.
   */
  write(chunk: string | Buffer): void;
  /** Whether the stream ended. */
  readonly ended: boolean;
}

/**
 * The one SSE writer of mcppipe (E2): status 200, `text/event-stream` with no caching and no proxy buffering, a
 * `: connected` comment, a `: ping` comment every `pingMs` so proxies keep the connection open, and backpressure: a
 * client that falls behind by more than `maxBufferedBytes` is disconnected. Under Fastify, call `reply.hijack()`
 * first and pass `reply.raw`. {@link openEventStream} (events) and the relay's Live exchanges write through it.
 *
 * @param res - the response, headers not yet sent
 * @param options - ping interval, buffer bound, extra headers
 * @returns the stream
 */
export function openSseStream(res: ServerResponse, options: SseStreamOptions = {}): SseStream {
  const maxBuffered = options.maxBufferedBytes ?? DEFAULT_SSE_MAX_BUFFERED_BYTES;
  res.writeHead(200, {
    ...options.headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-store',
    // no `connection: keep-alive`: HTTP/1.1 keeps the connection by default, and HTTP/2 (a stream reached through
    // the tunnel) forbids the header (node warns `UnsupportedWarning` on every such response)
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();
  let done = false;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  const write = (chunk: string | Buffer) => {
    if (done) return;
    res.write(chunk);
    if (res.writableLength > maxBuffered) close();
  };
  const ping = setInterval(() => write(': ping\n\n'), options.pingMs ?? DEFAULT_SSE_PING_MS);
  ping.unref();
  const close = () => {
    if (done) return;
    done = true;
    clearInterval(ping);
    res.end();
    resolveClosed();
  };
  res.on('close', close);
  write(': connected\n\n');
  return {
    write,
    close,
    closed,
    get ended() {
      return done;
    },
  };
}

/**
 * Streams a hub's events to a Node `ServerResponse` as Server-Sent Events (E2) with {@link openSseStream}: the
 * events after `Last-Event-ID` from the hub's buffer, then live ones, and a `: ping` comment every `pingMs`. A
 * client that falls behind by more than `maxBufferedBytes` is disconnected (it resumes with `Last-Event-ID`). Under
 * Fastify, call `reply.hijack()` first and pass `reply.raw`.
 *
 * @param res - the response, headers not yet sent
 * @param hub - the event source
 * @param options - replay point, ping interval, filter
 * @returns the stream handle
 */
export function openEventStream(
  res: ServerResponse,
  hub: EventHub,
  options: EventStreamOptions = {},
): EventStream {
  const last = Array.isArray(options.lastEventId) ? options.lastEventId[0] : options.lastEventId;
  const stream = openSseStream(res, {
    ...(options.pingMs !== undefined && { pingMs: options.pingMs }),
    ...(options.maxBufferedBytes !== undefined && { maxBufferedBytes: options.maxBufferedBytes }),
    ...(options.headers && { headers: options.headers }),
  });
  const unsubscribe = hub.subscribe((event) => stream.write(formatSseEvent(event)), {
    lastEventId: last?.trim() || undefined,
    ...(options.filter && { filter: options.filter }),
  });
  void stream.closed.then(unsubscribe);
  if (stream.ended) unsubscribe();
  return { close: stream.close, closed: stream.closed };
}
