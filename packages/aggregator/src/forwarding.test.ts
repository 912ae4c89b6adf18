// Forwarding through a real HTTP host, for both protocol eras: progress under the agent's token (the final
// event included), cancellation reaching the upstream, isolation of agents that reuse JSON-RPC ids, and
// sampling/elicitation/roots bridged to the calling agent.
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passthroughSchema as RAW } from '@mcppipe/supervisor';
import { createAggregator } from './index.js';
import type { Aggregator } from './index.js';
import type { UpstreamSnapshot } from '@mcppipe/supervisor';
import {
  fixturePath,
  httpAgent,
  postInitialize,
  referenceServerPath,
  startHttpHarness,
  TestRegistry,
  waitFor,
  sseJson,
} from '@mcppipe/test-utils';
import type { HttpHarness, TestAgent, TestAgentOptions } from '@mcppipe/test-utils';

type Obj = Record<string, unknown>;

let registry: TestRegistry<UpstreamSnapshot>;
let aggregator: Aggregator;
let harness: HttpHarness;
const agents: TestAgent[] = [];

beforeAll(async () => {
  registry = await TestRegistry.start<UpstreamSnapshot>([
    { name: 'everything', script: referenceServerPath('everything') },
    { name: 'faults', script: fixturePath('agg-faults.mjs') },
  ]);
  aggregator = createAggregator({ registry });
  harness = await startHttpHarness(aggregator);
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(agents.map((a) => a.close()));
  await harness?.close();
  await aggregator?.close();
  await registry?.close();
});

async function agent(options: TestAgentOptions): Promise<TestAgent> {
  const a = await httpAgent(harness.url, options);
  agents.push(a);
  return a;
}

const text = (result: Obj) => (result['content'] as { text?: string }[])[0]?.text;
const upstreamText = async (name: string) =>
  text(await registry.request('faults', { method: 'tools/call', params: { name } }));

describe.each(['legacy', 'modern'] as const)('%s agent', (era) => {
  it('lists and calls through the aggregate', async () => {
    const a = await agent({ era });
    const tools = await a.client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('everything__echo');
    expect(text(await a.client.callTool({ name: 'everything__echo', arguments: { message: era } }))).toBe(
      `Echo: ${era}`,
    );
  });

  it('delivers progress under the agent token, the last event before the result', async () => {
    const a = await agent({ era });
    const token = `agent-token-${era}`;
    const result = await a.client.request(
      {
        method: 'tools/call',
        params: { name: 'faults__progress_final', arguments: { count: 3 }, _meta: { progressToken: token } },
      },
      RAW,
    );
    expect(text(result)).toBe('sent 3');
    const progress = a.notifications('notifications/progress');
    expect(progress.map((p) => [p['progressToken'], p['progress'], p['total']])).toEqual([
      [token, 1, 3],
      [token, 2, 3],
      [token, 3, 3],
    ]);
    const responseAt = a.received.findIndex(
      (m) => 'result' in m && (m.result as Obj)['content'] !== undefined,
    );
    const lastProgressAt = a.received.findLastIndex(
      (m) => 'method' in m && m.method === 'notifications/progress',
    );
    expect(lastProgressAt).toBeLessThan(responseAt);
  });

  it('forwards _meta to the upstream, with its own progress token and without the agent envelope', async () => {
    const a = await agent({ era });
    const result = await a.client.request(
      {
        method: 'tools/call',
        params: { name: 'faults__meta', _meta: { 'example.com/trace': 'abc', progressToken: 'mine' } },
      },
      RAW,
    );
    const seen = JSON.parse(text(result)!) as Obj;
    expect(seen['example.com/trace']).toBe('abc');
    expect(seen['progressToken']).toBeDefined();
    expect(seen['progressToken']).not.toBe('mine');
    expect(Object.keys(seen).filter((k) => k.startsWith('io.modelcontextprotocol/'))).toEqual([]);
  });

  it('relays progress of a real long-running tool to onprogress', async () => {
    const a = await agent({ era });
    const seen: number[] = [];
    await a.client.callTool(
      { name: 'everything__trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
      { onprogress: (p) => seen.push(p.progress) },
    );
    await waitFor(() => seen.length >= 2, { message: 'progress events' });
    expect(seen.slice(0, 2)).toEqual([1, 2]);
  });

  it('forwards cancellation to the upstream at once', async () => {
    const a = await agent({ era });
    const controller = new AbortController();
    const call = a.client.callTool({ name: 'faults__wait_cancel' }, { signal: controller.signal });
    await waitFor(async () => (await upstreamText('cancel_status')) === 'waiting', {
      message: 'the call to arrive',
    });
    controller.abort('user');
    await expect(call).rejects.toThrow();
    await waitFor(async () => (await upstreamText('cancel_status')) === 'cancelled', {
      message: 'cancellation upstream',
    });
  });

  it('keeps agents apart when they reuse the same JSON-RPC ids', async () => {
    const [a, b] = [await agent({ era }), await agent({ era })];
    const [ra, rb] = await Promise.all([
      a.client.callTool({ name: 'faults__slow', arguments: { ms: 300, tag: `A-${era}` } }),
      b.client.callTool({ name: 'faults__slow', arguments: { ms: 20, tag: `B-${era}` } }),
    ]);
    expect(text(ra)).toBe(`A-${era}`);
    expect(text(rb)).toBe(`B-${era}`);
    const idOf = (agentSent: TestAgent) =>
      agentSent.sent.find((m) => 'method' in m && m.method === 'tools/call' && 'id' in m)?.['id' as never];
    expect(idOf(a)).toBeDefined();
    expect(idOf(a)).toBe(idOf(b));
  });

  it('bridges sampling, elicitation and roots to the calling agent', async () => {
    const a = await agent({
      era,
      sampling: () => ({ role: 'assistant', content: { type: 'text', text: `llm-${era}` }, model: 'fake' }),
      elicitation: () => ({ action: 'accept', content: { name: 'Ada' } }),
      roots: () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }),
    });
    expect(text(await a.client.callTool({ name: 'faults__sample', arguments: { prompt: 'hi' } }))).toBe(
      `sampled: llm-${era}`,
    );
    expect(text(await a.client.callTool({ name: 'faults__elicit' }))).toBe('elicited: accept {"name":"Ada"}');
    expect(text(await a.client.callTool({ name: 'faults__roots' }))).toBe('roots: file:///work');
  });

  it('refuses an upstream request the agent cannot answer, and the call still ends', async () => {
    const a = await agent({ era });
    const outcome = await a.client.callTool({ name: 'faults__sample' }).then(
      (r) => JSON.stringify(r),
      (e: unknown) => String(e),
    );
    expect(outcome).toMatch(/sampling/);
  });
});

describe('a host that does not pass ctx.era to createServer', () => {
  it('still bridges to 2026-07-28 agents with input_required and to 2025 sessions with requests', async () => {
    await using blind = await startHttpHarness(aggregator, { eraBlind: true });
    for (const era of ['modern', 'legacy'] as const) {
      const a = await httpAgent(blind.url, {
        era,
        elicitation: () => ({ action: 'accept', content: { name: era } }),
      });
      agents.push(a);
      expect(text(await a.client.callTool({ name: 'faults__elicit' }))).toBe(
        `elicited: accept {"name":"${era}"}`,
      );
    }
  });
});

describe('handshake', () => {
  it('serves a v1 SDK client (a real 2025-era agent library)', async () => {
    const client = new V1Client({ name: 'v1-agent', version: '1.0.0' });
    await client.connect(new V1Transport(harness.url));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('faults__echo');
      const result = await client.callTool({ name: 'faults__echo', arguments: { text: 'v1' } });
      expect(result.content).toEqual([{ type: 'text', text: 'faults: v1' }]);
    } finally {
      await client.close();
    }
  });

  it('negotiates the version with the agent, independently of the upstreams', async () => {
    const response = await postInitialize(harness.url, { clientName: 'raw', protocolVersion: '2025-03-26' });
    const body = await response.text();
    const json = (body.startsWith('{') ? JSON.parse(body) : sseJson(body)[0]) as {
      result: Obj;
    };
    expect(json.result['protocolVersion']).toBe('2025-03-26');
    expect(json.result['serverInfo']).toEqual({ name: 'mcppipe', version: '0.1.0' });
    expect(json.result['capabilities']).toMatchObject({ tools: { listChanged: true } });
    const sid = response.headers.get('mcp-session-id');
    if (sid)
      await fetch(harness.url, {
        method: 'DELETE',
        headers: { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-03-26' },
      });
  });
});
