import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAggregator } from '@mcppipe/aggregator';
import { createHub } from '@mcppipe/hub';
import { afterEach, describe, expect, it } from 'vitest';
import { connectClient, startLiveGateway, startRecordingUpstream } from './testing/live.js';
import { fixturePath, referenceServerPath, waitFor } from '@mcppipe/test-utils';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
});
const defer = <T extends { close(): Promise<unknown> }>(x: T): T => {
  cleanups.push(() => x.close());
  return x;
};

const everything = {
  name: 'everything',
  transport: 'stdio' as const,
  command: process.execPath,
  args: [referenceServerPath('everything')],
};
const probe = (log: string) => ({
  name: 'probe',
  transport: 'stdio' as const,
  command: process.execPath,
  args: [fixturePath('e2e-probe.mjs')],
  env: { PROBE_LOG: log },
});

describe('per-server endpoints over real sockets with real upstreams', { timeout: 90_000 }, () => {
  it('serves a server verbatim to both eras: its capabilities, tools, calls and progress', async () => {
    const gw = defer(await startLiveGateway([everything]));
    const snapshot = gw.supervisor.get('everything')!;
    expect(snapshot.phase).toBe('available');
    for (const era of ['legacy', 'modern'] as const) {
      const client = defer(await connectClient(gw, '/servers/everything/mcp', era));
      // as declared, except experimental `tasks`, which the SDK's Server never advertises
      const { tasks: _tasks, ...declared } = snapshot.capabilities!;
      expect(client.getServerCapabilities()).toMatchObject(declared);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('echo');
      const echoed = await client.callTool({ name: 'echo', arguments: { message: `hi ${era}` } });
      expect(JSON.stringify(echoed.content)).toContain(`hi ${era}`);
      const progress: number[] = [];
      const done = await client.callTool(
        { name: 'trigger-long-running-operation', arguments: { duration: 0.4, steps: 4 } },
        { onprogress: (p) => void progress.push(p.progress) },
      );
      expect(JSON.stringify(done.content)).toContain('Long running operation completed');
      expect(progress.length).toBeGreaterThanOrEqual(2); // the SDK may drop the last event (SDK-V2-PROBE §6.1)
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
    }
    expect(gw.app.gateway.gate.totalInFlight()).toBe(0);
  });

  it('an agent abort cancels the upstream call and returns the permit', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gw-cancel-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const log = join(dir, 'probe.log');
    const gw = defer(await startLiveGateway([probe(log)], () => ({ clientLimits: { maxInFlight: 1 } })));
    const client = defer(await connectClient(gw, '/servers/probe/mcp', 'modern'));
    const abort = new AbortController();
    const call = client.callTool(
      { name: 'wait', arguments: { ms: 60_000, tag: 't1' } },
      { signal: abort.signal },
    );
    call.catch(() => {});
    await waitFor(() => gw.app.gateway.gate.inFlight('agent') === 1, {
      timeoutMs: 20_000,
      message: 'call in flight',
    });
    // the same client is over its concurrency limit now: refused at once, not queued
    const second = await fetch(`${gw.publicUrl}/servers/probe/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${gw.token('/servers/probe/mcp')}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('1');
    abort.abort();
    await expect(call).rejects.toThrow();
    await waitFor(async () => (await readFile(log, 'utf8').catch(() => '')).includes('cancelled t1'), {
      timeoutMs: 20_000,
      message: 'upstream cancellation',
    });
    await waitFor(() => gw.app.gateway.gate.totalInFlight() === 0, {
      timeoutMs: 10_000,
      message: 'permit released',
    });
  });

  it('never forwards the agent token, cookies or API keys upstream; the configured headers are sent', async () => {
    const upstream = defer(await startRecordingUpstream());
    const gw = defer(
      await startLiveGateway([
        { name: 'remote', transport: 'http', url: upstream.url, headers: { 'x-upstream-key': 'configured' } },
      ]),
    );
    const token = gw.token('/servers/remote/mcp');
    upstream.headers.length = 0;
    const res = await fetch(`${gw.publicUrl}/servers/remote/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        cookie: 'sid=agent-secret',
        'x-api-key': 'agent-key',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'echo', arguments: { a: 1 } },
      }),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('{\\"a\\":1}');
    expect(upstream.headers.length).toBeGreaterThan(0);
    for (const h of upstream.headers) {
      expect(JSON.stringify(h)).not.toContain(token);
      expect(h.cookie).toBeUndefined();
      expect(h['x-api-key']).toBeUndefined();
      expect(h['x-upstream-key']).toBe('configured');
    }
  });

  it('a server that is down answers 503 naming its phase; /health reports it; the others serve', async () => {
    const down = {
      name: 'down',
      transport: 'stdio' as const,
      command: process.execPath,
      args: ['-e', 'process.exit(3)'],
    };
    const gw = defer(await startLiveGateway([everything, down]));
    const phase = gw.supervisor.get('down')!.phase;
    expect(phase).not.toBe('available');
    const res = await fetch(`${gw.publicUrl}/servers/down/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${gw.token('/servers/down/mcp')}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: { code: -32000, data: { upstream: 'down' } } });
    const health = await fetch(`${gw.publicUrl}/health`, {
      headers: { authorization: `Bearer ${gw.token('/hub')}` },
    });
    const body = (await health.json()) as {
      status: string;
      servers: { name: string; phase: string; tools: number | null; lastError: string | null }[];
    };
    expect(body.status).toBe('degraded');
    expect(body.servers.find((s) => s.name === 'everything')).toMatchObject({
      phase: 'available',
      tools: expect.any(Number),
    });
    expect(body.servers.find((s) => s.name === 'down')?.lastError).toEqual(expect.any(String));
  });
});

describe('/hub and /mcp over the same upstream connections', { timeout: 90_000 }, () => {
  it('serves the hub meta-tools and the namespaced aggregate to both eras; hub:false servers are invisible to the hub only', async () => {
    const memory = {
      name: 'memory',
      transport: 'stdio' as const,
      command: process.execPath,
      args: [referenceServerPath('memory')],
      hub: false,
    };
    const gw = defer(
      await startLiveGateway([everything, memory], (registry) => ({
        hub: createHub({ registry }),
        aggregate: createAggregator({ registry, mode: 'aggregate' }),
      })),
    );
    const pids = gw.supervisor.list().map((s) => s.pid);
    for (const era of ['legacy', 'modern'] as const) {
      const hub = defer(await connectClient(gw, '/hub', era));
      expect((await hub.listTools()).tools.map((t) => t.name).sort()).toEqual([
        'call_tool',
        'get_tool',
        'list_servers',
        'list_tools',
      ]);
      const servers = await hub.callTool({ name: 'list_servers', arguments: {} });
      expect(JSON.stringify(servers.structuredContent)).toContain('everything');
      expect(JSON.stringify(servers.structuredContent)).not.toContain('memory');
      const called = await hub.callTool({
        name: 'call_tool',
        arguments: { server: 'everything', tool: 'echo', arguments: { message: 'via hub' } },
      });
      expect(JSON.stringify(called.content)).toContain('via hub');
      const agg = defer(await connectClient(gw, '/mcp', era));
      const names = (await agg.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['everything__echo', 'memory__read_graph']));
    }
    // the hub-hidden server keeps its own path
    const own = defer(await connectClient(gw, '/servers/memory/mcp', 'legacy'));
    expect((await own.listTools()).tools.map((t) => t.name)).toContain('read_graph');
    // one upstream process per server, shared by every endpoint: none was started or restarted
    expect(pids.every((pid) => typeof pid === 'number')).toBe(true);
    expect(gw.supervisor.list().map((s) => s.pid)).toEqual(pids);
  });
});
