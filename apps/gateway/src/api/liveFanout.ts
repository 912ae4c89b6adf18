/**
 * The Live tab's fan-out (issue 19 D2 Live, R10): per tunnel, one capture subscription however many dashboards
 * stream it; each exchange is serialized once and encoded at once into the batch's bytes ({@link FrameBatch}),
 * frames are batched for `flushMs` and the batch is written to every stream with the one SSE writer (`openSseStream`: pings, backpressure). What ten streams
 * cost the relay is mostly per write, not per byte (R10), hence the batch.
 *
 * Many nodes (issue 20): a tunnel held by another node is recorded there, and its exchanges reach this node only
 * through the ring shared in the store. While this node has Live viewers of such a tunnel it reads the newest
 * entries of that ring every `pollMs` (one read per tunnel, however many viewers; `liveShared.ts`) and streams the
 * ones it has not seen. The holding node does nothing more than it already does (it writes the ring anyway):
 * nothing per exchange when no one watches anywhere, and no pub/sub channel to keep.
 *
 * @module
 */
import type { ExchangeCapture, ExchangeSummary } from '@mcppipe/capture';
import { openSseStream, type SseStream } from '@mcppipe/events';
import type { ServerResponse } from 'node:http';
import { FrameBatch } from './frameBatch.js';
import { newerShared } from './liveShared.js';

/**
 * How long frames of a busy tunnel wait to go out together, ms: one write per dashboard per batch (four a second at
 * most; each write to a stream costs the relay ~0.1 ms however few bytes it carries, R10).
 */
export const LIVE_FLUSH_MS = 250;

/** How often a feed of a tunnel held by another node reads the shared ring, ms. */
export const LIVE_POLL_MS = 500;

interface TunnelFeed {
  streams: Set<SseStream>;
  batch: FrameBatch;
  timer: NodeJS.Timeout | undefined;
  off: () => void;
  poll: NodeJS.Timeout | undefined; // the next read of the shared ring
  /** The ring's newest id at the last read (null: empty); undefined: not read since the tunnel was held here. */
  last: string | null | undefined;
  /** Queues one exchange's frame for every stream. */
  emit: (s: ExchangeSummary) => void;
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
   * @param options - `flushMs` (default {@link LIVE_FLUSH_MS}), `pingMs` of each stream (default 15 000); many
   *   nodes: `held` (whether this node holds a tunnel now; set when the capture writes a shared ring: feeds of
   *   tunnels it does not hold read that ring) and `pollMs` (default {@link LIVE_POLL_MS})
   */
  constructor(
    private readonly capture: ExchangeCapture,
    private readonly options: {
      flushMs?: number;
      pingMs?: number;
      held?: (tunnel: string) => boolean;
      pollMs?: number;
    } = {},
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
      clearTimeout(feed.poll);
      this.#feeds.delete(tunnel);
    });
    return stream;
  }

  /** Ends every stream (the app is closing). */
  closeAll(): void {
    for (const feed of [...this.#feeds.values()]) for (const s of [...feed.streams]) s.close();
  }

  #start(tunnel: string): TunnelFeed {
    const feed: TunnelFeed = {
      streams: new Set(),
      batch: new FrameBatch(),
      timer: undefined,
      off: () => {},
      poll: undefined,
      last: undefined,
      emit: () => {},
    };
    const flush = () => {
      feed.timer = undefined;
      const out = feed.batch.take(); // one Buffer for every stream
      for (const s of feed.streams) s.write(out);
    };
    feed.emit = (s: ExchangeSummary) => {
      if (feed.timer === undefined) feed.timer = setTimeout(flush, this.options.flushMs ?? LIVE_FLUSH_MS);
      feed.batch.add(exchangeFrame(s));
    };
    feed.off = this.capture.subscribe(tunnel, feed.emit);
    this.#feeds.set(tunnel, feed);
    if (this.options.held) void this.#poll(tunnel, feed);
    return feed;
  }

  /** Reads the shared ring for a tunnel another node holds, then again every `pollMs` while the feed lives. */
  async #poll(tunnel: string, feed: TunnelFeed): Promise<void> {
    if (this.options.held?.(tunnel) !== false)
      feed.last = undefined; // this node's capture streams it; read again once it moves away
    else {
      try {
        const fresh = await newerShared(this.capture, tunnel, feed.last);
        // the first read only marks what was there before (Live shows exchanges from now on)
        if (feed.last !== undefined && this.#feeds.get(tunnel) === feed)
          for (let i = fresh.length - 1; i >= 0; i--) feed.emit(fresh[i]!);
        feed.last = fresh[0]?.id ?? feed.last ?? null;
      } catch {
        // the store is away: the next read catches up on what is still among the newest entries
      }
    }
    if (this.#feeds.get(tunnel) !== feed) return;
    feed.poll = setTimeout(() => void this.#poll(tunnel, feed), this.options.pollMs ?? LIVE_POLL_MS);
  }
}
