/**
 * The gateway as a process (`node apps/gateway/dist/cli.js`), with real upstream processes, real OAuth
 * tokens and real clients: the pipeline order seen from outside (G5, G6), audiences, 503 while a server is
 * down (G9), and the hub with a `"hub": false` server.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixturePath, referenceServerPath } from '@mcppipe/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { obtainToken, rawPartialPost, rpcHeaders, startGateway } from './gatewayProcess.js';
import type { RunningGateway } from './gatewayProcess.js';

const node = process.execPath;
const layout = {
  mcpServers: {
    everything: { command: node, args: [referenceServerPath('everything')] },
    memory: { command: node, args: [referenceServerPath('memory')], hub: false },
    probe: { command: node, args: [fixturePath('e2e-probe.mjs')] },
    down: { command: node, args: ['-e', 'process.exit(3)'] },
  },
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcppipe-gw-e2e-'));
  await writeFile(join(dir, 'mcp.json'), JSON.stringify(layout, null, 2));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('gateway pipeline, audiences and routing', () => {
  let gw: RunningGateway;
  const tokens: Record<string, string> = {};
  beforeAll(async () => {
    gw = await startGateway(['--config', join(dir, 'mcp.json'), '--data-dir', join(dir, 'data-a')], {
      MCP_BODY_LIMIT: '1mb',
    });
    for (const path of ['/hub', '/mcp', '/servers/everything/mcp', '/servers/down/mcp'])
      tokens[path] = (await obtainToken(gw.url, path)).token;
  });
  afterAll(async () => {
    expect(await gw.stop()).toBe(0);
  });

  it('an oversize unauthenticated body gets 401, not 413, without being read', async () => {
    const res = await rawPartialPost(gw.port, '/servers/everything/mcp', {
      declaredBytes: 50 * 1024 * 1024,
      sentBytes: 64 * 1024,
    });
    expect(res.status).toBe(401);
    expect(res.head).toContain('www-authenticate: bearer resource_metadata="');
    expect(res.head).toContain('connection: close');
    // the same body with a valid token reaches the body stage: refused by its declared size, still unread
    const authed = await rawPartialPost(gw.port, '/servers/everything/mcp', {
      declaredBytes: 50 * 1024 * 1024,
      sentBytes: 64 * 1024,
      headers: { authorization: `Bearer ${tokens['/servers/everything/mcp']}` },
    });
    expect(authed.status).toBe(413);
  });

  it('tokens are bound to their endpoint: /hub and server paths are not interchangeable; /health shares /hub', async () => {
    const post = (path: string, token: string) =>
      fetch(`${gw.url}${path}`, {
        method: 'POST',
        headers: rpcHeaders(token),
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    const hubAtServer = await post('/servers/everything/mcp', tokens['/hub']!);
    expect(hubAtServer.status).toBe(401);
    expect(hubAtServer.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(hubAtServer.headers.get('www-authenticate')).toContain(
      `resource_metadata="${gw.url}/.well-known/oauth-protected-resource/servers/everything/mcp"`,
    );
    expect((await post('/hub', tokens['/servers/everything/mcp']!)).status).toBe(401);
    expect((await post('/servers/down/mcp', tokens['/servers/everything/mcp']!)).status).toBe(401);
    expect((await post('/mcp', tokens['/hub']!)).status).toBe(401);
    expect(
      (
        await fetch(`${gw.url}/health`, {
          headers: { authorization: `Bearer ${tokens['/servers/everything/mcp']}` },
        })
      ).status,
    ).toBe(401);
    const health = await fetch(`${gw.url}/health`, {
      headers: { authorization: `Bearer ${tokens['/hub']}` },
    });
    expect(health.status).toBe(200);
    const body = (await health.json()) as {
      servers: { name: string; phase: string; tools: number | null }[];
    };
    expect(body.servers.map((s) => s.name)).toEqual(['down', 'everything', 'memory', 'probe']);
    expect(body.servers.find((s) => s.name === 'everything')).toMatchObject({
      phase: 'available',
      tools: expect.any(Number),
    });
  });

  it('a server that is down answers 503 with a JSON-RPC error naming its phase; the others serve', async () => {
    const res = await fetch(`${gw.url}/servers/down/mcp`, {
      method: 'POST',
      headers: rpcHeaders(tokens['/servers/down/mcp']),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = (await res.json()) as { error: { code: number; message: string; data: { phase: string } } };
    expect(body.error.code).toBe(-32000);
    expect(['connecting', 'recovering']).toContain(body.error.data.phase);
    expect(body.error.message).toContain(body.error.data.phase);
    const ok = await fetch(`${gw.url}/servers/everything/mcp`, {
      method: 'POST',
      headers: rpcHeaders(tokens['/servers/everything/mcp']),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'echo', arguments: { message: 'still up' } },
      }),
    });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('still up');
  });

  it("a real client uses /hub: lists servers (not the hub:false one), one server's tools, one schema, and calls the tool", async () => {
    for (const era of ['legacy', 'modern'] as const) {
      const client = new Client(
        { name: `e2e-${era}`, version: '1' },
        era === 'modern' ? { versionNegotiation: { mode: 'auto' } } : {},
      );
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${gw.url}/hub`), {
          requestInit: { headers: { authorization: `Bearer ${tokens['/hub']}` } },
        }),
      );
      try {
        const servers = JSON.stringify(
          (await client.callTool({ name: 'list_servers', arguments: {} })).structuredContent,
        );
        expect(servers).toContain('"everything"');
        expect(servers).toContain('"probe"');
        expect(servers).not.toContain('"memory"');
        const tools = JSON.stringify(
          (await client.callTool({ name: 'list_tools', arguments: { server: 'everything' } }))
            .structuredContent,
        );
        expect(tools).toContain('"echo"');
        const schema = await client.callTool({
          name: 'get_tool',
          arguments: { server: 'everything', tool: 'echo' },
        });
        expect(JSON.stringify(schema.structuredContent)).toContain('inputSchema');
        const called = await client.callTool({
          name: 'call_tool',
          arguments: { server: 'everything', tool: 'echo', arguments: { message: `hub ${era}` } },
        });
        expect(JSON.stringify(called.content)).toContain(`hub ${era}`);
        const hidden = await client.callTool({ name: 'list_tools', arguments: { server: 'memory' } });
        expect(hidden.isError).toBe(true);
      } finally {
        await client.close();
      }
    }
  });

  it('/mcp serves the namespaced aggregate over the same connections', async () => {
    const client = new Client({ name: 'e2e-agg', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${tokens['/mcp']}` } },
      }),
    );
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining(['everything__echo', 'memory__read_graph', 'probe__wait']),
      );
    } finally {
      await client.close();
    }
  });
});

describe('the rate limit runs before anything is parsed', () => {
  it('a flood of unparsable bodies gets 429, not 400, once over the limit; /livez still answers', async () => {
    await using gw = await startGateway(
      ['--config', join(dir, 'mcp.json'), '--data-dir', join(dir, 'data-b')],
      { RATE_LIMIT_PER_MINUTE: '40' },
    );
    const { token } = await obtainToken(gw.url, '/servers/everything/mcp'); // the OAuth flow spends 6 of the 40
    const statuses: number[] = [];
    const codes: number[] = [];
    for (let i = 0; i < 50; i++) {
      const res = await fetch(`${gw.url}/servers/everything/mcp`, {
        method: 'POST',
        headers: rpcHeaders(token),
        body: '{"jsonrpc":"2.0",',
      });
      statuses.push(res.status);
      codes.push(((await res.json()) as { error: { code: number } }).error.code);
      if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    const first429 = statuses.indexOf(429);
    expect(first429).toBeGreaterThan(0);
    expect(statuses.slice(0, first429).every((s) => s === 400)).toBe(true); // parsed: -32700
    expect(codes.slice(0, first429).every((c) => c === -32700)).toBe(true);
    expect(statuses.slice(first429).every((s) => s === 429)).toBe(true); // not parsed any more
    expect(first429).toBeGreaterThanOrEqual(30); // 40 minus the requests of the OAuth flow
    expect((await fetch(`${gw.url}/livez`)).status).toBe(200);
  });
});
