import type { UpstreamSnapshot } from '@mcppipe/supervisor';
import { createServer } from 'node:http';
import { createMcpHttpHost } from '@mcppipe/http';
import { passthroughSchema } from '@mcppipe/supervisor';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { createProxyServer } from '@mcppipe/aggregator';
import { TestRegistry } from '@mcppipe/test-utils';
import type { FakeHandler } from '@mcppipe/test-utils';

const RAW = passthroughSchema;
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c().catch(() => {});
});

async function connect(handler: FakeHandler, extra: Partial<UpstreamSnapshot> = {}) {
  const registry = new TestRegistry<UpstreamSnapshot>({ retryAfterMs: 1000 }).add('alpha', handler, extra);
  const server = createProxyServer({ registry, name: 'alpha', timeoutMs: 10_000 });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'agent', version: '1' });
  await client.connect(b);
  closers.push(
    () => client.close(),
    () => server.close(),
  );
  return { registry, client };
}

describe('createProxyServer', () => {
  it('advertises exactly the upstream capabilities, serverInfo and instructions', async () => {
    const caps = { tools: { listChanged: true }, resources: { subscribe: true }, x_vendor: { a: 1 } };
    const { client } = await connect(async () => ({}), {
      capabilities: caps,
      instructions: 'use me',
      serverInfo: { name: 'up', version: '9' },
    });
    expect(client.getServerCapabilities()).toMatchObject({
      tools: { listChanged: true },
      resources: { subscribe: true },
    });
    expect(client.getServerCapabilities()).not.toHaveProperty('prompts');
    expect(client.getServerVersion()).toMatchObject({ name: 'up', version: '9' });
    expect(client.getInstructions()).toBe('use me');
  });

  it('forwards method and params verbatim and returns the raw result (unknown fields survive)', async () => {
    const { client, registry } = await connect(async () => ({
      tools: [{ name: 't', inputSchema: { type: 'object' }, x_extra: 1 }],
      x_top: true,
    }));
    const result = await client.request({ method: 'tools/list', params: { cursor: 'c1' } }, RAW);
    expect(result).toMatchObject({ tools: [{ name: 't', x_extra: 1 }], x_top: true });
    expect(registry.requests[0]?.request).toEqual({ method: 'tools/list', params: { cursor: 'c1' } });
  });

  it('re-emits upstream progress under the agent token and strips the agent token from what goes upstream', async () => {
    const { client, registry } = await connect(async (_req, options) => {
      for (let i = 1; i <= 3; i++) options.onprogress?.({ progress: i, total: 3 });
      return { content: [{ type: 'text', text: 'done' }] };
    });
    const seen: number[] = [];
    const result = await client.callTool(
      { name: 'slow', arguments: { n: 1 } },
      { onprogress: (p) => void seen.push(p.progress) },
    );
    expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
    expect(seen).toEqual([1, 2, 3]);
    const forwarded = registry.requests[0]!.request;
    expect(forwarded).toMatchObject({ method: 'tools/call', params: { name: 'slow', arguments: { n: 1 } } });
    expect(JSON.stringify(forwarded)).not.toContain('progressToken');
    expect(registry.requests[0]!.options.resetTimeoutOnProgress).toBe(true);
  });

  it('an agent abort aborts the upstream request', async () => {
    let upstreamSignal: AbortSignal | undefined;
    const { client } = await connect(
      (_req, options) =>
        new Promise((_resolve, reject) => {
          upstreamSignal = options.signal;
          options.signal?.addEventListener('abort', () => reject(new Error('aborted')));
        }),
    );
    const abort = new AbortController();
    const call = client.callTool({ name: 'hang', arguments: {} }, { signal: abort.signal });
    for (let i = 0; i < 100 && upstreamSignal === undefined; i++) await new Promise((r) => setTimeout(r, 10));
    expect(upstreamSignal?.aborted).toBe(false);
    abort.abort('user');
    await expect(call).rejects.toThrow();
    for (let i = 0; i < 100 && !upstreamSignal?.aborted; i++) await new Promise((r) => setTimeout(r, 10));
    expect(upstreamSignal?.aborted).toBe(true);
  });

  it('passes upstream JSON-RPC errors through unchanged and maps "not available" to -32000 upstream_unavailable', async () => {
    const { client, registry } = await connect(async () => {
      throw new ProtocolError(-32602, 'Unknown tool: nope', { tool: 'nope' });
    });
    await expect(
      client.request({ method: 'tools/call', params: { name: 'nope' } }, RAW),
    ).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown tool: nope'),
      data: { tool: 'nope' },
    });
    registry.setPhase('alpha', 'recovering');
    await expect(client.request({ method: 'tools/call', params: { name: 'x' } }, RAW)).rejects.toMatchObject({
      code: -32000,
      data: { upstream: 'alpha', phase: 'recovering' },
    });
  });
  it('a connection lost mid-call answers the one upstream_unavailable, with the phase the state machine says', async () => {
    const { client, registry } = await connect(async () => {
      registry.snapshots.set('alpha', {
        ...registry.snapshots.get('alpha')!,
        phase: 'recovering',
        retryAfterMs: 2000,
      });
      throw new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed');
    });
    await expect(client.request({ method: 'tools/call', params: { name: 'x' } }, RAW)).rejects.toMatchObject({
      code: -32000,
      message: 'upstream_unavailable: upstream "alpha" is recovering; retry in 2 s',
      data: { upstream: 'alpha', phase: 'recovering', retryAfterMs: 2000 },
    });
  });
});

describe('createProxyServer behind @mcppipe/http (2026-07-28 direct path)', () => {
  it('serves 2026-07-28 calls on one shared instance, stamping the upstream serverInfo live', async () => {
    const registry = new TestRegistry<UpstreamSnapshot>({ retryAfterMs: 1000 }).add('alpha', async (req) => ({
      content: [{ type: 'text', text: `got ${String((req.params as { name?: string }).name)}` }],
    }));
    let built = 0;
    const host = createMcpHttpHost(
      () => {
        built++;
        return createProxyServer({ registry, name: 'alpha', timeoutMs: 10_000 });
      },
      { stateless: true },
    );
    const http = createServer((req, res) => void host.handle(req, res));
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    closers.push(async () => {
      await host.close();
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
    });
    const url = `http://127.0.0.1:${(http.address() as { port: number }).port}/mcp`;
    const call = async (id: number) => {
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 't',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: {
            name: 't',
            arguments: {},
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientInfo': { name: 'agent', version: '1' },
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          },
        }),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as {
        id: number;
        result: { content: { text: string }[]; _meta?: Record<string, unknown> };
      };
    };
    const first = await call(1);
    expect(first.id).toBe(1);
    expect(first.result.content[0]?.text).toBe('got t');
    expect(first.result._meta?.['io.modelcontextprotocol/serverInfo']).toEqual({
      name: 'alpha-server',
      version: '1.2.3',
    });
    const builtAfterFirst = built;
    // the upstream restarted as another version: the shared instance stamps what the upstream says now
    registry.snapshots.set('alpha', {
      ...registry.snapshots.get('alpha')!,
      serverInfo: { name: 'alpha-server', version: '2.0.0' },
    });
    const second = await call(2);
    expect(second.result._meta?.['io.modelcontextprotocol/serverInfo']).toEqual({
      name: 'alpha-server',
      version: '2.0.0',
    });
    await call(3);
    expect(built).toBe(builtAfterFirst); // no server per request
    expect(registry.requests.map((r) => r.request.method)).toEqual([
      'tools/call',
      'tools/call',
      'tools/call',
    ]);
  });
});
