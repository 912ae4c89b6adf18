// Single-upstream mode: one upstream forwarded verbatim to agents of both eras (no prefixes, no wrapping).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passthroughSchema as RAW } from '@mcppipe/supervisor';
import { createAggregator } from './index.js';
import type { Aggregator } from './index.js';
import type { UpstreamSnapshot } from '@mcppipe/supervisor';
import { httpAgent, referenceServerPath, startHttpHarness, TestRegistry, waitFor } from '@mcppipe/test-utils';
import type { HttpHarness, TestAgent } from '@mcppipe/test-utils';

type Obj = Record<string, unknown>;

let registry: TestRegistry<UpstreamSnapshot>;
let aggregator: Aggregator;
let harness: HttpHarness;
const agents: TestAgent[] = [];

beforeAll(async () => {
  registry = await TestRegistry.start<UpstreamSnapshot>([
    { name: 'everything', script: referenceServerPath('everything') },
  ]);
  aggregator = createAggregator({ registry, mode: 'single' });
  harness = await startHttpHarness(aggregator);
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(agents.map((a) => a.close()));
  await harness?.close();
  await aggregator?.close();
  await registry?.close();
});

const text = (result: Obj) => (result['content'] as { text?: string }[])[0]?.text;

it('refuses single mode over a registry that does not hold exactly one upstream', async () => {
  const two = {
    ...registry,
    list: () => [...registry.list(), ...registry.list()],
  } as unknown as TestRegistry<UpstreamSnapshot>;
  expect(() => createAggregator({ registry: two, mode: 'single' })).toThrow(TypeError);
});

describe.each(['legacy', 'modern'] as const)('%s agent', (era) => {
  it('sees the upstream verbatim: names, definitions, URIs, instructions', async () => {
    const a = await httpAgent(harness.url, { era });
    agents.push(a);
    const direct = await registry.request('everything', { method: 'tools/list', params: {} });
    const through = await a.client.request({ method: 'tools/list', params: {} }, RAW);
    const strip = (tools: unknown) => JSON.stringify((tools as Obj[]).map(({ execution: _e, ...t }) => t));
    expect(strip(through['tools'])).toBe(strip(direct['tools']));
    expect(text(await a.client.callTool({ name: 'echo', arguments: { message: 'verbatim' } }))).toBe(
      'Echo: verbatim',
    );
    const resources = await a.client.listResources();
    const first = resources.resources[0]!;
    expect(first.uri).not.toMatch(/^mcppipe/);
    expect((await a.client.readResource({ uri: first.uri })).contents[0]!.uri).toBe(first.uri);
    expect(a.client.getInstructions()).toBe(registry.get('everything')!.instructions);
    expect(a.client.getServerCapabilities()).toMatchObject({ tools: { listChanged: true }, completions: {} });
  });

  it('forwards progress under the agent token', async () => {
    const a = await httpAgent(harness.url, { era });
    agents.push(a);
    const seen: number[] = [];
    await a.client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 0.2, steps: 2 } },
      { onprogress: (p) => seen.push(p.progress) },
    );
    await waitFor(() => seen.length === 2, { message: 'progress' });
    expect(seen).toEqual([1, 2]);
  });
});
