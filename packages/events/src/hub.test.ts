import { VirtualClock } from '@mcppipe/upstream-state';
import { describe, expect, it } from 'vitest';
import { EventHub } from './hub.js';
import type { McpPipeEvent } from './types.js';

const tunnel = (n: number) => ({ tunnel: `t${n}`, at: n, reason: null });

describe('EventHub', () => {
  it('gives each event a unique, ordered id and an ISO timestamp', () => {
    const hub = new EventHub({ clock: new VirtualClock(Date.UTC(2026, 0, 2)) });
    const a = hub.publish('tunnel.connected', tunnel(1));
    const b = hub.publish('tunnel.disconnected', tunnel(2));
    expect(a).toMatchObject({
      type: 'tunnel.connected',
      timestamp: '2026-01-02T00:00:00.000Z',
      data: tunnel(1),
    });
    expect(a.id).toMatch(/^evt_[0-9a-f]{12}[0-9a-z]{8}$/);
    expect(b.id > a.id).toBe(true);
  });

  it('keeps a bounded buffer and replays the events after Last-Event-ID', () => {
    const hub = new EventHub({ bufferSize: 3 });
    const ids = [1, 2, 3, 4, 5].map((n) => hub.publish('tunnel.connected', tunnel(n)).id);
    expect(hub.buffered().map((e) => e.id)).toEqual(ids.slice(2));
    expect(hub.since(ids[3]).map((e) => e.data)).toEqual([tunnel(5)]);
    // an id that fell out of the buffer (or never was) replays all that is kept
    expect(hub.since(ids[0]).map((e) => e.id)).toEqual(ids.slice(2));
    expect(hub.since(undefined)).toEqual([]);
  });

  it('subscribes with replay then live events, filtered, and unsubscribes', () => {
    const hub = new EventHub();
    const first = hub.publish('tunnel.connected', tunnel(1));
    hub.publish('tunnel.disconnected', tunnel(2));
    hub.publish('tunnel.connected', tunnel(3));
    const seen: McpPipeEvent[] = [];
    const off = hub.subscribe((e) => seen.push(e), {
      lastEventId: first.id,
      filter: (e) => e.type === 'tunnel.connected',
    });
    hub.publish('tunnel.connected', tunnel(4));
    off();
    hub.publish('tunnel.connected', tunnel(5));
    expect(seen.map((e) => e.data)).toEqual([tunnel(3), tunnel(4)]);
    expect(hub.subscriberCount).toBe(0);
  });

  it('a throwing subscriber does not stop the others', () => {
    const hub = new EventHub();
    const seen: string[] = [];
    hub.subscribe(() => {
      throw new Error('boom');
    });
    hub.subscribe((e) => seen.push(e.type));
    hub.publish('tunnel.connected', tunnel(1));
    expect(seen).toEqual(['tunnel.connected']);
  });
});
