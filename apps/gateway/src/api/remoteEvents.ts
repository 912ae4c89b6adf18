/**
 * `GET /api/tunnels/:id/upstreams/stream` on a node that does not hold the tunnel (issue 20's scale-out gap; the
 * design of Live on such a node, `liveFanout.ts`): the tunnel's hub lives on its holding node, so while this node
 * has viewers of the tunnel it asks the holder for the events after the last one it saw every `pollMs` (one ask per
 * tunnel however many viewers), keeps them in a mirror of the holder's buffer and writes each new one to every
 * viewer with the one SSE writer (`openSseStream`). Ids are the holder's: `Last-Event-ID` resumes from the mirror
 * as `EventHub` resumes from its buffer (an id not in it: every event kept).
 *
 * @module
 */
import { DEFAULT_REPLAY_BUFFER, eventsAfter, formatSseEvent, openSseStream } from '@mcppipe/events';
import type { McpPipeEvent } from '@mcppipe/events';
import type { SseStream } from '@mcppipe/events';
import type { ServerResponse } from 'node:http';

/** How often a feed asks the holding node for new events, ms. */
export const REMOTE_EVENTS_POLL_MS = 1_000;

/**
 * Asks the holding node for its buffered events after `after` (all of them without it), oldest first.
 *
 * @returns the events, or undefined when the holder did not answer (asked again at the next poll)
 */
export type FetchEvents = (after: string | undefined) => Promise<McpPipeEvent[] | undefined>;

interface Feed {
  /** The streams new events are written to (a viewer joins once it got what it missed). */
  streams: Set<SseStream>;
  /** Open viewers, joined or not: the feed stops when none is left. */
  viewers: number;
  /** The holder's events seen so far, oldest first (at most the hub's buffer size). */
  mirror: McpPipeEvent[];
  ids: Set<string>;
  /** Settles once the holder first answered: viewers replay from the mirror from then on. */
  ready: Promise<void>;
  timer: NodeJS.Timeout | undefined;
}

/** Options of {@link RemoteEventFeeds}. */
export interface RemoteEventFeedsOptions {
  /** Interval between asks, ms. Default {@link REMOTE_EVENTS_POLL_MS}. */
  pollMs?: number;
  /** Interval of each stream's `: ping`, ms. Default the SSE writer's (15 000). */
  pingMs?: number;
  /** Events kept in a mirror. Default the hub's buffer size (1000). */
  bufferSize?: number;
}

/** The event streams of tunnels another node holds, one feed per tunnel. */
export class RemoteEventFeeds {
  readonly #feeds = new Map<string, Feed>();
  readonly #open = new Set<SseStream>();

  /** @param options - poll and ping intervals, mirror size */
  constructor(private readonly options: RemoteEventFeedsOptions = {}) {}

  /**
   * Streams a tunnel's events on `res` (hijacked, nothing written yet) until either side closes: the events after
   * `lastEventId` first (none without it), then each new one.
   *
   * @param tunnel - the tunnel id
   * @param res - the response
   * @param o - the client's `Last-Event-ID` and how to ask the holding node (used by a feed this call starts)
   * @returns the stream
   */
  open(
    tunnel: string,
    res: ServerResponse,
    o: { lastEventId: string | string[] | undefined; fetch: FetchEvents },
  ): SseStream {
    const stream = openSseStream(res, {
      ...(this.options.pingMs !== undefined && { pingMs: this.options.pingMs }),
    });
    const raw = Array.isArray(o.lastEventId) ? o.lastEventId[0] : o.lastEventId;
    const last = raw?.trim() || undefined;
    const feed = this.#feeds.get(tunnel) ?? this.#start(tunnel, o.fetch);
    feed.viewers += 1;
    this.#open.add(stream);
    void feed.ready.then(() => {
      if (stream.ended) return;
      for (const e of eventsAfter(feed.mirror, last)) stream.write(formatSseEvent(e));
      feed.streams.add(stream);
    });
    void stream.closed.then(() => {
      feed.streams.delete(stream);
      this.#open.delete(stream);
      feed.viewers -= 1;
      if (feed.viewers > 0 || this.#feeds.get(tunnel) !== feed) return;
      clearTimeout(feed.timer);
      this.#feeds.delete(tunnel);
    });
    return stream;
  }

  /** Ends every stream (the app is closing). */
  closeAll(): void {
    for (const s of [...this.#open]) s.close();
  }

  #start(tunnel: string, fetch: FetchEvents): Feed {
    let ready!: () => void;
    const feed: Feed = {
      streams: new Set(),
      viewers: 0,
      mirror: [],
      ids: new Set(),
      ready: new Promise((r) => (ready = r)),
      timer: undefined,
    };
    this.#feeds.set(tunnel, feed);
    let first = true;
    const poll = async () => {
      const got = await fetch(feed.mirror.at(-1)?.id).catch(() => undefined);
      if (this.#feeds.get(tunnel) !== feed) return;
      for (const e of got ?? []) {
        if (feed.ids.has(e.id)) continue; // the holder resent its buffer (our last id left it, or a new hub)
        feed.mirror.push(e);
        feed.ids.add(e.id);
        if (feed.mirror.length > (this.options.bufferSize ?? DEFAULT_REPLAY_BUFFER))
          feed.ids.delete(feed.mirror.shift()!.id);
        // the first answer only fills the mirror: viewers get what they missed from it in `open`
        if (!first) for (const s of feed.streams) s.write(formatSseEvent(e));
      }
      if (first && got !== undefined) {
        first = false; // viewers waited (pings only) for this first answer
        ready();
      }
      feed.timer = setTimeout(() => void poll(), this.options.pollMs ?? REMOTE_EVENTS_POLL_MS);
    };
    void poll();
    return feed;
  }
}
