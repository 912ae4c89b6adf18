// Upstreams whose pagination misbehaves: a repeating cursor, pages that add nothing new, a list that never
// ends. Each walk stops, the upstream is flagged in the diagnostics and logged, and what was read is served.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAggregator } from './index.js';
import type { Aggregator, UpstreamDiagnostics } from './index.js';
import type { UpstreamSnapshot } from '@mcppipe/supervisor';
import { captureLogger, fixturePath, memoryAgent, TestRegistry, waitFor } from '@mcppipe/test-utils';
import type { TestAgent } from '@mcppipe/test-utils';

let registry: TestRegistry<UpstreamSnapshot>;
let aggregator: Aggregator;
let agent: TestAgent;
const logger = captureLogger();
const script = fixturePath('agg-faults.mjs');

beforeAll(async () => {
  registry = await TestRegistry.start<UpstreamSnapshot>([
    { name: 'repeat', script, env: { AGG_PAGING: 'repeat', AGG_PAGE_SIZE: '5' } },
    { name: 'endless', script, env: { AGG_PAGING: 'endless', AGG_PAGE_SIZE: '5' } },
    { name: 'runaway', script, env: { AGG_PAGING: 'runaway', AGG_PAGE_SIZE: '5' } },
  ]);
  aggregator = createAggregator({ registry, logger, maxPagesPerUpstream: 6 });
  agent = await memoryAgent(aggregator);
}, 60_000);

afterAll(async () => {
  await agent?.close();
  await aggregator?.close();
  await registry?.close();
});

const report = (name: string): UpstreamDiagnostics =>
  aggregator.diagnostics().upstreams.find((u) => u.upstream === name)!;

it('reads and reports upstream lists as soon as the aggregator starts, before any agent lists', async () => {
  await waitFor(
    () => logger.entries.some((e) => e.obj['upstream'] === 'runaway' && e.obj['stopped'] === 'page_cap'),
    {
      message: 'the startup report',
    },
  );
  expect(report('runaway').lists.tools).toMatchObject({ stopped: 'page_cap' });
});

it('stops each runaway walk, flags the upstream, and serves what it read', async () => {
  const names = (await agent.client.listTools()).tools.map((t) => t.name);
  const of = (upstream: string) => names.filter((n) => n.startsWith(`${upstream}__`));

  // The repeating cursor comes after the last real page: every tool is there, once.
  expect(report('repeat').lists.tools).toMatchObject({ stopped: 'repeating_cursor' });
  expect(of('repeat')).toContain('repeat__list_count');
  expect(new Set(of('repeat')).size).toBe(of('repeat').length);

  // Pages that add nothing new stop the walk after the first of them.
  expect(report('endless').lists.tools).toMatchObject({ stopped: 'no_new_items', pages: 2 });
  expect(of('endless')).toHaveLength(5);

  // New items forever: the page cap stops it.
  expect(report('runaway').lists.tools).toMatchObject({ stopped: 'page_cap', pages: 6 });
  expect(of('runaway').filter((n) => n.startsWith('runaway__gen_'))).toHaveLength(12);

  for (const upstream of ['repeat', 'endless', 'runaway']) {
    expect(
      logger.entries.some((e) => e.level === 'warn' && e.obj['upstream'] === upstream && e.obj['stopped']),
    ).toBe(true);
    expect(report(upstream).phase).toBe('available');
  }
});

it('asks each upstream once while its list is cached', async () => {
  const count = async () =>
    Number(
      (
        (await registry.request('repeat', { method: 'tools/call', params: { name: 'list_count' } }))[
          'content'
        ] as { text: string }[]
      )[0]!.text,
    );
  const before = await count();
  await agent.client.listTools();
  await agent.client.listTools();
  expect(await count()).toBe(before);
});

it('survives an upstream that dies mid-call: the call fails, the other upstreams keep answering', async () => {
  const err = await agent.client.callTool({ name: 'repeat__exit_now' }).then(
    () => undefined,
    (e: unknown) => e as { code?: number },
  );
  expect(err?.code).toBe(-32000);
  const result = await agent.client.callTool({ name: 'endless__echo', arguments: { text: 'alive' } });
  expect(result.content).toEqual([{ type: 'text', text: 'faults: alive' }]);
});
