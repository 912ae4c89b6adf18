import type { McpPipeEvent } from '@mcppipe/events';
import { describe, expect, it } from 'vitest';
import { newestWithin, scopeCallOf, type ScopeCall } from './scopeCall.js';

const event = (n: number): McpPipeEvent => ({
  id: `evt_${n}`,
  type: 'tunnel.connected',
  timestamp: new Date(n).toISOString(),
  data: { tunnel: 't', at: n, reason: null },
});

describe('scopeCallOf', () => {
  it('reads back every request as it crossed the node link (JSON)', () => {
    const calls: ScopeCall[] = [
      { op: { op: 'upstreams' } },
      { op: { op: 'tools' } },
      { op: { op: 'reconnect', name: 'probe' } },
      { op: { op: 'accept', name: 'docs__search' } },
      { op: { op: 'events' } },
      { op: { op: 'events', after: 'evt_1' } },
      {
        op: { op: 'webhooks', webhook: { op: 'create', url: 'https://x.test/h', events: ['tool.changed'] } },
      },
      { op: { op: 'webhooks', webhook: { op: 'list' } } },
      { op: { op: 'webhooks', webhook: { op: 'remove', wid: 'wh_1' } } },
      { op: { op: 'webhooks', webhook: { op: 'deliveries', wid: 'wh_1' } } },
    ].map((c) => ({ tunnel: 'lap--alice', account: 'alice', ...c }) as ScopeCall);
    for (const call of calls) expect(scopeCallOf(JSON.parse(JSON.stringify(call)))).toEqual(call);
  });

  it('refuses what is not a request: no tunnel or account, an unknown op, a missing name or id', () => {
    const base = { tunnel: 'lap--alice', account: 'alice' };
    for (const bad of [
      null,
      { ...base, account: 5, op: { op: 'tools' } },
      { account: 'alice', op: { op: 'tools' } },
      { ...base, op: { op: 'settings' } },
      { ...base, op: { op: 'reconnect' } },
      { ...base, op: { op: 'events', after: 3 } },
      { ...base, op: { op: 'webhooks', webhook: { op: 'remove' } } },
      { ...base, op: { op: 'webhooks' } },
    ])
      expect(scopeCallOf(bad), JSON.stringify(bad)).toBeUndefined();
  });
});

describe('newestWithin', () => {
  it('keeps the newest events whose JSON fits, oldest first', () => {
    const events = [1, 2, 3, 4].map(event);
    const one = Buffer.byteLength(JSON.stringify(event(4)));
    expect(newestWithin(events, one * 2).map((e) => e.id)).toEqual(['evt_3', 'evt_4']);
    expect(newestWithin(events, one * 10)).toEqual(events);
    expect(newestWithin(events, one - 1)).toEqual([]);
    expect(newestWithin([], 100)).toEqual([]);
  });
});
