import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EventHub } from './hub.js';
import { openEventStream, openSseStream, type SseStream } from './sse.js';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0)) await fn();
});

async function serve(hub: EventHub, pingMs: number): Promise<string> {
  const server: Server = createServer((req, res) =>
    openEventStream(res, hub, { lastEventId: req.headers['last-event-id'], pingMs }),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanup.push(() => {
    server.closeAllConnections();
    return new Promise((r) => server.close(r));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

/** Opens the stream and collects its text until `until` matches it (generous deadline). */
function read(url: string, headers: Record<string, string>, until: (text: string) => boolean) {
  return new Promise<{ res: IncomingMessage; text: string }>((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
        if (until(text)) {
          req.destroy();
          resolve({ res, text });
        }
      });
    });
    req.on('error', reject);
    req.setTimeout(20_000, () => req.destroy(new Error('stream deadline')));
    req.end();
  });
}

describe('openEventStream', () => {
  it('sends id/event/data frames, resumes after Last-Event-ID and pings', async () => {
    const hub = new EventHub();
    const events = [1, 2, 3].map((n) =>
      hub.publish('tunnel.connected', { tunnel: `t${n}`, at: n, reason: null }),
    );
    const url = await serve(hub, 50);
    const { res, text } = await read(url, { 'last-event-id': events[0]!.id }, (t) => t.includes(': ping'));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache, no-store');
    const frames = text.split('\n\n').filter((f) => f.startsWith('id: '));
    expect(frames).toEqual(
      events.slice(1).map((e) => `id: ${e.id}\nevent: tunnel.connected\ndata: ${JSON.stringify(e)}`),
    );
  });

  it('streams live events and unsubscribes when the client leaves', async () => {
    const hub = new EventHub();
    const url = await serve(hub, 60_000);
    const pending = read(url, {}, (t) => t.includes('event: tunnel.disconnected'));
    const deadline = Date.now() + 20_000;
    while (hub.subscriberCount === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const live = hub.publish('tunnel.disconnected', { tunnel: 't', at: 1, reason: 'gone' });
    const { text } = await pending;
    expect(text).toContain(`id: ${live.id}\n`);
    while (hub.subscriberCount > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(hub.subscriberCount).toBe(0);
  });
});

describe('openSseStream (the one SSE writer)', () => {
  it('writes frames and Buffers, pings, and drops a client that falls behind by more than maxBufferedBytes', async () => {
    const streams: SseStream[] = [];
    const server: Server = createServer((_req, res) =>
      streams.push(openSseStream(res, { pingMs: 20, maxBufferedBytes: 64 * 1024 })),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanup.push(() => {
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const reading = read(url, {}, (t) => t.includes('data: two') && t.includes(': ping'));
    while (streams.length === 0) await new Promise((r) => setTimeout(r, 5));
    streams[0]!.write('event: x\ndata: one\n\n');
    streams[0]!.write(Buffer.from('event: x\ndata: two\n\n'));
    const { res, text } = await reading;
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(text.startsWith(': connected\n\nevent: x\ndata: one\n\nevent: x\ndata: two\n\n')).toBe(true);
    // a client that never reads: the writer closes the stream once its buffer passes the bound
    const stalled = request(url, () => {}); // the response is never consumed
    stalled.on('error', () => {});
    stalled.end();
    cleanup.push(() => stalled.destroy());
    while (streams.length < 2) await new Promise((r) => setTimeout(r, 5));
    const slow = streams[1]!;
    const frame = Buffer.alloc(16 * 1024, 'a');
    for (let i = 0; i < 1000 && !slow.ended; i++) slow.write(frame);
    expect(slow.ended).toBe(true);
    await slow.closed;
  });
});
