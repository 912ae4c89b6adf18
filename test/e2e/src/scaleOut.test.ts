/**
 * Many gateway nodes over one Redis (issue 20; DESIGN.md S1, S2), all real processes: one `redis-server`, two
 * `mcppipe-gateway` processes on different ports sharing it, a real MCP server behind a real tunnel client, and a
 * tiny in-test TCP load balancer in front of both nodes for the tunnel's connect URL (it tries node A first and
 * falls back to node B when A refuses the connection, as a load balancer's health check would).
 */
import { createServer, connect } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { join } from 'node:path';
import { freePort, startRedis, waitFor } from '@mcppipe/test-utils';
import type { RunningRedis } from '@mcppipe/test-utils';
import { connectTunnel, forwardToLoopback } from '@mcppipe/tunnel';
import type { TunnelClient } from '@mcppipe/tunnel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayCommand, rpcHeaders } from './gatewayProcess.js';
import type { RunningGateway } from './gatewayProcess.js';
import { startNodePair } from './tunnelStack.js';
import type { NodePair } from './tunnelStack.js';

const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

/** POST tools/list; every request is bounded (5 s), so a hang fails the test instead of stalling it. */
async function list(url: string, key?: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: rpcHeaders(key),
    body: LIST,
    signal: AbortSignal.timeout(5_000),
  });
  return { status: res.status, body: await res.text() };
}

/**
 * A TCP load balancer: each connection goes to the first backend that accepts it. Nagle is off on both sockets (as
 * in Caddy or nginx): with it on, a small write held behind an unacknowledged one waits for the peer's 40 ms delayed
 * ACK (bench R9's "72 ms per call").
 */
function startBalancer(ports: number[]): Promise<{ port: number; server: Server; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer({ noDelay: true }, (client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    client.pause();
    const attempt = (i: number): void => {
      if (i >= ports.length) return void client.destroy();
      const upstream = connect({ host: '127.0.0.1', port: ports[i]!, noDelay: true });
      upstream.once('error', () => attempt(i + 1));
      upstream.once('connect', () => {
        sockets.add(upstream);
        upstream.on('close', () => {
          sockets.delete(upstream);
          client.destroy();
        });
        upstream.on('error', () => {});
        client.on('close', () => upstream.destroy());
        client.pipe(upstream).pipe(client);
        client.resume();
      });
    };
    attempt(0);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ port: (server.address() as AddressInfo).port, server, sockets }),
    ),
  );
}

describe('two gateway nodes sharing one Redis: tunnels (S2)', () => {
  let pair: NodePair;
  let dir: string;
  let redis: RunningRedis;
  let a: RunningGateway;
  let b: RunningGateway;
  let lb: Awaited<ReturnType<typeof startBalancer>>;
  let loopback: ReturnType<typeof forwardToLoopback>;
  let tunnel: TunnelClient;
  let ownerKey: string;
  let agentKey: string;
  let agentKeyId: string;

  beforeAll(async () => {
    pair = await startNodePair({
      name: 'scale',
      accounts: { alice: 'alice pw' },
      keys: { owner: ['alice', 'laptop'], agent: ['alice', 'agent'] },
    });
    ({ dir, redis, a, b } = pair);
    ownerKey = pair.keys['owner']!;
    agentKey = pair.keys['agent']!;
    agentKeyId = pair.keyIds['agent']!;
    loopback = forwardToLoopback({ port: pair.upstream.port });
    lb = await startBalancer([a.port, b.port]);
    tunnel = connectTunnel({
      relayUrl: `http://127.0.0.1:${lb.port}/tunnel/connect`,
      apiKey: ownerKey,
      subdomain: 'laptop',
      metadata: { auth: 'api-key' },
      handler: (req, res) => loopback(req, res),
    });
    await tunnel.connected();
  }, 120_000);

  afterAll(async () => {
    await tunnel?.close().catch(() => {});
    loopback?.close();
    for (const s of lb?.sockets ?? []) s.destroy();
    lb?.server.close();
    await pair?.close();
  });

  it('a tunnel connected to node A is reached through node B (and through A)', async () => {
    await a.waitForLog(/tunnel connected/);
    expect(b.stderr()).not.toMatch(/tunnel connected/);
    const viaB = await list(`${b.url}/t/laptop--alice/mcp`, agentKey);
    expect(viaB.status, viaB.body).toBe(200);
    expect(viaB.body).toContain('"echo"');
    const viaA = await list(`${a.url}/t/laptop--alice/mcp`, agentKey);
    expect(viaA.status).toBe(200);
    expect(viaA.body).toBe(viaB.body);
    // node B checks the tunnel's policy before forwarding: no key, no forwarding
    expect((await list(`${b.url}/t/laptop--alice/mcp`)).status).toBe(401);
  });

  it('the node-to-node listener refuses a request without the node secret', async () => {
    const nodeUrl = /node link listening on (http:\/\/\S+?)"/.exec(a.stderr())![1]!;
    const { connect: h2connect } = await import('node:http2');
    const session = h2connect(nodeUrl);
    const status = await new Promise<number>((resolve, reject) => {
      const req = session.request({ ':method': 'POST', ':path': '/mcp', 'x-mcppipe-node-secret': 'wrong' });
      req.on('response', (h) => resolve(Number(h[':status'])));
      req.on('error', reject);
      req.end(LIST);
    });
    session.close();
    expect(status).toBe(401);
  });

  it("a third node on node A's node port exits naming the address and --node-port, not as an unexpected error", async () => {
    const nodePort = /node link listening on http:\/\/127\.0\.0\.1:(\d+)"/.exec(a.stderr())![1]!;
    const r = await gatewayCommand(
      [
        ...['--config', join(dir, 'a.json'), '--data-dir', join(dir, 'c'), '--redis', redis.url],
        ...['--tunnel-zone', 'tunnel.test', '--port', String(await freePort()), '--node-port', nodePort],
      ],
      undefined,
      {
        MCPPIPE_NODE_SECRET: 'a third node with the same node secret as a and b',
        MCPPIPE_ADMIN_PASSWORD: 'x'.repeat(16),
      },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `mcppipe-gateway: cannot listen on 127.0.0.1:${nodePort}: the address is already in use; choose another with --node-port (or MCPPIPE_NODE_PORT)`,
    );
    expect(r.stderr).not.toContain('unexpected error');
  });

  it('a key revoked with `keys revoke --redis` is refused on node B within a second', async () => {
    expect((await list(`${b.url}/t/laptop--alice/mcp`, agentKey)).status).toBe(200);
    const revoked = await gatewayCommand([
      'keys',
      'revoke',
      agentKeyId,
      '--data-dir',
      join(dir, 'cmd'),
      '--redis',
      redis.url,
    ]);
    expect(revoked.code, revoked.stderr).toBe(0);
    const start = Date.now();
    await waitFor(async () => (await list(`${b.url}/t/laptop--alice/mcp`, agentKey)).status === 401, {
      timeoutMs: 5_000,
      intervalMs: 20,
      message: 'revoked key refused on node B',
    });
    expect(Date.now() - start).toBeLessThan(1_000);
    expect((await list(`${a.url}/t/laptop--alice/mcp`, agentKey)).status).toBe(401);
  });

  it('SIGKILL of node A: the tunnel reconnects to B and calls work again within the backoff; the gap is 503 tunnel_offline', async () => {
    const killedAt = Date.now();
    a.proc.kill('SIGKILL');
    const statuses = new Set<number>();
    await waitFor(
      async () => {
        const r = await list(`${b.url}/t/laptop--alice/mcp`, ownerKey);
        statuses.add(r.status);
        if (r.status === 503) expect(JSON.parse(r.body).error.data.reason).toBe('tunnel_offline');
        return r.status === 200 && r.body.includes('"echo"');
      },
      { timeoutMs: 30_000, intervalMs: 50, message: 'calls through node B after node A died' },
    );
    const failoverMs = Date.now() - killedAt;
    process.stderr.write(`scale-out failover after SIGKILL: ${failoverMs} ms\n`);
    // the first reconnect waits 1 s ±20 %; generous margin for a loaded machine
    expect(failoverMs).toBeLessThan(15_000);
    expect([...statuses].every((s) => s === 200 || s === 503 || s === 502)).toBe(true);
    await b.waitForLog(/tunnel connected/);
  });
});

describe('two gateway nodes sharing one Redis: rate limits and Redis restarts (S1)', () => {
  let pair: NodePair;
  let a: RunningGateway;
  let b: RunningGateway;

  beforeAll(async () => {
    pair = await startNodePair({ name: 'scale-rl', tunnels: false, env: { RATE_LIMIT_PER_MINUTE: '10' } });
    ({ a, b } = pair);
  }, 120_000);

  afterAll(async () => {
    const codes = await pair?.close();
    expect(codes, `${a?.stderr()}\n${b?.stderr()}`).toEqual([0, 0]);
  });

  it('a rate limit of 10/min holds across both nodes (10 pass, not 20)', async () => {
    const start = Date.now();
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await list(`${(i % 2 ? b : a).url}/hub`)).status);
    const passed = statuses.filter((s) => s !== 429).length;
    // one token refills every 6 s: after 5 s one more request may pass
    if (Date.now() - start < 5_000) expect(passed).toBe(10);
    else expect(passed).toBeLessThanOrEqual(11);
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
  });

  it('Redis restarted: refusals in the gap are clean 503s, the nodes reconnect, nothing crashes', async () => {
    const port = pair.redis.port;
    for (const gw of [a, b])
      expect(await (await fetch(`${gw.url}/readyz`)).json()).toEqual({ status: 'ready' });
    await pair.redis.stop();
    for (const gw of [a, b]) {
      const r = await list(`${gw.url}/hub`);
      expect(r.status).toBe(503);
      expect(JSON.parse(r.body).error.message).toMatch(/Redis/);
      // readiness says so (a load balancer takes the node out); liveness does not
      const ready = await fetch(`${gw.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(ready.headers.get('retry-after')).toBe('1');
      const body = (await ready.json()) as { status: string; error: string; message: string };
      expect(body).toMatchObject({ status: 'unavailable', error: 'MCPP_STORE_UNAVAILABLE' });
      expect(body.message).toMatch(/^the store's Redis at redis:\/\/127\.0\.0\.1:\d+ is unavailable \(/);
      expect((await fetch(`${gw.url}/livez`)).status).toBe(200);
    }
    pair.redis = await startRedis({ port });
    for (const gw of [a, b])
      await waitFor(async () => (await list(`${gw.url}/hub`)).status === 401, {
        timeoutMs: 15_000,
        intervalMs: 100,
        message: 'node serves again after Redis came back',
      });
    expect(a.proc.exitCode).toBeNull();
    expect(b.proc.exitCode).toBeNull();
    expect((await fetch(`${a.url}/livez`)).status).toBe(200);
    for (const gw of [a, b]) expect((await fetch(`${gw.url}/readyz`)).status).toBe(200);
  });
});
