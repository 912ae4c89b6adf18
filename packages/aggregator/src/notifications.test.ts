// Upstream notifications and lifecycle through a real HTTP host: list_changed (legacy sessions and 2026
// listen streams), resources/updated to subscribers only, logging with the upstream in `logger`, fail-fast
// -32000 while an upstream is not available (the others keep answering), reinitialization of failed
// upstreams on a fresh handshake, and cache invalidation on reconnect.
import { PassThrough } from 'node:stream';
import { createInterface } from 'node:readline';
import { wrapResourceUri } from '@mcppipe/namespace';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client, InMemoryTransport, ProtocolError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAggregator } from './index.js';
import type { Aggregator, ChangedKind } from './index.js';
import type { UpstreamSnapshot } from '@mcppipe/supervisor';
import {
  fixturePath,
  httpAgent,
  referenceServerPath,
  startHttpHarness,
  TestRegistry,
  waitFor,
} from '@mcppipe/test-utils';
import type { HttpHarness, TestAgent, TestAgentOptions } from '@mcppipe/test-utils';

type Obj = Record<string, unknown>;

let registry: TestRegistry<UpstreamSnapshot>;
let aggregator: Aggregator;
let harness: HttpHarness;
const agents: TestAgent[] = [];
const changes: ChangedKind[] = [];

beforeAll(async () => {
  registry = await TestRegistry.start<UpstreamSnapshot>([
    { name: 'everything', script: referenceServerPath('everything') },
    { name: 'faults', script: fixturePath('agg-faults.mjs') },
  ]);
  aggregator = createAggregator({ registry });
  aggregator.on('list_changed', (kind) => changes.push(kind));
  harness = await startHttpHarness(aggregator);
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(agents.map((a) => a.close()));
  await harness?.close();
  await aggregator?.close();
  await registry?.close();
});

async function agent(options: TestAgentOptions = {}): Promise<TestAgent> {
  const a = await httpAgent(harness.url, options);
  agents.push(a);
  return a;
}

const text = (result: Obj) => (result['content'] as { text?: string }[])[0]?.text;
const call = (a: TestAgent, name: string, args: Obj = {}) => a.client.callTool({ name, arguments: args });

describe('list_changed', () => {
  it('invalidates the upstream cache and notifies 2025 sessions once', async () => {
    const a = await agent();
    expect((await a.client.listTools()).tools.map((t) => t.name)).not.toContain('faults__added_legacy');
    await call(a, 'faults__add_tool', { name: 'added_legacy' });
    await waitFor(() => a.notifications('notifications/tools/list_changed').length > 0, {
      message: 'list_changed',
    });
    expect((await a.client.listTools()).tools.map((t) => t.name)).toContain('faults__added_legacy');
    expect(a.notifications('notifications/tools/list_changed')).toHaveLength(1);
    expect(changes).toContain('tools');
  });

  it('reaches 2026-07-28 agents on their listen stream', async () => {
    const a = await agent({ era: 'modern' });
    const subscription = await a.client.listen({ toolsListChanged: true });
    try {
      await call(a, 'faults__add_tool', { name: 'added_modern' });
      await waitFor(() => a.notifications('notifications/tools/list_changed').length > 0, {
        message: 'list_changed',
      });
      expect((await a.client.listTools()).tools.map((t) => t.name)).toContain('faults__added_modern');
    } finally {
      await subscription.close();
    }
  });

  it('refreshes after a reconnect (a new generation)', async () => {
    const a = await agent();
    await a.client.listTools();
    const before = a.notifications('notifications/tools/list_changed').length;
    await registry.restart('faults');
    await waitFor(() => a.notifications('notifications/tools/list_changed').length > before, {
      message: 'list_changed',
    });
    const names = (await a.client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('faults__added_legacy');
    expect(aggregator.diagnostics().upstreams.find((u) => u.upstream === 'faults')!.generation).toBe(2);
  });
  it('waits for notifications/initialized: a list_changed never reaches a session before it (stdio, raw lines)', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const lines: Obj[] = [];
    createInterface({ input: output }).on('line', (l) => lines.push(JSON.parse(l) as Obj));
    const server = aggregator.createServer({ era: 'legacy' });
    await server.connect(new StdioServerTransport(input, output));
    try {
      const send = (m: Obj) => input.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
      send({
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      });
      await waitFor(() => lines.length > 0, { message: 'initialize result' });
      // a list change between the initialize result and notifications/initialized: not sent to this session
      const other = await agent();
      const seen = changes.length;
      await call(other, 'faults__add_tool', { name: 'added_before_initialized' });
      await waitFor(() => other.notifications('notifications/tools/list_changed').length > 0, {
        message: 'list_changed on the other session',
      });
      expect(changes.length).toBeGreaterThan(seen);
      expect(lines).toEqual([expect.objectContaining({ id: 1, result: expect.any(Object) })]);
      // once initialized, the next change is delivered
      send({ method: 'notifications/initialized' });
      await call(other, 'faults__add_tool', { name: 'added_after_initialized' });
      await waitFor(() => lines.length > 1, { message: 'list_changed after initialized' });
      expect(lines[1]).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    } finally {
      await server.close();
    }
  });
});

describe('resources/updated', () => {
  it('goes to subscribed sessions only, with the wrapped URI', async () => {
    const [subscriber, bystander] = [await agent(), await agent()];
    const uri = wrapResourceUri('faults', 'faults://doc/1');
    await subscriber.client.subscribeResource({ uri });
    await call(bystander, 'faults__touch', { uri: 'faults://doc/1' });
    await waitFor(() => subscriber.notifications('notifications/resources/updated').length > 0, {
      message: 'updated',
    });
    expect(subscriber.notifications('notifications/resources/updated')[0]).toEqual({ uri });
    await bystander.client.listTools();
    expect(bystander.notifications('notifications/resources/updated')).toEqual([]);
    await subscriber.client.unsubscribeResource({ uri });
  });

  it('counts subscriptions: one upstream subscribe per resource, released with the last holder', async () => {
    const [a, b] = [await agent(), await agent()];
    const uri = wrapResourceUri('faults', 'faults://doc/3');
    const upstreamSubscriptions = async () =>
      JSON.parse(
        text(await registry.request('faults', { method: 'tools/call', params: { name: 'subscriptions' } }))!,
      ) as string[];
    await a.client.subscribeResource({ uri });
    await b.client.subscribeResource({ uri });
    expect((await upstreamSubscriptions()).filter((u) => u === 'faults://doc/3')).toHaveLength(1);
    await a.client.unsubscribeResource({ uri });
    expect(await upstreamSubscriptions()).toContain('faults://doc/3');
    await (b.client.transport as StreamableHTTPClientTransport).terminateSession();
    await waitFor(async () => !(await upstreamSubscriptions()).includes('faults://doc/3'), {
      message: 'released',
    });
  });

  it('reaches 2026-07-28 listen streams subscribed to the wrapped URI', async () => {
    const a = await agent({ era: 'modern' });
    const uri = wrapResourceUri('faults', 'faults://doc/2');
    const release = await aggregator.subscribeResource(uri);
    const subscription = await a.client.listen({ resourceSubscriptions: [uri] });
    try {
      await call(a, 'faults__touch', { uri: 'faults://doc/2' });
      await waitFor(() => a.notifications('notifications/resources/updated').some((p) => p['uri'] === uri), {
        message: 'updated',
      });
    } finally {
      await subscription.close();
      await release();
    }
  });
});

describe('logging', () => {
  it('forwards upstream log messages with the upstream in logger, filtered per session', async () => {
    const [verbose, quiet] = [await agent(), await agent()];
    await quiet.client.setLoggingLevel('error');
    await call(verbose, 'faults__log', { text: 'hello' });
    await waitFor(() => verbose.notifications('notifications/message').some((m) => m['data'] === 'hello'), {
      message: 'log',
    });
    expect(verbose.notifications('notifications/message').find((m) => m['data'] === 'hello')).toEqual({
      level: 'info',
      logger: 'faults/fx',
      data: 'hello',
    });
    await quiet.client.listTools();
    expect(quiet.notifications('notifications/message').filter((m) => m['data'] === 'hello')).toEqual([]);
  });
});

describe('lifecycle', () => {
  it('fails fast with -32000 upstream_unavailable while the others keep answering', async () => {
    const a = await agent();
    registry.setPhase('faults', 'recovering', 4000);
    try {
      const started = Date.now();
      const err = await call(a, 'faults__echo', { text: 'x' }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(Date.now() - started).toBeLessThan(5000);
      expect(err).toBeInstanceOf(ProtocolError);
      const e = err as ProtocolError;
      expect(e.code).toBe(-32000);
      expect(e.message).toMatch(/^upstream_unavailable: upstream "faults" is recovering/);
      expect(e.data).toEqual({ upstream: 'faults', phase: 'recovering', retryAfterMs: 4000 });
      expect(text(await call(a, 'everything__echo', { message: 'alive' }))).toBe('Echo: alive');
      expect((await a.client.listTools()).tools.map((t) => t.name)).toContain('faults__echo');
    } finally {
      registry.setPhase('faults', 'available');
    }
  });

  it('moves failed upstreams back to connecting on a fresh handshake, for both eras', async () => {
    for (const era of ['legacy', 'modern'] as const) {
      registry.setPhase('faults', 'failed');
      const before = registry.reinitialized.length;
      await agent({ era });
      expect(registry.reinitialized.slice(before)).toContain('faults');
      await waitFor(() => registry.get('faults')?.phase === 'available', {
        message: 'faults available again',
      });
    }
  });

  it("does not retry failed upstreams for the host's own session (internal: the CLI's warm-up)", async () => {
    registry.setPhase('faults', 'failed');
    const before = registry.reinitialized.length;
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = aggregator.createServer({ era: 'legacy', internal: true });
    const client = new Client({ name: 'warm-up', version: '1' });
    try {
      await server.connect(serverSide);
      await client.connect(clientSide);
      await client.listTools();
      expect(registry.reinitialized.slice(before)).toEqual([]);
      expect(registry.get('faults')?.phase).toBe('failed');
    } finally {
      await client.close();
      await server.close();
      registry.setPhase('faults', 'available');
    }
  });
});
