/**
 * Webhooks and pins over a store shared by two nodes (S1): a store with `watch` (as the gateway's Redis one) makes
 * each node's deliverer and pins re-read what the other node wrote. The two "nodes" here are two deliverers (two
 * pin sets) over one in-memory document map whose writes are announced to every watcher, as Redis pub/sub does.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolPins } from './pins.js';
import type { EventsStore } from './store.js';
import { WebhookDeliverer } from './webhooks.js';

/** One shared document map; each node's view announces its writes to every node's watchers. */
function sharedStore() {
  const docs = new Map<string, string>();
  const watchers = new Set<(key: string) => void>();
  const view = (): EventsStore => ({
    read: async (key) => (docs.has(key) ? JSON.parse(docs.get(key)!) : undefined),
    write: async (key, value) => {
      docs.set(key, JSON.stringify(value));
      for (const fn of [...watchers]) fn(key);
    },
    watch: async (fn) => {
      watchers.add(fn);
      return async () => void watchers.delete(fn);
    },
  });
  return { view, watchers };
}

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0)) await fn();
});

const settle = () => new Promise((r) => setTimeout(r, 20));

describe('webhooks and pins on a watched store (many nodes, S1)', () => {
  it('a subscription made on node A is delivered by node B for its own event, once; a removal on A reaches B; close stops watching', async () => {
    const bodies: string[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => (bodies.push(body), res.writeHead(204).end()));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanup.push(() => new Promise((r) => server.close(r)));
    const shared = sharedStore();
    const a = await WebhookDeliverer.open({ store: shared.view(), allowPrivate: true });
    const b = await WebhookDeliverer.open({ store: shared.view(), allowPrivate: true });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const { subscription } = await a.create({ url, events: ['tunnel.connected'] });
    await settle();
    expect(b.list()).toEqual([subscription]);
    const event = {
      id: 'evt_1',
      type: 'tunnel.connected' as const,
      timestamp: new Date().toISOString(),
      data: { tunnel: 'laptop--alice', at: 1, reason: null },
    };
    b.dispatch(event);
    await b.idle();
    await a.idle();
    expect(bodies.map((x) => (JSON.parse(x) as { id: string }).id)).toEqual(['evt_1']);
    expect(b.deliveries(subscription.id)).toHaveLength(1);
    expect(a.deliveries(subscription.id)).toEqual([]);
    await a.remove(subscription.id);
    await settle();
    expect(b.list()).toEqual([]);
    a.close();
    b.close();
    await settle();
    expect(shared.watchers.size).toBe(0);
  });

  it('a pin accepted on node A is read on node B', async () => {
    const shared = sharedStore();
    const a = await ToolPins.open({ store: shared.view() });
    const b = await ToolPins.open({ store: shared.view() });
    const v1 = [{ name: 'echo', description: 'v1' }];
    const v2 = [{ name: 'echo', description: 'v2' }];
    a.observe('srv', v1);
    await settle();
    expect(b.list('srv')).toEqual(a.list('srv'));
    a.observe('srv', v2);
    await settle();
    expect(b.list('srv')[0]!.changed).toBe(true);
    const accepted = a.accept('srv', 'echo');
    await settle();
    expect(b.list('srv')).toEqual([accepted]);
    expect(accepted.changed).toBe(false);
  });
});
