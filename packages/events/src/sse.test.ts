import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EventHub } from './hub.js';
import { openEventStream } from './sse.js';

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
