/**
 * Issues 19 + 20, the dashboard API of a tunnel on a node that does not hold it (DESIGN.md S2, D2), all real
 * processes: one `redis-server` on a random port, two `mcppipe-gateway` processes sharing it, a real tunnel client
 * held by node A and a real MCP server behind it; the API is called on node B with the owner's API key. A replay
 * asked of B is made by A (over the node link) and recorded as a new exchange listed on both nodes; Live on B
 * streams an exchange made through A; another account gets the same 404 on B.
 */
import { readSse, waitFor } from '@mcppipe/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from './gatewayProcess.js';
import { connectHeldTunnel, echoThrough, nodeApi, startNodePair } from './tunnelStack.js';
import type { HeldTunnel, NodePair } from './tunnelStack.js';

const TUNNEL = 'dash--alice';

interface Summary {
  id: string;
  method: string | null;
  name: string | null;
  caller: string | null;
  status: unknown;
  replayOf?: string;
}

describe('two gateway nodes on one Redis: replay and Live of a tunnel on the node that does not hold it (issue 20)', () => {
  let pair: NodePair;
  let a: RunningGateway;
  let b: RunningGateway;
  let held: HeldTunnel;
  let keys: Record<string, string>;
  const api = nodeApi;
  /** One `tools/call echo` through the tunnel, sent to node A. */
  const echo = async (text: string) => {
    const res = await echoThrough(a, TUNNEL, keys['alice']!, text);
    expect(res.status).toBe(200);
    expect(res.body).toContain(text);
  };
  const listed = async (gw: RunningGateway) =>
    (await api(gw, `/api/tunnels/${TUNNEL}/exchanges`, keys['alice']!)).body['exchanges'] as Summary[];

  beforeAll(async () => {
    pair = await startNodePair({
      name: 'scale-dash',
      accounts: { alice: 'alice pw', bob: 'bob pw' },
      keys: { alice: ['alice', 'cli'], bob: ['bob', 'cli'] },
    });
    ({ a, b, keys } = pair);
    held = await connectHeldTunnel(pair, { key: keys['alice']!, subdomain: 'dash' });
  }, 180_000);

  afterAll(async () => {
    await held?.close();
    await pair?.close();
  });

  it('a replay asked of node B is made by node A and listed as a new exchange on both nodes', async () => {
    await echo('first call');
    let original: Summary | undefined;
    await waitFor(async () => (original = (await listed(b)).find((e) => e.name === 'echo')) !== undefined, {
      timeoutMs: 10_000,
      intervalMs: 100,
      message: 'node B lists the call made through node A',
    });
    const edited = {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'replayed from B' } },
    };
    const path = `/api/tunnels/${TUNNEL}/exchanges/${original!.id}/replay`;
    const plain = await api(b, path, keys['alice']!, { method: 'POST', body: '{}' });
    expect(plain.status, JSON.stringify(plain.body)).toBe(201);
    expect(plain.body).toMatchObject({ replayOf: original!.id, name: 'echo', status: 'ok', caller: 'cli' });
    const copy = await api(b, path, keys['alice']!, {
      method: 'POST',
      body: JSON.stringify({ request: edited }),
    });
    expect(copy.status, JSON.stringify(copy.body)).toBe(201);
    expect(copy.body).toMatchObject({ replayOf: original!.id, name: 'echo', status: 'ok' });
    for (const gw of [a, b]) {
      const ids = (await listed(gw)).filter((e) => e.replayOf === original!.id).map((e) => e.id);
      expect(ids.sort(), gw === a ? 'on A' : 'on B').toEqual([plain.body['id'], copy.body['id']].sort());
    }
    // the edited copy really went through the tunnel: its answer echoes the edited text
    const detail = await api(
      b,
      `/api/tunnels/${TUNNEL}/exchanges/${String(copy.body['id'])}`,
      keys['alice']!,
    );
    expect(JSON.stringify(detail.body['response'])).toContain('replayed from B');
    // errors keep their meaning across the hop: an unknown exchange is 404, a bad edit 400
    expect(
      (await api(b, path.replace(original!.id, 'ex_missing'), keys['alice']!, { method: 'POST', body: '{}' }))
        .status,
    ).toBe(404);
    expect(
      (await api(b, path, keys['alice']!, { method: 'POST', body: JSON.stringify({ request: 5 }) })).status,
    ).toBe(400);
  }, 60_000);

  it('Live on node B streams an exchange made through node A', async () => {
    const isLive = (data: string) => data.includes('"name":"echo"');
    let sent = 0;
    let found = false;
    let calling: Promise<void> = Promise.resolve();
    const events = await readSse(`${b.url}/api/tunnels/${TUNNEL}/exchanges/stream`, {
      headers: { authorization: `Bearer ${keys['alice']}` },
      until: (read) => read.some((e) => isLive(e.data)),
      onOpen: async (res) => {
        expect(res.headers.get('content-type')).toContain('text/event-stream');
        // the first read of the shared ring only marks what is there: call again until one is streamed (bounded)
        const deadline = Date.now() + 10_000;
        calling = (async () => {
          while (!found && sent < 20 && Date.now() < deadline) {
            sent++;
            await echo(`live ${sent}`).catch(() => {});
            await new Promise((r) => setTimeout(r, 300));
          }
        })();
      },
      timeoutMs: 15_000,
    });
    // the calling loop stops before the next test: its calls would land in that test's stats
    found = true;
    await calling;
    const frame = events.find((e) => isLive(e.data))!;
    expect(frame.event).toBe('exchange');
    expect(frame.id).toMatch(/^ex_/);
    expect(JSON.parse(frame.data)).toMatchObject({
      method: 'tools/call',
      name: 'echo',
      caller: 'cli',
      status: 'ok',
    });
    expect((await listed(a)).map((e) => e.id)).toContain(frame.id);
  }, 30_000);

  it("node B answers the stats and stars of node A's tunnel as node A does", async () => {
    const stats = async (gw: RunningGateway) => {
      const res = await api(gw, `/api/tunnels/${TUNNEL}/stats?window=1h`, keys['alice']!);
      expect(res.status).toBe(200);
      return res.body['tools'] as Array<{ name: string; calls: number; pinned: boolean }>;
    };
    const onB = await stats(b);
    expect(onB.find((r) => r.name === 'echo')?.calls).toBeGreaterThanOrEqual(4); // the calls and replays above
    expect(onB).toEqual(await stats(a));
    const star = await fetch(`${b.url}/api/tunnels/${TUNNEL}/stars/echo`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${keys['alice']}` },
      signal: AbortSignal.timeout(10_000),
    });
    expect(star.status).toBe(204);
    expect((await stats(a)).find((r) => r.name === 'echo')?.pinned).toBe(true);
    expect((await stats(b)).find((r) => r.name === 'echo')?.pinned).toBe(true);
    expect((await api(b, `/api/tunnels/${TUNNEL}/stats?window=2h`, keys['alice']!)).status).toBe(400);
    expect((await api(b, `/api/tunnels/${TUNNEL}/stats`, keys['bob']!)).status).toBe(404);
  }, 30_000);

  it('another account gets 404 on node B for the replay, Live and list of the tunnel', async () => {
    const id = (await listed(a))[0]!.id;
    expect(
      (
        await api(b, `/api/tunnels/${TUNNEL}/exchanges/${id}/replay`, keys['bob']!, {
          method: 'POST',
          body: '{}',
        })
      ).status,
    ).toBe(404);
    const live = await fetch(`${b.url}/api/tunnels/${TUNNEL}/exchanges/stream`, {
      headers: { authorization: `Bearer ${keys['bob']}` },
      signal: AbortSignal.timeout(10_000),
    });
    expect(live.status).toBe(404);
    await live.body?.cancel();
    expect((await api(b, `/api/tunnels/${TUNNEL}/exchanges`, keys['bob']!)).status).toBe(404);
    // a tunnel held by no node: the owner gets 404 for an unknown one on B
    expect(
      (
        await api(b, `/api/tunnels/nope--alice/exchanges/${id}/replay`, keys['alice']!, {
          method: 'POST',
          body: '{}',
        })
      ).status,
    ).toBe(404);
  }, 30_000);
});
