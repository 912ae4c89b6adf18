// Routing against real upstreams (server-everything, server-memory and the fault fixture over stdio), seen by
// a real SDK client connected in memory: calls by prefix, -32602 for unknown names, pass-through of errors,
// wrapped reads and template expansions, resource links read back, prompts, completion, the handshake.
import { wrapResourceTemplate, wrapResourceUri } from '@mcppipe/namespace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passthroughSchema as RAW } from '@mcppipe/supervisor';
import { createAggregator } from './index.js';
import type { Aggregator } from './index.js';
import type { UpstreamSnapshot } from '@mcppipe/supervisor';
import { rpcError, startLayout, text } from '@mcppipe/test-utils';
import type { TestLayout, TestRegistry } from '@mcppipe/test-utils';

type Obj = Record<string, unknown>;

let layout: TestLayout<UpstreamSnapshot, Aggregator>;
let agent: TestLayout<UpstreamSnapshot, Aggregator>['agent'];

beforeAll(async () => {
  layout = await startLayout((registry: TestRegistry<UpstreamSnapshot>, logger) =>
    createAggregator({ registry, logger }),
  );
  ({ agent } = layout);
}, 60_000);

afterAll(() => layout?.close());

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

  it('answers params of the wrong type with the documented -32602, before any upstream sees them', async () => {
    const cases: [method: string, params: Obj, message: string][] = [
      [
        'tools/call',
        {},
        'Invalid params for tools/call: the field "params.name" is missing or has the wrong type',
      ],
      [
        'tools/call',
        { name: 5 },
        'Invalid params for tools/call: the field "params.name" is missing or has the wrong type',
      ],
      [
        'tools/call',
        { name: 'everything__echo', arguments: 'notanobject' },
        'Invalid params for tools/call: the field "params.arguments" is missing or has the wrong type',
      ],
      [
        'prompts/get',
        { name: 'everything__args-prompt', arguments: { city: 3 } },
        'Invalid params for prompts/get: the field "params.arguments.city" is missing or has the wrong type',
      ],
      [
        'resources/read',
        { uri: null },
        'Invalid params for resources/read: the field "params.uri" is missing or has the wrong type',
      ],
    ];
    for (const [method, params, message] of cases) {
      const err = await rpcError(agent.client.request({ method, params } as never, RAW));
      expect({ code: err.code, message: err.message }).toEqual({ code: -32602, message });
    }
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
