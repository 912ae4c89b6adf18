/**
 * Issues 19 + 20, the owner's stored tunnel settings on two nodes (DESIGN.md S1, S2, T5, P3), all real processes:
 * one `redis-server` on a random port, two `mcppipe-gateway` processes sharing it, a real tunnel client held by
 * node A with a real MCP server behind it. Settings saved on either node hold on both: a policy saved on node B
 * refuses calls through node A; a call entering node B (forwarded to A over the node link) meets the same policy
 * and is recorded by A with its caller; an allowlist saved on node A is checked at node B, where the call enters.
 */
import { waitFor } from '@mcppipe/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from './gatewayProcess.js';
import { connectHeldTunnel, echoThrough, nodeApi, startNodePair } from './tunnelStack.js';
import type { HeldTunnel, NodePair } from './tunnelStack.js';

const TUNNEL = 'pol--alice';

interface Summary {
  id: string;
  name: string | null;
  caller: string | null;
  status: unknown;
}

describe('two gateway nodes on one Redis: the owner settings of a tunnel hold on both nodes (issue 20)', () => {
  let pair: NodePair;
  let a: RunningGateway;
  let b: RunningGateway;
  let held: HeldTunnel;
  let keys: Record<string, string>;
  /** A call on a node's /api with the owner's key. */
  const api = (gw: RunningGateway, path: string, init: RequestInit = {}) =>
    nodeApi(gw, path, keys['alice']!, init);
  const save = async (gw: RunningGateway, settings: Record<string, unknown>) => {
    const res = await api(gw, `/api/tunnels/${TUNNEL}/settings`, {
      method: 'PUT',
      body: JSON.stringify(settings),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };
  /** One `tools/call echo` through the tunnel, entering at `gw`: the HTTP status and the JSON-RPC answer. */
  const echo = (gw: RunningGateway, text: string) => echoThrough(gw, TUNNEL, keys['alice']!, text);
  const refusedEcho = (body: string) => body.includes('"error"') && !body.includes('"result"');
  const listed = async (gw: RunningGateway) =>
    (await api(gw, `/api/tunnels/${TUNNEL}/exchanges`)).body['exchanges'] as Summary[];

  beforeAll(async () => {
    pair = await startNodePair({
      name: 'scale-policy',
      accounts: { alice: 'alice pw' },
      keys: { alice: ['alice', 'cli'] },
    });
    ({ a, b, keys } = pair);
    held = await connectHeldTunnel(pair, { key: keys['alice']!, subdomain: 'pol' });
    // node B learns of the tunnel held by A (its lease) before the first request through it
    await waitFor(async () => (await echo(b, 'warm')).status === 200, {
      timeoutMs: 20_000,
      intervalMs: 200,
      message: 'a call through node B reaches the tunnel held by node A',
    });
  }, 180_000);

  afterAll(async () => {
    await held?.close();
    await pair?.close();
  });

  it('a policy saved on node B (which does not hold the tunnel) refuses the call through node A', async () => {
    expect(refusedEcho((await echo(a, 'before')).body)).toBe(false);
    await save(b, { policies: { deny: ['echo'] } });
    await waitFor(async () => refusedEcho((await echo(a, 'denied?')).body), {
      timeoutMs: 10_000,
      intervalMs: 100,
      message: 'node A applies the policy saved on node B',
    });
    const got = await echo(a, 'denied');
    expect(got.status).toBe(200);
    expect(JSON.parse(got.body)).toMatchObject({ id: 7, error: { code: -32602 } });
  });

  it('a call entering node B meets the same policy at node A and is recorded there with its caller', async () => {
    const got = await echo(b, 'through B');
    expect(got.status).toBe(200);
    expect(JSON.parse(got.body)).toMatchObject({ id: 7, error: { code: -32602 } });
    await save(a, { policies: { deny: [] } });
    let answered = { status: 0, body: '' };
    await waitFor(async () => !refusedEcho((answered = await echo(b, 'allowed through B')).body), {
      timeoutMs: 10_000,
      intervalMs: 100,
      message: 'node B forwards the call again once the policy is lifted on node A',
    });
    expect(answered.status).toBe(200);
    expect(answered.body).toContain('allowed through B');
    // both calls that entered node B are in the tunnel's record (made by node A, read on either node)
    let mine: Summary[] = [];
    await waitFor(
      async () =>
        (mine = (await listed(b)).filter((e) => e.name === 'echo' && e.caller === 'cli')).length >= 4,
      { timeoutMs: 10_000, intervalMs: 200, message: 'the exchanges that entered node B are recorded' },
    );
    const statuses = mine.map((e) => e.status);
    expect(statuses).toContain(-32602);
    expect(statuses).toContain('ok');
  });

  it('an allowlist saved on node A is checked at node B, where the call enters', async () => {
    await save(a, { allow: ['192.0.2.1/32'] });
    await waitFor(async () => (await echo(b, 'outside')).status === 403, {
      timeoutMs: 10_000,
      intervalMs: 100,
      message: 'node B refuses an address outside the allowlist saved on node A',
    });
    expect((await echo(a, 'outside')).status).toBe(403);
    await save(b, { allow: [] });
    await waitFor(async () => (await echo(b, 'inside again')).status === 200, {
      timeoutMs: 10_000,
      intervalMs: 100,
      message: 'node B forwards again once the allowlist is cleared on node B',
    });
  });
});
