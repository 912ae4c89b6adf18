import { randomBytes } from 'node:crypto';
import type { Clock } from '@mcppipe/upstream-state';
import { systemClock } from '@mcppipe/upstream-state';
import { DEFAULT_REPLAY_BUFFER } from './defaults.js';
import type { EventDataMap, EventType, McpPipeEvent } from './types.js';

/** Receives events; a listener that throws is skipped for that event (others still receive it). */
export type EventListener = (event: McpPipeEvent) => void;

/** Options of {@link EventHub}. */
export interface EventHubOptions {
  /** Events kept for replay (`Last-Event-ID`). Default 1000. */
  bufferSize?: number;
  /** Time source (tests). Default the system clock. */
  clock?: Clock;
}

/** Options of {@link EventHub.subscribe}. */
export interface SubscribeOptions {
  /**
   * Replay the buffered events after this id before live ones (SSE `Last-Event-ID`). An id no longer (or never) in
   * the buffer replays the whole buffer: the client missed events, it gets every one still kept.
   */
  lastEventId?: string | undefined;
  /** Only events this returns true for (replayed and live). */
  filter?: (event: McpPipeEvent) => boolean;
}

/**
 * The `Last-Event-ID` resume rule of every event stream (E2): the events after `lastEventId` in a buffer, oldest
 * first; none without an id, and all of them for an id the buffer no longer holds (the client missed more than it
 * keeps). {@link EventHub.since} applies it to the hub's buffer; a relay node applies it to its copy of the holding
 * node's buffer.
 *
 * @param events - a buffer, oldest first
 * @param lastEventId - the last id the client saw, or undefined
 * @returns a new array
 */
export function eventsAfter(
  events: readonly McpPipeEvent[],
  lastEventId: string | undefined,
): McpPipeEvent[] {
  if (lastEventId === undefined) return [];
  const at = events.findIndex((e) => e.id === lastEventId);
  return at === -1 ? [...events] : events.slice(at + 1);
}

/**
 * The events of one scope (the gateway's servers, or one tunnel): ids and timestamps, a bounded ring buffer for
 * replay, and live subscribers (E1, E2). Synchronous: replay and the switch to live events cannot lose or repeat one.
 *
 * @example
 * ```ts
 * const hub = new EventHub();
 * const off = hub.subscribe((e) => console.log(e.type, e.data), { lastEventId: req.headers['last-event-id'] });
 * hub.publish('tunnel.connected', { tunnel: 't1', at: Date.now(), reason: null });
 * off();
 * ```
 */
export class EventHub {
  readonly #size: number;
  readonly #clock: Clock;
  readonly #ring: McpPipeEvent[] = [];
  readonly #listeners = new Set<EventListener>();
  readonly #prefix = randomBytes(6).toString('hex');
  #seq = 0;

  /** @param options - buffer size and clock */
  constructor(options: EventHubOptions = {}) {
    const size = options.bufferSize ?? DEFAULT_REPLAY_BUFFER;
    if (!Number.isInteger(size) || size < 1) {
      throw new TypeError(`EventHub: bufferSize must be a positive integer, got ${String(size)}`);
    }
    this.#size = size;
    this.#clock = options.clock ?? systemClock;
  }

  /**
   * Publishes one event: gives it an id and a timestamp, buffers it and hands it to every subscriber.
   *
   * @param type - the event type
   * @param data - its payload
   * @returns the event as published
   */
  publish<T extends EventType>(type: T, data: EventDataMap[T]): McpPipeEvent<T> {
    this.#seq += 1;
    const event = {
      id: `evt_${this.#prefix}${this.#seq.toString(36).padStart(8, '0')}`,
      type,
      timestamp: new Date(this.#clock.now()).toISOString(),
      data,
    } as McpPipeEvent<T>;
    const any = event as McpPipeEvent;
    this.#ring.push(any);
    if (this.#ring.length > this.#size) this.#ring.shift();
    for (const listener of this.#listeners) {
      try {
        listener(any);
      } catch {
        // one broken subscriber must not starve the others
      }
    }
    return event;
  }

  /**
   * The buffered events after `lastEventId` (all of them for an unknown id or none given).
   *
   * @param lastEventId - the last id the client saw
   * @returns the events, oldest first
   */
  since(lastEventId?: string): McpPipeEvent[] {
    return eventsAfter(this.#ring, lastEventId);
  }

  /** Every buffered event, oldest first. */
  buffered(): McpPipeEvent[] {
    return [...this.#ring];
  }

  /**
   * Subscribes to events; when `lastEventId` is given, the missed buffered events are delivered first, at once.
   *
   * @param listener - called per event
   * @param options - replay point and filter
   * @returns the unsubscribe function
   */
  subscribe(listener: EventListener, options: SubscribeOptions = {}): () => void {
    const { filter } = options;
    const wrapped: EventListener = filter ? (e) => filter(e) && listener(e) : listener;
    for (const event of this.since(options.lastEventId)) wrapped(event);
    this.#listeners.add(wrapped);
    return () => this.#listeners.delete(wrapped);
  }

  /** Live subscribers (tests, metrics). */
  get subscriberCount(): number {
    return this.#listeners.size;
  }
}
