// Merged lists, namespacing and routing against real upstreams (server-everything, server-memory and the
// fault fixture over stdio), seen by a real SDK client connected in memory.
import { unwrapResourceUri, wrapResourceTemplate, wrapResourceUri } from '@mcppipe/namespace';
import { fixturePath, referenceServerPath } from '@mcppipe/test-utils';
import { ProtocolError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RAW } from './forward.js';
import { createAggregator } from './index.js';
import type { Aggregator } from './index.js';
import { memoryAgent } from './testing/agents.js';
import type { TestAgent } from './testing/agents.js';
import { captureLogger } from './testing/logger.js';
import { StdioTestRegistry } from './testing/stdioRegistry.js';

type Obj = Record<string, unknown>;

let registry: StdioTestRegistry;
let aggregator: Aggregator;
let agent: TestAgent;
const logger = captureLogger();

beforeAll(async () => {
  registry = await StdioTestRegistry.start([
    { name: 'memory', script: referenceServerPath('memory'), env: { MEMORY_FILE_PATH: '/dev/null' } },
    { name: 'faults', script: fixturePath('agg-faults.mjs') },
    { name: 'everything', script: referenceServerPath('everything') },
  ]);
  aggregator = createAggregator({ registry, logger });
  agent = await memoryAgent(aggregator);
}, 60_000);

afterAll(async () => {
  await agent?.close();
  await aggregator?.close();
  await registry?.close();
});

async function rawList(method: string, key: string): Promise<Obj[]> {
  const items: Obj[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 50; i++) {
    const page = await agent.client.request({ method, params: cursor ? { cursor } : {} }, RAW);
    items.push(...(page[key] as Obj[]));
    cursor = page['nextCursor'] as string | undefined;
    if (!cursor) return items;
  }
  throw new Error('too many pages');
}

async function upstreamTools(upstream: string): Promise<Obj[]> {
  const items: Obj[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 50; i++) {
    const page = await registry.request(upstream, { method: 'tools/list', params: cursor ? { cursor } : {} });
    items.push(...(page['tools'] as Obj[]));
    cursor = page['nextCursor'] as string | undefined;
    if (!cursor) return items;
  }
  throw new Error('too many pages');
}

async function rpcError(p: Promise<unknown>): Promise<ProtocolError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProtocolError);
  return err as ProtocolError;
}

const text = (result: Obj) => (result['content'] as { text?: string }[])[0]?.text;

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
    expect(logger.entries.filter((e) => e.msg?.startsWith('shortened'))).toHaveLength(2);
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
    const warning = logger.entries.find((e) => e.level === 'warn' && e.obj['item'] === 'broken');
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

describe('routing', () => {
  it('routes calls to the upstream in the prefix', async () => {
    expect(
      text(await agent.client.callTool({ name: 'everything__echo', arguments: { message: 'hi' } })),
    ).toBe('Echo: hi');
    expect(text(await agent.client.callTool({ name: 'memory__read_graph', arguments: {} }))).toContain(
      'entities',
    );
  });

  it('answers an unknown prefix, name or unprefixed name with -32602 naming it', async () => {
    for (const name of ['nope__echo', 'everything__nope', 'echo']) {
      const err = await rpcError(agent.client.callTool({ name }));
      expect(err.code).toBe(-32602);
      expect(err.message).toContain(JSON.stringify(name));
    }
    const err = await rpcError(agent.client.readResource({ uri: 'file:///etc/passwd' }));
    expect(err.code).toBe(-32602);
    expect((await rpcError(agent.client.getPrompt({ name: 'faults__none' }))).code).toBe(-32602);
  });

  it('passes isError results and upstream JSON-RPC errors through unchanged', async () => {
    const result = await agent.client.request(
      { method: 'tools/call', params: { name: 'faults__fail' } },
      RAW,
    );
    expect(result).toEqual({ content: [{ type: 'text', text: 'this tool always fails' }], isError: true });
    const err = await rpcError(agent.client.callTool({ name: 'faults__rpc_error' }));
    expect({ code: err.code, message: err.message, data: err.data }).toEqual({
      code: -32099,
      message: 'fixture rpc error',
      data: { detail: 42 },
    });
  });

  it('reads wrapped resources and template expansions, and wraps resource links so they read back', async () => {
    const uri = wrapResourceUri('faults', 'faults://doc/1');
    expect((await agent.client.readResource({ uri })).contents).toEqual([
      { uri, mimeType: 'text/plain', text: 'content of faults://doc/1' },
    ]);
    const expanded = wrapResourceTemplate('everything', 'demo://resource/dynamic/text/{resourceId}').replace(
      '{resourceId}',
      '7',
    );
    const dynamic = await agent.client.readResource({ uri: expanded });
    expect(dynamic.contents[0]!.uri).toBe(expanded);
    expect(JSON.stringify(dynamic.contents[0])).toContain('7');
    const links = await agent.client.request(
      { method: 'tools/call', params: { name: 'faults__links' } },
      RAW,
    );
    const [, link, embedded] = links['content'] as Obj[];
    expect(link).toMatchObject({ type: 'resource_link', uri: wrapResourceUri('faults', 'faults://doc/1') });
    expect(embedded).toMatchObject({
      type: 'resource',
      resource: { uri: wrapResourceUri('faults', 'faults://doc/2') },
    });
    const back = await agent.client.readResource({ uri: (embedded!['resource'] as { uri: string }).uri });
    expect(back.contents[0]).toMatchObject({ text: 'content of faults://doc/2' });
  });

  it('gets prompts and completes prompt arguments and template variables', async () => {
    const prompt = await agent.client.getPrompt({ name: 'everything__simple-prompt' });
    expect(prompt.messages.length).toBeGreaterThan(0);
    const byPrompt = await agent.client.complete({
      ref: { type: 'ref/prompt', name: 'everything__completable-prompt' },
      argument: { name: 'department', value: 'En' },
    });
    expect(byPrompt.completion.values).toEqual(['Engineering']);
    const byTemplate = await agent.client.complete({
      ref: { type: 'ref/resource', uri: wrapResourceTemplate('faults', 'faults://doc/{id}') },
      argument: { name: 'id', value: '' },
    });
    expect(byTemplate.completion.values).toEqual(['1', '2', '3']);
  });

  it('offers merged capabilities and instructions under upstream headings', async () => {
    const caps = agent.client.getServerCapabilities()!;
    expect(caps).toMatchObject({
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { subscribe: true },
      completions: {},
      logging: {},
    });
    expect(caps).not.toHaveProperty('tasks');
    const instructions = agent.client.getInstructions()!;
    expect(instructions).toContain('## everything');
    expect(instructions).toContain('## faults\n\nFault fixture for the aggregator tests.');
    expect(instructions.indexOf('## everything')).toBeLessThan(instructions.indexOf('## faults'));
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
