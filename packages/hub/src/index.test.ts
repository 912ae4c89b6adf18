import { readFileSync } from 'node:fs';
import type { UpstreamRegistry } from '@mcppipe/supervisor';
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { McpServerFactory } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import * as api from './index.js';

/** A registry with no upstreams: enough to build a hub. */
function emptyRegistry(): UpstreamRegistry {
  return {
    list: () => [],
    get: () => undefined,
    request: () => Promise.reject(new Error('no upstreams')),
    notify: () => Promise.resolve(),
    reinitialize: () => Promise.resolve(),
    setUpstreamRequestHandler: () => undefined,
    on: () => undefined,
    off: () => undefined,
  };
}

describe('@mcppipe/hub public surface', () => {
  it('exports exactly these runtime names', () => {
    expect(Object.keys(api).sort()).toEqual(['createHub', 'metaTools']);
  });

  it('validates options at construction', () => {
    const registry = emptyRegistry();
    expect(() => api.createHub({} as never)).toThrow(TypeError);
    expect(() => api.createHub({ registry, callTimeoutMs: 0 })).toThrow(/callTimeoutMs/);
    expect(() => api.createHub({ registry, callTimeoutMs: Number.NaN })).toThrow(TypeError);
    expect(() => api.createHub({ registry, listTimeoutMs: -1 })).toThrow(/listTimeoutMs/);
  });

  it('createServer is a factory for createMcpHandler (unbound) and builds a fresh Server each time', async () => {
    await using hub = api.createHub({ registry: emptyRegistry() });
    const factory: McpServerFactory = hub.createServer;
    const handler = createMcpHandler(factory, { legacy: 'reject' });
    expect(hub.createServer()).not.toBe(hub.createServer({ era: 'modern' }));
    await handler.close();
  });

  it('README documents the meta-tools exactly as tools/list returns them', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const marker = readme.indexOf('<!-- hub:tools-list');
    const block = /```json\n([\s\S]*?)\n```/.exec(readme.slice(marker));
    expect(marker).toBeGreaterThan(0);
    expect(JSON.parse(block![1]!)).toEqual(api.metaTools);
  });
});
