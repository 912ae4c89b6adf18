/**
 * The Live tab's fan-out (issue 19 D2 Live, R10): per tunnel, one capture watch however many dashboards stream it.
 * An exchange costs a count (`ExchangeCapture.watch`); every `flushMs` (sooner when half the ring is new) what is new
 * is read from the ring in one pass (`ExchangeCapture.newer`), serialized and encoded once, and written to every
 * stream with the one SSE writer (`openSseStream`: pings, backpressure).
 *
 * Many nodes (issue 20): for a tunnel another node holds, this node reads the ring that node shares in the store
 * every `pollMs` while it has viewers (one read per tunnel; `liveShared.ts`) and streams what it had not seen; the
 * holding node does nothing more than writing its ring, and there is no pub/sub channel to keep.
 *
 * @module
 */
import type { ExchangeCapture, ExchangeSummary } from '@mcppipe/capture';
import { openSseStream, type SseStream } from '@mcppipe/events';
import type { ServerResponse } from 'node:http';
import { LIVE_POLL_MS, newerShared } from './liveShared.js';

/** How long exchanges of a busy tunnel wait to go out together, ms: one write per dashboard per batch. */
export const LIVE_FLUSH_MS = 250;

interface TunnelFeed {
  streams: Set<SseStream>;
  remote: string; // frames of exchanges another node recorded, read from the shared ring since the last flush
  cursor: number; // the capture's: this node's exchanges after it go out at the next flush
  pending: number; // exchanges recorded here since the last flush
  timer: NodeJS.Timeout | undefined;
  off: () => void;
  poll: NodeJS.Timeout | undefined; // the next read of the shared ring
  /** The ring's newest id at the last read (null: empty); undefined: not read since the tunnel was held here. */
  last: string | null | undefined;
  /** Queues the frame of one exchange another node recorded, for every stream. */
  emit: (s: ExchangeSummary) => void;
}

/** The SSE frame of one exchange (`event: exchange`, the summary as `data`). */
export const exchangeFrame = (s: ExchangeSummary): string =>
  `id: ${s.id}\nevent: exchange\ndata: ${JSON.stringify(s)}\n\n`;

/** Live streams of exchanges, per tunnel (R10: "with ten dashboards streaming Live ≤ 1.10×"). */
export class LiveFanout {
  readonly #feeds = new Map<string, TunnelFeed>();

  /**
   * @param capture - the relay's capture
   * @param options - `flushMs` (default {@link LIVE_FLUSH_MS}), `pingMs` of each stream (default 15 000); many nodes:
   *   `held` (whether this node holds a tunnel now: the others' rings are read) and `pollMs` ({@link LIVE_POLL_MS})
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
      remote: '',
      cursor: this.capture.newer(tunnel).cursor, // Live shows exchanges from now on
      pending: 0,
      timer: undefined,
      off: () => {},
      poll: undefined,
      last: undefined,
      emit: () => {},
    };
    const flushMs = this.options.flushMs ?? LIVE_FLUSH_MS;
    const max = this.capture.maxExchanges; // flush before the ring evicts what was not streamed yet
    const flush = () => {
      clearTimeout(feed.timer);
      feed.timer = undefined;
      feed.pending = 0;
      const { exchanges, cursor } = this.capture.newer(tunnel, feed.cursor);
      feed.cursor = cursor;
      let text = feed.remote;
      feed.remote = '';
      for (const s of exchanges) text += exchangeFrame(s);
      if (text === '') return;
      const out = Buffer.from(text); // encoded once for every stream
      for (const s of feed.streams) s.write(out);
    };
    const soon = () => void (feed.timer ??= setTimeout(flush, flushMs));
    feed.emit = (s: ExchangeSummary) => {
      soon();
      feed.remote += exchangeFrame(s);
    };
    // this node's exchanges: a count per exchange; their frames are made at the flush, in one pass over the ring
    feed.off = this.capture.watch(tunnel, () => {
      const n = ++feed.pending; // at half the ring: next turn; full: at once
      if (n >= max) flush();
      else if (n === Math.max(1, max >> 1)) setImmediate(flush);
      else soon();
    });
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
