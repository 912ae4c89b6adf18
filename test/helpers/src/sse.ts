/**
 * The one SSE reader of the tests (issue 19 item 5), on `eventsource-parser` (the parser `@mcppipe/events`,
 * `@mcppipe/capture` and the aggregator use): {@link parseSse} for a whole `text/event-stream` body (an MCP POST
 * answered as SSE), {@link readSse} for a live stream read until a condition holds.
 *
 * @module
 */
import { createParser } from 'eventsource-parser';

/** One SSE event (comments such as `: ping` are not events). */
export interface SseEvent {
  /** The `id:` field, if any. */
  id: string | undefined;
  /** The `event:` field, if any (`message` when absent, per the spec, is left to the caller). */
  event: string | undefined;
  /** The `data:` lines, joined with `\n`. */
  data: string;
}

/**
 * Parses a whole `text/event-stream` body.
 *
 * @param text - the body
 * @returns its events, in order (an unterminated last event is dropped, as a browser would)
 */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = createParser({ onEvent: (e) => events.push({ id: e.id, event: e.event, data: e.data }) });
  parser.feed(text);
  return events;
}

/**
 * The JSON of each event's `data` (an MCP POST answered as SSE carries one JSON-RPC message per event).
 *
 * @param text - the body
 * @returns the parsed `data` of every event with data
 */
export function sseJson<T = unknown>(text: string): T[] {
  return parseSse(text)
    .filter((e) => e.data !== '')
    .map((e) => JSON.parse(e.data) as T);
}

/** Options of {@link readSse}. */
export interface ReadSseOptions {
  /** Request headers (`authorization`, `last-event-id`). */
  headers?: Record<string, string>;
  /** Stop once this holds for the events read so far (checked after every chunk). */
  until: (events: SseEvent[]) => boolean;
  /** Runs once the response headers arrived, before the body is read (assert on them; trigger the events). */
  onOpen?: (response: Response) => unknown;
  /** Give up after this long, in ms. Default 30 000. */
  timeoutMs?: number;
}

/**
 * Opens a live SSE stream with GET and reads it until `until(events)` holds, then closes it.
 *
 * @param url - the stream's URL
 * @param options - headers, the stop condition, the open callback and the time limit
 * @returns the events read
 * @throws Error when the answer is not 200, or when the time limit passes first (naming how many events came)
 */
export async function readSse(url: string | URL, options: ReadSseOptions): Promise<SseEvent[]> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), timeoutMs);
  const events: SseEvent[] = [];
  const parser = createParser({ onEvent: (e) => events.push({ id: e.id, event: e.event, data: e.data }) });
  try {
    const res = await fetch(url, { headers: options.headers ?? {}, signal: ac.signal });
    if (res.status !== 200 || res.body === null) {
      throw new Error(`GET ${String(url)}: ${res.status} ${await res.text()}`);
    }
    await options.onOpen?.(res);
    const decoder = new TextDecoder();
    for await (const chunk of res.body) {
      parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
      if (options.until(events)) return events;
    }
    throw new Error(`GET ${String(url)}: the stream ended after ${events.length} events`);
  } catch (err) {
    if (ac.signal.aborted)
      throw new Error(`GET ${String(url)}: no stop after ${timeoutMs} ms (${events.length} events)`, {
        cause: err,
      });
    throw err;
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
}
