import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EventHub } from './hub.js';
import { serveEventScope, type LocalEventScope, type ScopeRequester } from './remote.js';
import { TunnelScopes } from './tunnelScopes.js';
import type { McpPipeEvent } from './types.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A CLI-side scope on a real loopback server, and a requester that reaches it as `Tunnel.request` would. */
async function cliScope(): Promise<{ hub: EventHub; request: ScopeRequester; accepted: string[] }> {
  const hub = new EventHub();
  const accepted: string[] = [];
  const scope: LocalEventScope = {
    hub,
    upstreams: () => [
      {
        name: 'files',
        phase: 'available',
        lastChange: new Date(0).toISOString(),
        lastError: null,
        tools: 2,
        changedTools: 0,
      },
    ],
    tools: async () => ({ hold: true, tools: [] }),
    reconnect: async (name) => (name === 'files' ? { name, phase: 'connecting' } : undefined),
    accept: (name) => {
      accepted.push(name);
      return undefined;
    },
  };
  const served = serveEventScope(scope);
  const server = createServer((req, res) => {
    if (!served.handle(req, res)) res.writeHead(418).end();
  });
  server.on('close', () => served.close());
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const request: ScopeRequester = ({ method, path, headers }) =>
    new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, method: method ?? 'GET', path, headers });
      req.on('response', (res) => resolve({ status: res.statusCode ?? 0, stream: res }));
      req.on('error', reject);
      req.end();
    });
  return { hub, request, accepted };
}

const connection = (request: ScopeRequester, zeroKnowledge = false) => ({
  id: 'laptop--alice',
  subdomain: 'laptop',
  account: 'alice',
  publicUrl: 'https://laptop--alice.zone/mcp',
  auth: 'oauth',
  zeroKnowledge,
  servesScope: true,
  connectedAt: 1_000,
  request,
});

describe('the tunnel event scope (/.mcppipe/*)', () => {
  it('answers only the relay: without its header every scope path is 404, other paths pass', async () => {
    const { request } = await cliScope();
    const bare = await new Promise<number>((resolve) => {
      void request({ path: '/.mcppipe/upstreams' }).then(({ status, stream }) => {
        stream.resume();
        resolve(status);
      });
    });
    expect(bare).toBe(404);
    const other = await request({ path: '/mcp', headers: { 'x-mcppipe-relay': '1' } });
    other.stream.resume();
    expect(other.status).toBe(418);
  });

  it('republishes the CLI events with the tunnel id, passes calls through and scopes by owner', async () => {
    const { hub, request, accepted } = await cliScope();
    const scopes = new TunnelScopes({ refollowMs: 50 });
    const seen: McpPipeEvent[] = [];
    scopes.connected(connection(request));
    const scope = scopes.get('laptop--alice', 'alice')!;
    scope.hub.subscribe((e) => seen.push(e));
    expect(scopes.get('laptop--alice', 'bob')).toBeUndefined();
    expect(scope.hub.buffered().map((e) => e.type)).toEqual(['tunnel.connected']);
    await expect.poll(() => hub.subscriberCount).toBe(1);
    hub.publish('upstream.state_changed', {
      tunnel: null,
      upstream: 'files',
      from: 'available',
      to: 'recovering',
      at: 5,
      error: 'exited',
      downtimeMs: null,
    });
    await expect.poll(() => seen.length).toBe(1);
    expect(seen[0]).toMatchObject({
      type: 'upstream.state_changed',
      data: { tunnel: 'laptop--alice', upstream: 'files', to: 'recovering' },
    });
    expect(await scope.upstreams()).toEqual([expect.objectContaining({ name: 'files', tools: 2 })]);
    await expect.poll(() => scopes.list('alice')[0]?.upstreams).toBe(1);
    expect(await scope.call('POST', '/upstreams/files/reconnect')).toEqual({
      status: 200,
      body: { name: 'files', phase: 'connecting' },
    });
    expect((await scope.call('POST', '/upstreams/nope/reconnect')).status).toBe(404);
    expect((await scope.call('POST', '/tools/files__read/accept')).status).toBe(404);
    expect(accepted).toEqual(['files__read']);
    // a scope whose hold is fixed (no `hold`) answers the relay's setting 404
    expect((await scope.call('POST', '/tools/hold/on')).status).toBe(404);

    // the stream ends (the CLI dropped it): the relay re-follows from the last id, nothing repeated
    for (const s of servers) s.closeAllConnections();
    await expect.poll(() => hub.subscriberCount, { timeout: 5_000 }).toBe(1);
    hub.publish('tool.changed', { tunnel: null, upstream: 'files', tool: 'read', before: 'a', after: 'b' });
    await expect.poll(() => seen.length).toBe(2);
    expect(seen.map((e) => e.type)).toEqual(['upstream.state_changed', 'tool.changed']);

    scopes.disconnected({
      id: 'laptop--alice',
      at: 9,
      reason: 'gone',
      request: async () => Promise.reject(),
    });
    expect(scopes.list('alice')[0]?.connected).toBe(true); // a stale connection's close is ignored
    scopes.disconnected({ id: 'laptop--alice', at: 9, reason: 'gone', request });
    expect(scopes.list('alice')).toEqual([
      expect.objectContaining({ id: 'laptop--alice', connected: false }),
    ]);
    expect(seen.at(-1)).toMatchObject({ type: 'tunnel.disconnected', data: { reason: 'gone', at: 9 } });
    expect(await scope.upstreams()).toEqual([]);
    scopes.close();
  });

  it('a connection closed because it moved to another node is not a disconnect: no tunnel.disconnected', async () => {
    const { request } = await cliScope();
    const scopes = new TunnelScopes({ refollowMs: 50 });
    scopes.connected(connection(request));
    const hub = scopes.get('laptop--alice', 'alice')!.hub;
    scopes.disconnected({ id: 'laptop--alice', at: 9, reason: 'replaced', request, replaced: true });
    expect(scopes.list('alice')).toEqual([
      expect.objectContaining({ id: 'laptop--alice', connected: false }),
    ]);
    expect(hub.buffered().map((e) => e.type)).toEqual(['tunnel.connected']);
    scopes.close();
  });

  it('a zero-knowledge tunnel exposes nothing: empty lists, calls 404', async () => {
    const { request, hub } = await cliScope();
    const scopes = new TunnelScopes();
    scopes.connected(connection(request, true));
    const scope = scopes.get('laptop--alice', 'alice')!;
    expect(await scope.upstreams()).toEqual([]);
    expect(await scope.tools()).toEqual({ hold: false, tools: [] });
    expect((await scope.call('POST', '/upstreams/files/reconnect')).status).toBe(404);
    expect(hub.subscriberCount).toBe(0);
    scopes.close();
  });
});
