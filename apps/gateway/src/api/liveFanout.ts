/**
 * The Live tab's fan-out (issue 19 D2 Live, R10): per tunnel, one capture subscription however many dashboards
 * stream it; each exchange is serialized once, frames are batched for `flushMs` and the batch is written to every
 * stream with the one SSE writer (`openSseStream`: pings, backpressure).
 *
 * @module
 */
import type { ExchangeCapture, ExchangeSummary } from '@mcppipe/capture';
import { openSseStream, type SseStream } from '@mcppipe/events';
import type { ServerResponse } from 'node:http';

/** How long frames of a busy tunnel wait to go out together, ms: one write per dashboard per batch. */
export const LIVE_FLUSH_MS = 100;

interface TunnelFeed {
  streams: Set<SseStream>;
  pending: string;
  timer: NodeJS.Timeout | undefined;
  off: () => void;
}

/** The SSE frame of one exchange (`event: exchange`, the summary as `data`). */
export const exchangeFrame = (s: ExchangeSummary): string =>
  `id: ${s.id}\nevent: exchange\ndata: ${JSON.stringify(s)}\n\n`;

/**
 * Live streams of exchanges, per tunnel (R10: "with ten dashboards streaming Live ≤ 1.10×").
 */
export class LiveFanout {
  readonly #feeds = new Map<string, TunnelFeed>();

  /**
   * @param capture - the relay's capture
   * @param options - `flushMs` (default {@link LIVE_FLUSH_MS}), `pingMs` of each stream (default 15 000)
   */
  constructor(
    private readonly capture: ExchangeCapture,
    private readonly options: { flushMs?: number; pingMs?: number } = {},
  ) {}

  /**
   * Streams a tunnel's new exchanges on `res` (hijacked, nothing written yet) until either side closes.
   *
   * @param tunnel - the tunnel id
   * @param res - the response
   * @returns the stream
   */
  open(tunnel: string, res: ServerResponse): SseStream {
    const stream = openSseStream(res, {
      ...(this.options.pingMs !== undefined && { pingMs: this.options.pingMs }),
    });
    const feed = this.#feeds.get(tunnel) ?? this.#start(tunnel);
    feed.streams.add(stream);
    void stream.closed.then(() => {
      feed.streams.delete(stream);
      if (feed.streams.size > 0 || this.#feeds.get(tunnel) !== feed) return;
      feed.off();
      clearTimeout(feed.timer);
      this.#feeds.delete(tunnel);
    });
    return stream;
  }

  /** Ends every stream (the app is closing). */
  closeAll(): void {
    for (const feed of [...this.#feeds.values()]) for (const s of [...feed.streams]) s.close();
  }

  #start(tunnel: string): TunnelFeed {
    const feed: TunnelFeed = { streams: new Set(), pending: '', timer: undefined, off: () => {} };
    const flush = () => {
      feed.timer = undefined;
      const out = Buffer.from(feed.pending); // encoded once for every stream
      feed.pending = '';
      for (const s of feed.streams) s.write(out);
    };
    feed.off = this.capture.subscribe(tunnel, (s) => {
      if (feed.timer === undefined) feed.timer = setTimeout(flush, this.options.flushMs ?? LIVE_FLUSH_MS);
      feed.pending += exchangeFrame(s);
    });
    this.#feeds.set(tunnel, feed);
    return feed;
  }
}
