import { TunnelScopes, type TunnelSummary } from '@mcppipe/events';
import type { TunnelOwner } from '@mcppipe/tunnel';
import { describe, expect, it } from 'vitest';
import { heldSummaries, mergeTunnelLists, summaryOfOwner, withSavedAuth } from './tunnelList.js';

const summary = (id: string, connected: boolean, extra: Partial<TunnelSummary> = {}): TunnelSummary => {
  const [subdomain, account] = id.split('--') as [string, string];
  return {
    id,
    subdomain,
    account,
    publicUrl: `https://${id}.tunnel.test/mcp`,
    connected,
    connectedAt: '2026-12-02T00:00:00.000Z',
    auth: 'api-key',
    zeroKnowledge: false,
    upstreams: 0,
    ...extra,
  };
};

describe('mergeTunnelLists', () => {
  it("adds the account's tunnels other nodes hold, each id once, sorted", () => {
    const local = [summary('b--alice', true), summary('d--alice', false)];
    const remote = [summary('c--alice', true, { upstreams: 2 }), summary('a--alice', true)];
    expect(mergeTunnelLists('alice', local, remote).map((t) => [t.id, t.connected, t.upstreams])).toEqual([
      ['a--alice', true, 0],
      ['b--alice', true, 0],
      ['c--alice', true, 2],
      ['d--alice', false, 0],
    ]);
  });

  it("a stale local entry gives way to the holder's; a tunnel held here keeps this node's", () => {
    const local = [summary('x--alice', false, { upstreams: 1 }), summary('y--alice', true, { upstreams: 3 })];
    const remote = [
      summary('x--alice', true, { upstreams: 2 }),
      summary('y--alice', true, { upstreams: 9 }),
      summary('x--alice', true, { upstreams: 2 }),
    ];
    expect(mergeTunnelLists('alice', local, remote).map((t) => [t.id, t.connected, t.upstreams])).toEqual([
      ['x--alice', true, 2],
      ['y--alice', true, 3],
    ]);
  });

  it("never lists another account's tunnel, local or remote", () => {
    const local = [summary('a--bob', true)];
    const remote = [summary('b--bob', true), summary('c--alice', true)];
    expect(mergeTunnelLists('alice', local, remote).map((t) => t.id)).toEqual(['c--alice']);
    expect(mergeTunnelLists('carol', local, remote)).toEqual([]);
  });
});

describe('summaryOfOwner', () => {
  it('lists a tunnel from its owner record as connected, with its connect time, auth and zero-knowledge flag', () => {
    const owner: TunnelOwner = {
      node: 'n1',
      url: 'http://10.0.0.1:3100',
      tunnelId: 'c1',
      account: 'alice',
      subdomain: 'lap',
      keyId: 'key_1',
      metadata: { auth: 'none' },
      zeroKnowledge: true,
      connectedAt: Date.parse('2026-12-02T07:00:00.000Z'),
    };
    expect(summaryOfOwner(owner, 'https://lap--alice.z/mcp')).toEqual({
      id: 'lap--alice',
      subdomain: 'lap',
      account: 'alice',
      publicUrl: 'https://lap--alice.z/mcp',
      connected: true,
      connectedAt: '2026-12-02T07:00:00.000Z',
      auth: 'none',
      zeroKnowledge: true,
      upstreams: 0,
    });
    // a record written by an older node: no flag, no connect time
    const older = { ...owner, metadata: {}, zeroKnowledge: undefined, connectedAt: undefined };
    expect(summaryOfOwner(older, '')).toMatchObject({
      auth: 'oauth',
      zeroKnowledge: false,
      connectedAt: '1970-01-01T00:00:00.000Z',
    });
  });
});

describe('heldSummaries', () => {
  it("answers the connected tunnels asked for, of the caller's account only; 400 for a bad payload", () => {
    const scopes = new TunnelScopes();
    const connect = (subdomain: string, account: string) =>
      scopes.connected({
        id: `${subdomain}--${account}`,
        subdomain,
        account,
        publicUrl: `https://${subdomain}--${account}.z/mcp`,
        auth: 'api-key',
        zeroKnowledge: false,
        servesScope: false,
        connectedAt: 0,
        request: () => Promise.reject(new Error('unused')),
      });
    connect('a', 'alice');
    connect('b', 'alice');
    connect('c', 'bob');
    scopes.disconnected({ id: 'b--alice', at: 1, reason: null });
    const out = heldSummaries(scopes, { account: 'alice', ids: ['a--alice', 'b--alice', 'c--bob'] });
    expect(out.status).toBe(200);
    expect((out.body as { tunnels: TunnelSummary[] }).tunnels.map((t) => t.id)).toEqual(['a--alice']);
    expect(heldSummaries(scopes, { account: 'bob', ids: ['a--alice'] }).body).toEqual({ tunnels: [] });
    expect(heldSummaries(scopes, { account: 'alice' }).status).toBe(400);
    expect(heldSummaries(scopes, null).status).toBe(400);
    scopes.close();
  });
});

describe('withSavedAuth', () => {
  it('lists the auth mode saved in the settings over the connect-time one; unsaved ones keep theirs', () => {
    const saved: Record<string, string> = { 'a--alice': 'oauth' };
    const list = [summary('a--alice', true), summary('b--alice', false)];
    expect(withSavedAuth(list, (id) => saved[id]).map((t) => [t.id, t.auth])).toEqual([
      ['a--alice', 'oauth'],
      ['b--alice', 'api-key'],
    ]);
  });
});
