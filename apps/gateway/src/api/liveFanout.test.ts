import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExchangeCapture, type ExchangeDetail, type RawExchange } from '@mcppipe/capture';
import { openFileStore, openRing } from '@mcppipe/store';
import { parseSse } from '@mcppipe/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { LiveFanout } from './liveFanout.js';

const raw = (i: number): RawExchange => {
  const req = Buffer.from(
    JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'a__b' } }),
  );
  const res = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: i, result: { content: [] } }));
  return {
    caller: 'k',
    zeroKnowledge: false,
    startedAt: Date.now(),
    durationMs: 1,
    httpStatus: 200,
    contentType: 'application/json',
    sessionId: undefined,
    replayHeaders: {},
    request: { bytes: req.length, truncated: false, chunks: [req] },
    response: { bytes: res.length, truncated: false, chunks: [res] },
  };
};

const closers: (() => void)[] = [];
afterEach(() => closers.splice(0).forEach((c) => c()));

/** A loopback server whose every request is a Live stream of tunnel `t`; counts the writes of each response. */
async function serve(live: LiveFanout) {
  const writes: number[] = [];
  const server = http.createServer((_req, res) => {
    const n = writes.push(0) - 1;
    const write = res.write.bind(res) as (c: unknown) => boolean;
    res.write = ((c: unknown) => (writes[n]!++, write(c))) as typeof res.write;
    live.open('t', res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return { url, writes };
}

function read(url: string, until: (text: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => {
        text += c.toString();
        if (until(text)) {
          req.destroy();
          resolve(text);
        }
      });
    });
    req.on('error', reject);
    setTimeout(() => reject(new Error('timed out')), 5_000).unref();
  });
}

describe('LiveFanout', () => {
  it('sends every exchange to every stream, frames of a batch in one write per stream', async () => {
    const capture = new ExchangeCapture();
    const live = new LiveFanout(capture, { flushMs: 50 });
    closers.push(() => live.closeAll());
    const { url, writes } = await serve(live);
    const readers = [0, 1, 2].map(() => read(url, (t) => (t.match(/event: exchange/g) ?? []).length === 20));
    while (writes.length < 3) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 50));
    const ids = Array.from({ length: 20 }, (_, i) => capture.record('t', raw(i))!.id);
    const texts = await Promise.all(readers);
    for (const text of texts) {
      expect(text.startsWith(': connected\n\n')).toBe(true);
      const events = parseSse(text);
      expect(events.map((e) => [e.id, e.event])).toEqual(ids.map((id) => [id, 'exchange']));
      expect(JSON.parse(events[0]!.data)).toMatchObject({
        id: ids[0],
        name: 'a__b',
        upstream: 'a',
        status: 'ok',
      });
    }
    expect(writes).toEqual([2, 2, 2]); // `: connected`, then the 20 frames together
  });

  it('unsubscribes from the capture when the last stream of a tunnel closes', async () => {
    let subscribed = 0;
    const capture = new ExchangeCapture();
    const watch = capture.watch.bind(capture);
    capture.watch = (tunnel, fn) => {
      subscribed++;
      const off = watch(tunnel, fn);
      return () => (subscribed--, off());
    };
    const live = new LiveFanout(capture, { flushMs: 10 });
    const { url } = await serve(live);
    await Promise.all([read(url, (t) => t.includes(':')), read(url, (t) => t.includes(':'))]);
    for (let i = 0; i < 50 && subscribed > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(subscribed).toBe(0);
    const again = read(url, (t) => t.includes('event: exchange'));
    while (subscribed === 0) await new Promise((r) => setTimeout(r, 10));
    expect(subscribed).toBe(1); // one subscription for the tunnel, however many streams
    capture.record('t', raw(1));
    expect(await again).toContain('"name":"a__b"');
    live.closeAll();
  });

  it('a burst larger than the ring between two flushes is streamed whole, in order (flushed before it evicts)', async () => {
    const capture = new ExchangeCapture({ maxExchanges: 10 });
    const live = new LiveFanout(capture, { flushMs: 60_000 }); // only the ring's bound flushes here
    closers.push(() => live.closeAll());
    const { url, writes } = await serve(live);
    const viewer = read(url, (t) => (t.match(/event: exchange/g) ?? []).length === 25);
    while (writes.length < 1) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 50));
    const ids = Array.from({ length: 25 }, (_, i) => capture.record('t', raw(i))!.id); // one turn: 25 > 10
    expect(parseSse(await viewer).map((e) => e.id)).toEqual(ids);
    expect(writes[0]).toBe(4); // `: connected`, then 10, 10 (the ring full), 5 (half the ring, the next turn)
  });

  it('a tunnel held by another node: one read of the shared ring per poll streams its new exchanges once', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcppipe-live-'));
    closers.push(() => void rm(dir, { recursive: true, force: true }));
    const store = await openFileStore({ dataDir: dir }); // its rings: one process's memory, shared by both captures
    const ring = () => openRing<ExchangeDetail>(store, 'exchanges', { maxCount: 100, maxBytes: 1 << 20 });
    const holder = new ExchangeCapture({ shared: ring(), sharedWrites: { flushMs: 5 } });
    const here = new ExchangeCapture({ shared: ring() });
    let reads = 0;
    const listShared = here.listShared.bind(here);
    here.listShared = (tunnel, filter) => (reads++, listShared(tunnel, filter));
    const before = holder.record('t', raw(0))!.id; // before the viewers: not streamed
    await holder.flushShared();
    let heldHere = false;
    const live = new LiveFanout(here, { flushMs: 5, pollMs: 40, held: () => heldHere });
    closers.push(() => live.closeAll());
    const { url } = await serve(live);
    const readers = [0, 1].map(() => read(url, (t) => (t.match(/event: exchange/g) ?? []).length === 3));
    while (reads === 0) await new Promise((r) => setTimeout(r, 10));
    const ids = [1, 2, 3].map((i) => holder.record('t', raw(i))!.id);
    for (const text of await Promise.all(readers)) expect(parseSse(text).map((e) => e.id)).toEqual(ids); // in order, once each, not `before`
    expect(ids).not.toContain(before);
    await new Promise((r) => setTimeout(r, 100)); // both viewers closed: the feed stops reading
    const closed = reads;
    await new Promise((r) => setTimeout(r, 200));
    expect(reads).toBe(closed);
    const viewer = read(url, (t) => t.includes('event: exchange'));
    await new Promise((r) => setTimeout(r, 400));
    expect(reads - closed).toBeGreaterThanOrEqual(2); // about one read per 40 ms while someone watches
    expect(reads - closed).toBeLessThanOrEqual(12);
    heldHere = true; // the tunnel moved here: this node's capture streams it, the ring is no longer read
    await new Promise((r) => setTimeout(r, 100));
    const idle = reads;
    await new Promise((r) => setTimeout(r, 200));
    expect(reads).toBe(idle);
    const local = here.record('t', raw(9))!.id;
    expect(parseSse(await viewer).map((e) => e.id)).toEqual([local]);
    await store.close();
  });

  it('a burst larger than one small read between two polls is read once more and streamed whole, in order', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcppipe-live-'));
    closers.push(() => void rm(dir, { recursive: true, force: true }));
    const store = await openFileStore({ dataDir: dir });
    const ring = () => openRing<ExchangeDetail>(store, 'exchanges', { maxCount: 100, maxBytes: 1 << 20 });
    const holder = new ExchangeCapture({ shared: ring() });
    const here = new ExchangeCapture({ shared: ring() });
    const limits: Array<number | undefined> = [];
    const listShared = here.listShared.bind(here);
    here.listShared = (tunnel, filter) => (limits.push(filter?.limit), listShared(tunnel, filter));
    for (let i = 0; i < 12; i++) holder.record('t', raw(i)); // before the viewer
    await holder.flushShared();
    const live = new LiveFanout(here, { flushMs: 5, pollMs: 150, held: () => false });
    closers.push(() => live.closeAll());
    const { url } = await serve(live);
    const viewer = read(url, (t) => (t.match(/event: exchange/g) ?? []).length === 15);
    while (limits.length === 0) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 20)); // the first read marked the 12 (10 read: a full small read)
    const ids = Array.from({ length: 15 }, (_, i) => holder.record('t', raw(100 + i))!.id);
    await holder.flushShared();
    expect(parseSse(await viewer).map((e) => e.id)).toEqual(ids);
    expect(limits.slice(0, 3)).toEqual([10, 10, 50]); // the mark, then the burst: 10 without the mark, so 50
    await store.close();
  });
});
