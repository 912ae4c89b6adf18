/**
 * Issues 18 + 20, a tunnel's events API on a node that does not hold it (DESIGN.md S2, E2–E4), all real processes:
 * one `redis-server` on a random port, two `mcppipe-gateway` processes sharing it, a real `mcppipe up --tunnel`
 * with two real stdio upstreams held by node A; the API is called on node B with the owner's API key. B lists the
 * tunnel, answers its Upstreams and Tools sections and its webhooks as A does, streams its events (a SIGKILLed
 * upstream's state changes, `Last-Event-ID` resume); another account gets the same 404 on B.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { fixturePath, readSse, waitFor } from '@mcppipe/test-utils';
import type { RunningCli, SseEvent } from '@mcppipe/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from './gatewayProcess.js';
import { node, nodeApi, scopeRoutes, startNodePair, startTunnelCli } from './tunnelStack.js';
import type { NodePair } from './tunnelStack.js';

const TUNNEL = 'evts--alice';

interface Evt {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

describe('two gateway nodes on one Redis: the events API of a tunnel on the node that does not hold it (issue 20)', () => {
  let pair: NodePair;
  let a: RunningGateway;
  let b: RunningGateway;
  let cli: RunningCli;
  let keys: Record<string, string>;
  const alice = (gw: RunningGateway, path: string, init?: RequestInit) =>
    nodeApi(gw, path, keys['alice']!, init);

  /** Reads the tunnel's event stream on B until `until(events)`; each frame's id and type are its event's. */
  async function streamOnB(
    headers: Record<string, string>,
    until: (events: Evt[]) => boolean,
    onOpen: () => unknown = () => {},
  ): Promise<Evt[]> {
    const parsed = (frames: SseEvent[]) =>
      frames.filter((f) => f.data !== '').map((f) => ({ frame: f, event: JSON.parse(f.data) as Evt }));
    const frames = await readSse(`${b.url}/api/tunnels/${TUNNEL}/upstreams/stream`, {
      headers: { authorization: `Bearer ${keys['alice']}`, ...headers },
      until: (f) => until(parsed(f).map((p) => p.event)),
      onOpen: async (res) => {
        expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
        await onOpen();
      },
      timeoutMs: 45_000,
    });
    return parsed(frames).map(({ frame, event }) => {
      expect([frame.id, frame.event]).toEqual([event.id, event.type]);
      return event;
    });
  }

  beforeAll(async () => {
    pair = await startNodePair({
      name: 'scale-events',
      accounts: { alice: 'alice pw', bob: 'bob pw' },
      keys: { alice: ['alice', 'cli'], bob: ['bob', 'cli'] },
      env: { MCPPIPE_WEBHOOKS_ALLOW_PRIVATE: '1' },
    });
    ({ a, b, keys } = pair);
    cli = await startTunnelCli({
      gateway: a.url,
      apiKey: keys['alice']!,
      subdomain: 'evts',
      auth: 'none',
      stdio: { probe: node(fixturePath('e2e-probe.mjs')), docs: node(fixturePath('evt-rug-pull.mjs')) },
      timeoutMs: 60_000,
    });
  }, 180_000);

  afterAll(async () => {
    await cli?.stop();
    await pair?.close();
  });

  it("node B lists node A's tunnel once, connected, as node A does; bob's key does not see it", async () => {
    const listed = async (gw: RunningGateway, key = keys['alice']!) =>
      (await nodeApi(gw, '/api/tunnels', key)).body['tunnels'] as Array<Record<string, unknown>>;
    // the holder counts the upstreams once the CLI answered; B sees A's record by its next heartbeat
    await waitFor(async () => (await listed(b)).some((t) => t['id'] === TUNNEL && t['upstreams'] === 2), {
      timeoutMs: 20_000,
      intervalMs: 200,
      message: "node B lists node A's tunnel",
    });
    const onB = await listed(b);
    expect(onB.filter((t) => t['id'] === TUNNEL)).toHaveLength(1);
    expect(onB.find((t) => t['id'] === TUNNEL)).toMatchObject({
      connected: true,
      auth: 'none',
      upstreams: 2,
    });
    expect(onB).toEqual(await listed(a));
    expect(await listed(b, keys['bob']!)).toEqual([]);
  }, 30_000);

  it("node B answers the tunnel's upstreams snapshot and tools as node A does", async () => {
    const upstreams = await alice(b, `/api/tunnels/${TUNNEL}/upstreams`);
    expect(upstreams.status).toBe(200);
    const names = (upstreams.body['upstreams'] as Array<{ name: string; phase: string }>).map((u) => [
      u.name,
      u.phase,
    ]);
    expect(names).toEqual([
      ['docs', 'available'],
      ['probe', 'available'],
    ]);
    expect(upstreams.body).toEqual((await alice(a, `/api/tunnels/${TUNNEL}/upstreams`)).body);
    const tools = await alice(b, `/api/tunnels/${TUNNEL}/tools`);
    expect(tools.status).toBe(200);
    expect((tools.body['tools'] as Array<{ name: string }>).map((t) => t.name)).toContain('probe__pid');
    expect(tools.body).toEqual((await alice(a, `/api/tunnels/${TUNNEL}/tools`)).body);
    // accept through B reaches the CLI: the same answer as through A (a tool that is not changed stays so)
    const accepted = await alice(b, `/api/tunnels/${TUNNEL}/tools/probe__pid/accept`, { method: 'POST' });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ name: 'probe__pid', upstream: 'probe', changed: false });
  }, 30_000);

  it('a webhook made on node B is listed on A and B; deleted on A it is gone on B', async () => {
    const path = `/api/tunnels/${TUNNEL}/webhooks`;
    const made = await alice(b, path, {
      method: 'POST',
      body: JSON.stringify({ url: 'http://127.0.0.1:9/hook', events: ['upstream.state_changed'] }),
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body['secret']).toMatch(/^whsec_/);
    const wid = String(made.body['id']);
    const ids = async (gw: RunningGateway) =>
      ((await alice(gw, path)).body['webhooks'] as Array<{ id: string }>).map((w) => w.id);
    expect(await ids(a)).toEqual([wid]);
    expect(await ids(b)).toEqual([wid]);
    const deliveries = await alice(b, `${path}/${wid}/deliveries`);
    expect([deliveries.status, deliveries.body]).toEqual([200, { deliveries: [] }]);
    // the deliverer's typed errors keep their meaning across the hop
    const bad = await alice(b, path, { method: 'POST', body: JSON.stringify({ url: 'nope', events: [] }) });
    expect(bad.status).toBe(400);
    const removed = await fetch(`${a.url}${path}/${wid}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${keys['alice']}` },
      signal: AbortSignal.timeout(10_000),
    });
    expect(removed.status).toBe(204);
    expect(await ids(b)).toEqual([]);
    expect((await alice(b, `${path}/${wid}/deliveries`)).status).toBe(404);
  }, 30_000);

  it("node B streams the state changes of an upstream SIGKILLed behind node A's tunnel; Last-Event-ID resumes after it", async () => {
    const agent = new Client(
      { name: 'scale-events', version: '1' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await agent.connect(new StreamableHTTPClientTransport(new URL(`${a.url}/t/${TUNNEL}/mcp`)));
    let pid: number;
    try {
      const out = (await agent.callTool({ name: 'probe__pid', arguments: {} })) as {
        content: { text: string }[];
      };
      pid = Number(out.content[0]!.text);
    } finally {
      await agent.close();
    }
    expect(pid).toBeGreaterThan(0);
    const probe = (events: Evt[]) =>
      events.filter((e) => e.type === 'upstream.state_changed' && e.data['upstream'] === 'probe');
    const moves = (events: Evt[]) =>
      probe(events).map((e) => `${String(e.data['from'])}→${String(e.data['to'])}`);
    const events = await streamOnB(
      {},
      (ev) => moves(ev).includes('recovering→available'),
      // B's first ask of A only fills its mirror (the viewer gets events from then on): kill after it
      async () => {
        await new Promise((r) => setTimeout(r, 1_500));
        process.kill(pid, 'SIGKILL');
      },
    );
    expect(moves(events)).toEqual(['available→recovering', 'recovering→available']);
    const seen = probe(events);
    expect(seen.every((e) => e.data['tunnel'] === TUNNEL)).toBe(true);
    // the same events, with the same ids, as the holder streams them
    const onA = await readSse(`${a.url}/api/tunnels/${TUNNEL}/upstreams/stream`, {
      headers: { authorization: `Bearer ${keys['alice']}`, 'last-event-id': 'evt_unknown' },
      until: (f) => f.some((e) => e.id === seen[1]!.id),
      timeoutMs: 15_000,
    });
    expect(onA.filter((f) => seen.some((e) => e.id === f.id)).map((f) => f.id)).toEqual(
      seen.map((e) => e.id),
    );
    // Last-Event-ID on B: only what came after it
    const resumed = await streamOnB({ 'last-event-id': seen[0]!.id }, (ev) => ev.length >= 1);
    expect(resumed[0]!.id).toBe(seen[1]!.id);
  }, 90_000);

  it("bob's key gets 404 on node B for every route of alice's tunnel", async () => {
    for (const { method, path, body } of scopeRoutes(TUNNEL, { upstream: 'probe', tool: 'probe__pid' })) {
      const res = await nodeApi(b, path, keys['bob']!, { method, ...(body && { body }) });
      expect([method, path, res.status, res.body['error']]).toEqual([method, path, 404, 'not_found']);
    }
    // and the owner's reconnect through B reaches the CLI behind A
    const again = await alice(b, `/api/tunnels/${TUNNEL}/upstreams/probe/reconnect`, { method: 'POST' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ name: 'probe' });
  }, 30_000);
});
