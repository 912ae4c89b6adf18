import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpPipeEvent } from '@mcppipe/events';
import { parseSse } from '@mcppipe/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { RemoteEventFeeds, type FetchEvents } from './remoteEvents.js';

const event = (n: number): McpPipeEvent => ({
  id: `evt_${String(n).padStart(4, '0')}`,
  type: 'tunnel.connected',
  timestamp: new Date(n).toISOString(),
  data: { tunnel: 't', at: n, reason: null },
});

/** A holder's buffer: `fetch` answers as the `tunnel.scope` node call's `events` does (`EventHub.since`). */
function holder() {
  const buffer: McpPipeEvent[] = [];
  const asked: (string | undefined)[] = [];
  const fetch: FetchEvents = async (after) => {
    asked.push(after);
    if (after === undefined) return [...buffer];
    const at = buffer.findIndex((e) => e.id === after);
    return at === -1 ? [...buffer] : buffer.slice(at + 1);
  };
  return { buffer, asked, fetch };
}

const closers: (() => void)[] = [];
afterEach(() => closers.splice(0).forEach((c) => c()));

async function serve(feeds: RemoteEventFeeds, fetch: FetchEvents) {
  const server = http.createServer((req, res) =>
    feeds.open('t', res, { lastEventId: req.headers['last-event-id'], fetch }),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => (feeds.closeAll(), server.close()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

/** Reads a stream until `until(ids)` holds; resolves with the event ids read. */
function read(url: string, until: (ids: string[]) => boolean, last?: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: last ? { 'last-event-id': last } : {} }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => {
        text += c.toString();
        const ids = parseSse(text).flatMap((e) => (e.id === undefined ? [] : [e.id]));
        if (until(ids)) {
          req.destroy();
          resolve(ids);
        }
      });
    });
    req.on('error', reject);
    setTimeout(() => reject(new Error('timed out')), 5_000).unref();
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('RemoteEventFeeds', () => {
  it('streams the new events to every viewer with one ask per poll; the buffer before is not streamed', async () => {
    const h = holder();
    h.buffer.push(event(1), event(2));
    const feeds = new RemoteEventFeeds({ pollMs: 50 });
    const url = await serve(feeds, h.fetch);
    const readers = [0, 1, 2].map(() => read(url, (ids) => ids.includes(event(4).id)));
    await sleep(120);
    h.buffer.push(event(3), event(4));
    const got = await Promise.all(readers);
    for (const ids of got) expect(ids).toEqual([event(3).id, event(4).id]);
    // one feed: the asks resume from the last id seen, never one per viewer
    expect(h.asked[0]).toBeUndefined();
    const polls = h.asked.length;
    expect(polls).toBeGreaterThanOrEqual(2);
    expect(polls).toBeLessThan(8); // ~ elapsed / pollMs, not × 3 viewers
    expect(h.asked.slice(1).every((a) => a === event(2).id || a === event(4).id)).toBe(true);
  });

  it('Last-Event-ID replays the events after it from the mirror, an unknown id every one kept, then live', async () => {
    const h = holder();
    h.buffer.push(event(1), event(2), event(3));
    const feeds = new RemoteEventFeeds({ pollMs: 50 });
    const url = await serve(feeds, h.fetch);
    expect(await read(url, (ids) => ids.length >= 2, event(1).id)).toEqual([event(2).id, event(3).id]);
    expect(await read(url, (ids) => ids.length >= 3, 'evt_gone')).toEqual([1, 2, 3].map((n) => event(n).id));
    const later = read(url, (ids) => ids.length >= 2, event(2).id);
    await sleep(30);
    h.buffer.push(event(4));
    expect(await later).toEqual([event(3).id, event(4).id]);
  });

  it('a holder that resends its whole buffer (a new hub, or our id left it) streams each event once', async () => {
    const h = holder();
    h.buffer.push(event(1));
    let resend = false;
    const fetch: FetchEvents = async (after) => (resend ? [...h.buffer] : h.fetch(after));
    const feeds = new RemoteEventFeeds({ pollMs: 30 });
    const url = await serve(feeds, fetch);
    const reading = read(url, (ids) => ids.includes(event(3).id));
    await sleep(80);
    resend = true;
    h.buffer.push(event(2));
    await sleep(80);
    h.buffer.push(event(3));
    expect(await reading).toEqual([event(2).id, event(3).id]);
  });

  it('a holder that does not answer keeps the stream open; the next answer is streamed', async () => {
    const h = holder();
    let down = true;
    const fetch: FetchEvents = async (after) => (down ? undefined : h.fetch(after));
    const feeds = new RemoteEventFeeds({ pollMs: 30 });
    const url = await serve(feeds, fetch);
    const reading = read(url, (ids) => ids.length >= 1, 'evt_0000');
    await sleep(80);
    h.buffer.push(event(5));
    down = false;
    expect(await reading).toEqual([event(5).id]);
  });
});
