import type { UpstreamSnapshot } from '@mcppipe/supervisor';
import { describe, expect, it } from 'vitest';
import {
  mergeCapabilities,
  mergeInstructions,
  singleCapabilities,
  withoutChangeNotifications,
} from './capabilities.js';
import { passthroughSchema as RAW } from '@mcppipe/supervisor';
import { createAggregator } from './index.js';
import type { AggregatorOptions } from './index.js';
import { memoryAgent } from '@mcppipe/test-utils';

const snap = (name: string, capabilities?: Record<string, unknown>, instructions?: string) =>
  ({ name, capabilities, instructions }) as unknown as UpstreamSnapshot;

describe('withoutChangeNotifications (a 2025-era request without a session)', () => {
  it('drops listChanged and resources.subscribe, keeps the rest', () => {
    const caps = {
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { listChanged: true, subscribe: true },
      completions: {},
      logging: {},
    };
    expect(withoutChangeNotifications(caps)).toEqual({
      tools: {},
      prompts: {},
      resources: {},
      completions: {},
      logging: {},
    });
    expect(caps.resources).toEqual({ listChanged: true, subscribe: true }); // not mutated
    expect(withoutChangeNotifications({ tools: { listChanged: true } })).toEqual({ tools: {} });
  });
});

describe('mergeCapabilities', () => {
  it('advertises only what some upstream declared', () => {
    expect(
      mergeCapabilities([
        snap('a', { tools: {} }),
        snap('b', { resources: { subscribe: true }, logging: {} }),
      ]),
    ).toEqual({
      tools: { listChanged: true },
      resources: { listChanged: true, subscribe: true },
      logging: {},
    });
    expect(mergeCapabilities([snap('a', { tools: {}, tasks: {}, experimental: { x: {} } })])).toEqual({
      tools: { listChanged: true },
    });
  });

  it('advertises the lists while an upstream has not finished its first handshake', () => {
    expect(mergeCapabilities([snap('a', { tools: {} }), snap('b')])).toEqual({
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { listChanged: true },
    });
  });

  it('passes a single upstream through, with a default before its handshake', () => {
    expect(singleCapabilities(snap('a', { tools: {}, x: 1 }))).toEqual({ tools: {}, x: 1 });
    expect(singleCapabilities(undefined)).toHaveProperty('tools');
  });
});

describe('mergeInstructions', () => {
  it('puts each upstream under its heading, alphabetically', () => {
    const text = mergeInstructions([snap('b', {}, 'Bee.'), snap('a', {}, ' Ay. '), snap('c', {})])!;
    expect(text).toMatch(/## a\n\nAy\.\n\n## b\n\nBee\.$/);
    expect(mergeInstructions([snap('a', {})])).toBeUndefined();
  });
});

describe('createAggregator options', () => {
  const registry = {
    request() {},
    list: () => [],
    on() {},
    off() {},
    setUpstreamRequestHandler() {},
  } as unknown as AggregatorOptions['registry'];

  it('rejects invalid options at construction', () => {
    expect(() => createAggregator({ registry, maxNameLength: 20 })).toThrow(/maxNameLength/);
    expect(() => createAggregator({ registry, pageSize: 0 })).toThrow(/pageSize/);
    expect(() => createAggregator({ registry, mode: 'other' as 'single' })).toThrow(/mode/);
    expect(() => createAggregator({ registry: {} as AggregatorOptions['registry'] })).toThrow(/registry/);
  });

  it('answers every list method on an empty layout', async () => {
    await using aggregator = createAggregator({ registry });
    expect(aggregator.capabilities()).toEqual({});
    expect(aggregator.diagnostics()).toEqual({ mode: 'aggregate', upstreams: [] });
    await using agent = await memoryAgent(aggregator);
    for (const [method, key] of [
      ['tools/list', 'tools'],
      ['prompts/list', 'prompts'],
      ['resources/list', 'resources'],
      ['resources/templates/list', 'resourceTemplates'],
    ] as const) {
      expect(await agent.client.request({ method, params: {} }, RAW)).toEqual({ [key]: [] });
    }
  });
});
