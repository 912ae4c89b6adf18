// Merged lists against real upstreams (server-everything, server-memory and the fault fixture over stdio),
// seen by a real SDK client connected in memory: order, namespacing, shortening, byte-identical definitions,
// malformed items, -32601 on an advertised list, wrapped URIs and templates, paging.
import { unwrapResourceUri, wrapResourceTemplate, wrapResourceUri } from '@mcppipe/namespace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passthroughSchema as RAW } from '@mcppipe/supervisor';
import { createAggregator } from './index.js';
import type { Aggregator } from './index.js';
import type { UpstreamSnapshot } from '@mcppipe/supervisor';
import { agentList, allPages, memoryAgent, rpcError, startLayout, text } from '@mcppipe/test-utils';
import type { TestLayout, TestRegistry } from '@mcppipe/test-utils';

type Obj = Record<string, unknown>;

let layout: TestLayout<UpstreamSnapshot, Aggregator>;
let registry: TestLayout<UpstreamSnapshot, Aggregator>['registry'];
let aggregator: Aggregator;
let agent: TestLayout<UpstreamSnapshot, Aggregator>['agent'];

beforeAll(async () => {
  layout = await startLayout((registry: TestRegistry<UpstreamSnapshot>, logger) =>
    createAggregator({ registry, logger }),
  );
  ({ registry, aggregator, agent } = layout);
}, 60_000);

afterAll(() => layout?.close());

const rawList = (method: string, key: string) => agentList(agent, method, key);
const upstreamTools = (upstream: string) =>
  allPages('tools', (cursor) =>
    registry.request(upstream, { method: 'tools/list', params: cursor ? { cursor } : {} }),
  );

describe('merged lists', () => {
  it('merges tools alphabetically by upstream, prefixed, in upstream order', async () => {
    const names = (await rawList('tools/list', 'tools')).map((t) => String(t['name']));
    const prefixes = names.map((n) => n.slice(0, n.indexOf('__')));
    expect([...new Set(prefixes)]).toEqual(['everything', 'faults', 'memory']);
    expect(prefixes).toEqual([...prefixes].sort());
    const faultsOrder = (await upstreamTools('faults'))
      .map((t) => t['name'])
      .filter((n): n is string => typeof n === 'string' && n !== 'broken' && !n.startsWith('a_tool_name'));
    expect(names.filter((n) => n.startsWith('faults__') && !n.includes('a_tool_name'))).toEqual(
      faultsOrder.map((n) => `faults__${n}`),
    );
    expect(names).toContain('memory__read_graph');
  });

  it('keeps colliding names apart and keeps "__" inside original names', async () => {
    const names = (await rawList('tools/list', 'tools')).map((t) => t['name']);
    expect(names).toContain('everything__echo');
    expect(names).toContain('faults__echo');
    expect(names).toContain('faults__tool__with__underscores');
    expect(text(await agent.client.callTool({ name: 'faults__tool__with__underscores' }))).toBe(
      'tool__with__underscores called',
    );
    expect(text(await agent.client.callTool({ name: 'faults__echo', arguments: { text: 'x' } }))).toBe(
      'faults: x',
    );
  });

  it('shortens names over the budget to distinct names, logs each once, and routes them', async () => {
    const long = (await rawList('tools/list', 'tools'))
      .map((t) => String(t['name']))
      .filter((n) => n.startsWith('faults__a_tool_name'));
    expect(long).toHaveLength(2);
    expect(new Set(long).size).toBe(2);
    for (const name of long) expect(name.length).toBeLessThanOrEqual(64);
    const renamed = aggregator.diagnostics().upstreams.find((u) => u.upstream === 'faults')!.renamed;
    expect(renamed.map((r) => r.exposed).sort()).toEqual([...long].sort());
    await rawList('tools/list', 'tools');
    expect(layout.logger.entries.filter((e) => e.msg?.startsWith('shortened'))).toHaveLength(2);
    const one = renamed.find((r) => r.original.endsWith('_one'))!;
    expect(text(await agent.client.callTool({ name: one.exposed }))).toBe(`${one.original} called`);
  });

  it('passes tool definitions byte-identical except the name and the UI resource reference', async () => {
    const upstream = (await upstreamTools('faults')).find((t) => t['name'] === 'rich')!;
    const exposed = (await rawList('tools/list', 'tools')).find((t) => t['name'] === 'faults__rich')!;
    const meta = upstream['_meta'] as Obj;
    const expected = {
      ...upstream,
      name: 'faults__rich',
      _meta: { ...meta, ui: { resourceUri: wrapResourceUri('faults', 'ui://faults/app.html') } },
    };
    expect(JSON.stringify(exposed)).toBe(JSON.stringify(expected));
    const read = await agent.client.readResource({
      uri: (exposed['_meta'] as { ui: { resourceUri: string } }).ui.resourceUri,
    });
    expect(read.contents[0]).toMatchObject({ text: 'content of ui://faults/app.html' });
  });

  it('drops a malformed tool alone, with a warning naming the upstream and the tool', async () => {
    const names = (await rawList('tools/list', 'tools')).map((t) => t['name']);
    expect(names).not.toContain('faults__broken');
    expect(names).toContain('faults__links');
    const dropped = aggregator.diagnostics().upstreams.find((u) => u.upstream === 'faults')!.dropped;
    expect(dropped.map((d) => d.name)).toEqual(['broken', undefined]);
    expect(dropped[0]!.reason).toMatch(/inputSchema/);
    const warning = layout.logger.entries.find((e) => e.level === 'warn' && e.obj['item'] === 'broken');
    expect(warning?.obj).toMatchObject({ upstream: 'faults', item: 'broken' });
  });

  it('answers every list; an upstream answering -32601 for an advertised list contributes nothing and stays healthy', async () => {
    const prompts = (await rawList('prompts/list', 'prompts')).map((p) => String(p['name']));
    expect(prompts.length).toBeGreaterThan(0);
    expect(prompts.every((p) => p.startsWith('everything__'))).toBe(true);
    const faults = aggregator.diagnostics().upstreams.find((u) => u.upstream === 'faults')!;
    expect(faults.lists.prompts).toMatchObject({ count: 0, methodNotFound: true });
    expect(faults.phase).toBe('available');
    expect(text(await agent.client.callTool({ name: 'faults__echo', arguments: { text: 'still up' } }))).toBe(
      'faults: still up',
    );
  });

  it('wraps resource URIs and resource templates', async () => {
    const resources = await rawList('resources/list', 'resources');
    const uris = resources.map((r) => String(r['uri']));
    expect(uris).toContain(wrapResourceUri('faults', 'faults://doc/1'));
    expect(uris).toContain(wrapResourceUri('memory', 'memory://knowledge-graph'));
    for (const uri of uris) expect(unwrapResourceUri(uri).upstream).toMatch(/^(everything|faults|memory)$/);
    const templates = (await rawList('resources/templates/list', 'resourceTemplates')).map(
      (t) => t['uriTemplate'],
    );
    expect(templates).toContain(wrapResourceTemplate('faults', 'faults://doc/{id}'));
    expect(templates).toContain(
      wrapResourceTemplate('everything', 'demo://resource/dynamic/text/{resourceId}'),
    );
  });
});

describe('paging', () => {
  it('pages a merged list with an opaque cursor: a full walk returns every item exactly once', async () => {
    const paged = createAggregator({ registry, pageSize: 7 });
    const pagedAgent = await memoryAgent(paged);
    try {
      const all = (await rawList('tools/list', 'tools')).map((t) => t['name']);
      const walked: unknown[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await pagedAgent.client.request(
          { method: 'tools/list', params: cursor ? { cursor } : {} },
          RAW,
        );
        walked.push(...(page['tools'] as Obj[]).map((t) => t['name']));
        cursor = page['nextCursor'] as string | undefined;
        pages++;
      } while (cursor && pages < 100);
      expect(walked).toEqual(all);
      expect(pages).toBe(Math.ceil(all.length / 7));
      const err = await rpcError(
        pagedAgent.client.request({ method: 'tools/list', params: { cursor: 'p4' } }, RAW),
      );
      expect(err.code).toBe(-32602);
    } finally {
      await pagedAgent.close();
      await paged.close();
    }
  });
});
