import type { UpstreamSnapshot } from '@mcppipe/supervisor';
import { TestRegistry, connectInMemory, data, errorOf, meta, waitFor } from '@mcppipe/test-utils';
import type { TestRequest } from '@mcppipe/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { createHub } from './hub.js';
import type { Hub, HubLogger, ListServersResult, ListToolsResult } from './types.js';

// Paths real upstreams cannot produce on demand (a failing tools/list, a JSON-RPC error from tools/call, a
// list_changed racing a fetch, broken pagination), driven through the narrow UpstreamRegistry interface.

type Answer = (request: TestRequest) => Promise<Record<string, unknown>>;

const tool = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  inputSchema: { type: 'object' },
  ...extra,
});
const lists =
  (tools: object[]): Answer =>
  async (r) => {
    if (r.method === 'tools/list') return { tools };
    return { content: [{ type: 'text', text: `called ${String(r.params?.['name'])}` }] };
  };

describe('hub logic over a fake registry', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });
  async function start(
    registry: TestRegistry<UpstreamSnapshot>,
    options: Partial<Parameters<typeof createHub>[0]> = {},
  ) {
    const hub: Hub = createHub({ registry, ...options });
    cleanup.push(() => hub.close());
    const client = await connectInMemory(hub);
    cleanup.push(() => client.close());
    return { hub, client };
  }

  it('passes a JSON-RPC error from the upstream on as MCPP_HUB_UPSTREAM_ERROR with its code and message', async () => {
    const registry = new TestRegistry<UpstreamSnapshot>({ retryAfterMs: 4000 });
    registry.add('a', async (r) => {
      if (r.method === 'tools/list') return { tools: [tool('t')] };
      throw Object.assign(new Error('MCP error -32602: bad input'), { code: -32602, data: { field: 'x' } });
    });
    const { client } = await start(registry);
    const error = errorOf(await meta(client, 'call_tool', { server: 'a', tool: 't', arguments: {} }));
    expect(error).toMatchObject({
      code: 'MCPP_HUB_UPSTREAM_ERROR',
      server: 'a',
      upstreamError: { code: -32602, message: 'MCP error -32602: bad input', data: { field: 'x' } },
    });
    expect(error.message).toContain('JSON-RPC error -32602');
  });

  it('a failing tools/list: toolCount null, list_tools errors, call_tool still forwards', async () => {
    const registry = new TestRegistry<UpstreamSnapshot>({ retryAfterMs: 4000 });
    const warnings: string[] = [];
    const logger: HubLogger = { debug() {}, info() {}, warn: (_o, m) => warnings.push(m ?? ''), error() {} };
    registry.add('a', async (r) => {
      if (r.method === 'tools/list') throw Object.assign(new Error('Method not found'), { code: -32601 });
      return { content: [{ type: 'text', text: 'ran anyway' }] };
    });
    const { client } = await start(registry, { logger });
    expect(data<ListServersResult>(await meta(client, 'list_servers')).servers[0]!.toolCount).toBeNull();
    expect(errorOf(await meta(client, 'list_tools', { server: 'a' })).code).toBe('MCPP_HUB_UPSTREAM_ERROR');
    const called = await meta(client, 'call_tool', { server: 'a', tool: 'x' });
    expect(called.content).toEqual([{ type: 'text', text: 'ran anyway' }]);
    expect(warnings.length).toBeGreaterThan(0);
  });

  it('unavailable servers: a fail-fast error names the phase and the retry delay', async () => {
    const registry = new TestRegistry<UpstreamSnapshot>({ retryAfterMs: 4000 });
    registry.add('a', lists([tool('t')]), { phase: 'failed' });
    const { client } = await start(registry);
    const error = errorOf(await meta(client, 'list_tools', { server: 'a' }));
    expect(error).toMatchObject({ code: 'MCPP_HUB_UNAVAILABLE', phase: 'failed' });
    expect(error.message).toContain('phase: failed');
    const list = data<ListServersResult>(await meta(client, 'list_servers'));
    expect(list.servers).toEqual([{ name: 'a', phase: 'failed', toolCount: null }]);
    // The supervisor's own fail-fast (a phase change the snapshot had not shown yet) maps the same way.
    registry.snapshots.set('a', { ...registry.get('a')!, phase: 'available' });
    await meta(client, 'list_tools', { server: 'a' });
    registry.requestPhase = 'recovering';
    const raced = errorOf(await meta(client, 'call_tool', { server: 'a', tool: 't' }));
    expect(raced).toMatchObject({ code: 'MCPP_HUB_UNAVAILABLE', phase: 'recovering', retryAfterMs: 4000 });
    expect(raced.message).toContain('Retry in about 4 s.');
  });

  it('a list_changed that races a fetch makes the hub fetch again instead of caching the old list', async () => {
    const registry = new TestRegistry<UpstreamSnapshot>({ retryAfterMs: 4000 });
    let version = 1;
    let release: (() => void) | undefined;
    registry.add('a', async (r) => {
      if (r.method !== 'tools/list') return { content: [] };
      const answer = { tools: [tool(`v${version}`)] };
      if (version === 1) await new Promise<void>((resolve) => (release = resolve));
      return answer;
    });
    const { client } = await start(registry);
    await waitFor(() => release !== undefined, { message: 'the first fetch' });
    version = 2;
    registry.listChanged('a');
    release!();
    const names = data<ListToolsResult>(await meta(client, 'list_tools', { server: 'a' })).tools.map(
      (t) => t.name,
    );
    expect(names).toEqual(['v2']);
  });

  it('stops at a repeated cursor and skips entries without a name', async () => {
    const registry = new TestRegistry<UpstreamSnapshot>({ retryAfterMs: 4000 });
    registry.add('a', async (r) => {
      if (r.method !== 'tools/list') return { content: [] };
      return {
        tools: [tool(`p${String(r.params?.['cursor'] ?? 0)}`), { description: 'no name' }],
        nextCursor: 'same',
      };
    });
    const { client } = await start(registry);
    const names = data<ListToolsResult>(await meta(client, 'list_tools', { server: 'a' })).tools.map(
      (t) => t.name,
    );
    expect(names).toEqual(['p0', 'psame']);
  });

  it('honours a custom isVisible and forgets servers removed from the layout', async () => {
    const registry = new TestRegistry<UpstreamSnapshot>({ retryAfterMs: 4000 });
    registry.add('public', lists([tool('t')]));
    registry.add('secret', lists([tool('t')]));
    const { client } = await start(registry, { isVisible: (s) => !s.name.startsWith('sec') });
    expect(data<ListServersResult>(await meta(client, 'list_servers')).servers.map((s) => s.name)).toEqual([
      'public',
    ]);
    expect(errorOf(await meta(client, 'get_tool', { server: 'secret', tool: 't' })).code).toBe(
      'MCPP_HUB_UNKNOWN_SERVER',
    );
    registry.snapshots.delete('public');
    registry.emit('layout_changed', { added: [], removed: ['public'], replaced: [] });
    expect(errorOf(await meta(client, 'list_tools', { server: 'public' }))).toMatchObject({
      code: 'MCPP_HUB_UNKNOWN_SERVER',
      message: 'Unknown server "public". No servers are visible.',
    });
  });

  it('many visible servers: an unknown name without close matches points to list_servers', async () => {
    const registry = new TestRegistry<UpstreamSnapshot>({ retryAfterMs: 4000 });
    for (let i = 0; i < 25; i++) registry.add(`server-${String(i).padStart(2, '0')}`, lists([]));
    const { client } = await start(registry);
    const error = errorOf(await meta(client, 'list_tools', { server: 'zzzzzzzz' }));
    expect(error.message).toBe('Unknown server "zzzzzzzz". Call list_servers to see the servers.');
  });
});
