/**
 * Issue 20, the gaps of scale-out closed (DESIGN.md S1, S2, T2, T5), all real processes: one `redis-server` on a
 * random port, two `mcppipe-gateway` processes on different ports sharing it and serving one public URL (node
 * A's, as nodes behind one load balancer do), real tunnel clients and a real MCP server behind them.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createNetServer, connect as netConnect } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { MemoryOAuthProvider, fixturePath, processTreePids, waitFor } from '@mcppipe/test-utils';
import { approveAsOwner } from '@mcppipe/test-utils/oauth-flow';
import { connectTunnel, forwardToLoopback } from '@mcppipe/tunnel';
import type { TunnelClient } from '@mcppipe/tunnel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpcHeaders } from './gatewayProcess.js';
import type { RunningGateway } from './gatewayProcess.js';
import { startNodePair } from './tunnelStack.js';
import type { NodePair } from './tunnelStack.js';

const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
const PW = { alice: 'alice passphrase', bob: 'bob passphrase' };
const ADMIN = 'admin-token-for-the-e2e-scale-suite-0123456789';

/** The one public address: a TCP balancer whose backend the test steers (`to`), as sticky routing would. */
async function startBalancer() {
  const lb = { to: 0, port: 0, server: undefined as unknown as Server, sockets: new Set<Socket>() };
  lb.server = createNetServer((client) => {
    const upstream = netConnect({ host: '127.0.0.1', port: lb.to });
    for (const s of [client, upstream]) {
      lb.sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => (lb.sockets.delete(s), client.destroy(), upstream.destroy()));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => lb.server.listen(0, '127.0.0.1', r));
  lb.port = (lb.server.address() as AddressInfo).port;
  return lb;
}

/** POST tools/list (bounded: 10 s). */
async function list(url: string, token?: string) {
  const res = await fetch(url, {
    method: 'POST',
    headers: rpcHeaders(token),
    body: LIST,
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, headers: res.headers, body: await res.text() };
}

describe('two gateway nodes on one Redis: the per-node gaps closed (issue 20)', () => {
  let pair: NodePair;
  let loopback: ReturnType<typeof forwardToLoopback>;
  let a: RunningGateway;
  let b: RunningGateway;
  let lb: Awaited<ReturnType<typeof startBalancer>>;
  let publicUrl: string;
  let keys: Record<string, string>;
  const tunnels: TunnelClient[] = [];
  const tunnel = (via: RunningGateway, account: 'alice' | 'bob', subdomain: string, auth = 'api-key') => {
    const t = connectTunnel({
      relayUrl: `${via.url}/tunnel/connect`,
      apiKey: keys[account]!,
      subdomain,
      metadata: { auth },
      handler: (req, res) => loopback(req, res),
    });
    tunnels.push(t);
    return t;
  };

  beforeAll(async () => {
    lb = await startBalancer();
    publicUrl = `http://127.0.0.1:${lb.port}`;
    pair = await startNodePair({
      name: 'scale-gaps',
      accounts: PW,
      keys: { alice: ['alice', 'cli'], bob: ['bob', 'cli'] },
      // node B also runs a stdio server of its own: killing it is an event on node B only
      servers: { b: { probe: { command: process.execPath, args: [fixturePath('e2e-probe.mjs')] } } },
      env: { MCPPIPE_API_TOKEN: ADMIN, MCPPIPE_WEBHOOKS_ALLOW_PRIVATE: '1' },
      publicUrl,
    });
    ({ a, b, keys } = pair);
    loopback = forwardToLoopback({ port: pair.upstream.port });
    lb.to = b.port; // the agent's and the browser's requests land on node B
  }, 180_000);

  afterAll(async () => {
    await Promise.allSettled(tunnels.map((t) => t.close()));
    loopback?.close();
    await pair?.close();
    for (const s of lb?.sockets ?? []) s.destroy();
    lb?.server.close();
  });

  it('(1) a subdomain held on node A is refused to another account on node B with the permanent 409; the same account takes it over from B', async () => {
    const alice = tunnel(a, 'alice', 'shared');
    await alice.connected();
    const bob = tunnel(b, 'bob', 'shared');
    await expect(bob.connected()).rejects.toMatchObject({ code: 'MCPP_TUNNEL_SUBDOMAIN_TAKEN' });
    expect(bob.status.status).toBe('refused'); // the CLI stops retrying and says why
    expect(b.stderr()).not.toMatch(/"account":"bob"[^\n]*tunnel connected/);
    const viaB = await list(`${b.url}/t/shared--alice/mcp`, keys['alice']);
    expect(viaB.status, viaB.body).toBe(200);
    // the owner's webhook for the tunnel's connects and disconnects
    const received: string[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push((JSON.parse(body) as { type: string }).type);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const hook = await fetch(`${a.url}/api/tunnels/shared--alice/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys['alice']!}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
          events: ['tunnel.connected', 'tunnel.disconnected'],
        }),
        signal: AbortSignal.timeout(10_000),
      });
      expect(hook.status, await hook.text()).toBe(201);
      // the same account connecting through node B takes its subdomain over; A closes its stale connection
      const again = tunnel(b, 'alice', 'shared');
      await again.connected();
      await waitFor(() => alice.status.status !== 'connected', {
        timeoutMs: 15_000,
        intervalMs: 50,
        message: "node A closes alice's replaced connection (next heartbeat)",
      });
      const viaA = await list(`${a.url}/t/shared--alice/mcp`, keys['alice']);
      expect(viaA.status, viaA.body).toBe(200);
      expect(viaA.body).toContain('"echo"');
      // a move to another node is no disconnect: node B says connected, node A says nothing
      await waitFor(() => received.includes('tunnel.connected'), {
        timeoutMs: 10_000,
        message: 'the connect',
      });
      await new Promise((r) => setTimeout(r, 1_500)); // room for a wrong tunnel.disconnected from node A
      expect(received).toEqual(['tunnel.connected']);
    } finally {
      receiver.close();
    }
  }, 60_000);

  it('(2) an OAuth-mode tunnel held by node A is used through node B: PRM, 401 challenge, the whole OAuth flow and calls on B', async () => {
    const web = tunnel(a, 'alice', 'web', 'oauth');
    await web.connected();
    const resource = `${publicUrl}/t/web--alice/mcp`;
    const prmUrl = `${publicUrl}/.well-known/oauth-protected-resource/t/web--alice/mcp`;
    for (const gw of [a, b]) {
      const prm = await fetch(prmUrl.replace(publicUrl, gw.url), { signal: AbortSignal.timeout(10_000) });
      expect(prm.status).toBe(200);
      expect(((await prm.json()) as { resource: string }).resource).toBe(resource);
      const none = await list(resource.replace(publicUrl, gw.url));
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toContain(`resource_metadata="${prmUrl}"`);
    }
    // through the public address, steered to node B: discovery, registration, authorization, token, MCP
    const oauth = new MemoryOAuthProvider('two-node tunnel agent');
    const first = new StreamableHTTPClientTransport(new URL(resource), { authProvider: oauth });
    await expect(new Client({ name: 'scale-v2', version: '1' }).connect(first)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    const authUrl = oauth.authorizationUrl!;
    expect(authUrl.origin).toBe(publicUrl);
    expect(authUrl.searchParams.get('resource')).toBe(resource);
    const callback = await approveAsOwner(authUrl, PW.alice);
    await first.finishAuth(callback.searchParams);
    const client = new Client({ name: 'scale-v2', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider: oauth }));
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('echo');
    await client.close();
    expect(b.stderr()).not.toMatch(/"subdomain":"web"[^\n]*tunnel connected/);
    expect(a.stderr()).toMatch(/"subdomain":"web"[^\n]*tunnel connected/);
    // the same token on the owner node
    const viaA = await list(resource.replace(publicUrl, a.url), oauth.current!.access_token);
    expect(viaA.status, viaA.body).toBe(200);
  }, 90_000);

  it('(3) a dashboard login on node A is valid on node B (cookie + CSRF); a logout on B ends it on A', async () => {
    const login = await fetch(`${a.url}/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ account: 'alice', password: PW.alice }),
      signal: AbortSignal.timeout(10_000),
    });
    expect(login.status).toBe(200);
    const { csrf } = (await login.json()) as { csrf: string };
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const session = (gw: RunningGateway, init: RequestInit = {}) =>
      fetch(`${gw.url}/api/session`, { ...init, headers: { cookie, ...(init.headers as object) } });
    const onB = await session(b);
    expect(onB.status).toBe(200);
    expect(await onB.json()).toEqual({ account: 'alice', csrf });
    expect((await session(b, { method: 'DELETE' })).status).toBe(403); // no CSRF token
    expect((await session(a)).status).toBe(200);
    expect((await session(b, { method: 'DELETE', headers: { 'x-csrf-token': csrf } })).status).toBe(204);
    expect((await session(a)).status).toBe(401);
    expect((await session(b)).status).toBe(401);
  });

  it('(4) a webhook registered through node A is delivered once, by node B, for an event on B; a pin accepted on A is read on B', async () => {
    const received: Array<{ id: string; type: string }> = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push(JSON.parse(body) as { id: string; type: string });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const api = (gw: RunningGateway, path: string, init: RequestInit = {}) =>
        fetch(`${gw.url}${path}`, {
          ...init,
          headers: {
            authorization: `Bearer ${ADMIN}`,
            ...(init.body !== undefined && { 'content-type': 'application/json' }),
          },
          signal: AbortSignal.timeout(10_000),
        });
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const created = await api(a, '/api/webhooks', {
        method: 'POST',
        body: JSON.stringify({ url, events: ['upstream.state_changed'] }),
      });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      await waitFor(async () => JSON.stringify(await (await api(b, '/api/webhooks')).json()).includes(id), {
        timeoutMs: 5_000,
        intervalMs: 20,
        message: 'node B knows the webhook registered on node A',
      });
      // an event on node B only: its own stdio server dies (and is restarted)
      const probePid = processTreePids(b.proc.pid!).find((pid) =>
        readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('e2e-probe'),
      );
      process.kill(probePid!, 'SIGKILL');
      await waitFor(() => received.length > 0, { timeoutMs: 15_000, message: 'a delivery' });
      await new Promise((r) => setTimeout(r, 1_500)); // room for a wrong second delivery
      const logOf = async (gw: RunningGateway) =>
        (
          (await (await api(gw, `/api/webhooks/${id}/deliveries`)).json()) as {
            deliveries: { eventId: string }[];
          }
        ).deliveries;
      const byB = await logOf(b);
      expect(byB.length).toBeGreaterThan(0);
      expect(await logOf(a)).toEqual([]);
      expect(received.map((e) => e.id).sort()).toEqual(byB.map((d) => d.eventId).sort());
      expect(new Set(received.map((e) => e.id)).size).toBe(received.length);

      const tools = async (gw: RunningGateway) =>
        (
          (await (await api(gw, '/api/servers/modern/tools')).json()) as {
            tools: { name: string; pinnedAt: string }[];
          }
        ).tools.find((t) => t.name === 'echo');
      expect(await tools(a)).toBeDefined();
      await new Promise((r) => setTimeout(r, 20)); // a later pinnedAt than any initial pin
      const accepted = (await (
        await api(a, '/api/servers/modern/tools/echo/accept', { method: 'POST' })
      ).json()) as {
        pinnedAt: string;
      };
      await waitFor(async () => (await tools(b))?.pinnedAt === accepted.pinnedAt, {
        timeoutMs: 5_000,
        intervalMs: 20,
        message: 'node B reads the pin accepted on node A',
      });
    } finally {
      await new Promise((r) => receiver.close(r));
    }
  }, 60_000);
});
