import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventHub } from '@mcppipe/events';
import { parseSse } from '@mcppipe/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { RemoteEventFeeds, type FetchEvents } from './remoteEvents.js';

/**
 * The holding node: a real `EventHub`, asked as the `tunnel.scope` node call's `events` op asks it (`scopeAnswer`:
 * the whole buffer without an id, else `since`); `publish()` returns the event it published.
 */
function holder() {
  const hub = new EventHub();
  const asked: (string | undefined)[] = [];
  const publish = () => hub.publish('tunnel.connected', { tunnel: 't', at: Date.now(), reason: null });
  const fetch: FetchEvents = async (after) => {
    asked.push(after);
    return after === undefined ? hub.buffered() : hub.since(after);
  };
  return { hub, asked, publish, fetch };
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
    h.publish();
    const e2 = h.publish();
    const feeds = new RemoteEventFeeds({ pollMs: 50 });
    const url = await serve(feeds, h.fetch);
    const readers = [0, 1, 2].map(() => read(url, (ids) => ids.length >= 2));
    await sleep(120);
    const [e3, e4] = [h.publish(), h.publish()];
    const got = await Promise.all(readers);
    for (const ids of got) expect(ids).toEqual([e3.id, e4.id]);
    // one feed: the asks resume from the last id seen, never one per viewer
    expect(h.asked[0]).toBeUndefined();
    const polls = h.asked.length;
    expect(polls).toBeGreaterThanOrEqual(2);
    expect(polls).toBeLessThan(8); // ~ elapsed / pollMs, not × 3 viewers
    expect(h.asked.slice(1).every((a) => a === e2.id || a === e4.id)).toBe(true);
  });

  it('Last-Event-ID replays the events after it from the mirror, an unknown id every one kept, then live', async () => {
    const h = holder();
    const [e1, e2, e3] = [h.publish(), h.publish(), h.publish()];
    const feeds = new RemoteEventFeeds({ pollMs: 50 });
    const url = await serve(feeds, h.fetch);
    expect(await read(url, (ids) => ids.length >= 2, e1.id)).toEqual([e2.id, e3.id]);
    expect(await read(url, (ids) => ids.length >= 3, 'evt_gone')).toEqual([e1.id, e2.id, e3.id]);
    const later = read(url, (ids) => ids.length >= 2, e2.id);
    await sleep(30);
    const e4 = h.publish();
    expect(await later).toEqual([e3.id, e4.id]);
  });

  it('a holder that resends its whole buffer (a new hub, or our id left it) streams each event once', async () => {
    const h = holder();
    h.publish();
    let resend = false;
    const fetch: FetchEvents = async (after) => (resend ? h.hub.buffered() : h.fetch(after));
    const feeds = new RemoteEventFeeds({ pollMs: 30 });
    const url = await serve(feeds, fetch);
    const reading = read(url, (ids) => ids.length >= 2);
    await sleep(80);
    resend = true;
    const e2 = h.publish();
    await sleep(80);
    const e3 = h.publish();
    expect(await reading).toEqual([e2.id, e3.id]);
  });

  it('a holder that does not answer keeps the stream open; the next answer is streamed', async () => {
    const h = holder();
    let down = true;
    const fetch: FetchEvents = async (after) => (down ? undefined : h.fetch(after));
    const feeds = new RemoteEventFeeds({ pollMs: 30 });
    const url = await serve(feeds, fetch);
    const reading = read(url, (ids) => ids.length >= 1, 'evt_0000');
    await sleep(80);
    const e5 = h.publish();
    down = false;
    expect(await reading).toEqual([e5.id]);
  });
});
