import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Server } from '@modelcontextprotocol/server';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpHttpHost } from './host.js';
import type { McpHttpHost, McpHttpHostOptions } from './types.js';

function echoServer(): Server {
  const server = new Server({ name: 'echo', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', () => ({
    tools: [{ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }],
  }));
  server.setRequestHandler('tools/call', (req) => ({
    content: [{ type: 'text', text: `echo: ${String(req.params.arguments?.['text'])}` }],
  }));
  return server;
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
});

async function start(
  options: McpHttpHostOptions = {},
  factory: () => Server = echoServer,
): Promise<{ url: URL; host: McpHttpHost }> {
  const host = createMcpHttpHost(factory, options);
  const http = createServer((req, res) => void host.handle(req, res));
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  cleanups.push(async () => {
    await host.close();
    http.closeAllConnections();
    await new Promise((r) => http.close(r));
  });
  return { url: new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`), host };
}

async function v1Client(url: URL) {
  const client = new V1Client({ name: 'v1', version: '1' });
  const transport = new V1Transport(url);
  await client.connect(transport);
  cleanups.push(() => client.close());
  return { client, transport };
}

describe('createMcpHttpHost', () => {
  it('serves a 2025-era client in a session and a 2026-07-28 client per request on one endpoint', async () => {
    const { url, host } = await start();
    const { client: legacy, transport } = await v1Client(url);
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(host.sessionCount()).toBe(1);
    const r1 = await legacy.callTool({ name: 'echo', arguments: { text: 'old' } });
    expect(r1.content).toEqual([{ type: 'text', text: 'echo: old' }]);

    const modern = new Client({ name: 'v2', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await modern.connect(new StreamableHTTPClientTransport(url));
    cleanups.push(() => modern.close());
    expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const r2 = await modern.callTool({ name: 'echo', arguments: { text: 'new' } });
    expect(r2.content).toEqual([{ type: 'text', text: 'echo: new' }]);
    expect(host.sessionCount()).toBe(1);
  });

  it('evicts the least recently used session beyond maxSessions; its id then answers 404', async () => {
    const { url, host } = await start({ maxSessions: 2 });
    const a = await v1Client(url);
    await v1Client(url);
    await v1Client(url);
    expect(host.sessionCount()).toBe(2);
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': a.transport.sessionId!,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: -32001 } });
  });

  it('DELETE ends a session', async () => {
    const { url, host } = await start();
    const { transport } = await v1Client(url);
    await transport.terminateSession();
    expect(host.sessionCount()).toBe(0);
  });

  it('closes sessions idle longer than the idle timeout', async () => {
    // long enough that a client on a loaded machine finishes its handshake before the session goes idle
    const { url, host } = await start({ sessionIdleTimeoutMs: 500 });
    await v1Client(url);
    expect(host.sessionCount()).toBe(1);
    // the sweeper runs every min(idle, 60 s) = 500 ms; poll (bounded) instead of assuming a schedule
    for (let i = 0; i < 250 && host.sessionCount() > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(host.sessionCount()).toBe(0);
  });

  it('answers a non-initialize 2025-era POST without a session with 400', async () => {
    const { url } = await start();
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(400);
  });

  it('answers invalid JSON with 400 -32700 and an oversize body with 413', async () => {
    const { url } = await start({ maxRequestBodySize: 1024 });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const bad = await fetch(url, { method: 'POST', headers, body: '{' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: -32700 } });
    const big = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ x: 'y'.repeat(2048) }) });
    expect(big.status).toBe(413);
  });

  it('stateless mode keeps nothing: 2025 clients get no session and GET is 405', async () => {
    const { url, host } = await start({ stateless: true });
    const { client, transport } = await v1Client(url);
    expect(transport.sessionId).toBeUndefined();
    const r = await client.callTool({ name: 'echo', arguments: { text: 'x' } });
    expect(r.content).toEqual([{ type: 'text', text: 'echo: x' }]);
    expect(host.sessionCount()).toBe(0);
    const get = await fetch(url, { headers: { accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
  });
});

describe('resource subscriptions of 2026-07-28 listen streams', () => {
  it('tells the host which URIs a listen stream wants and releases them when it closes', async () => {
    const held: string[][] = [];
    let released = 0;
    const { url } = await start(
      {
        onResourceSubscriptions: (uris) => {
          held.push(uris);
          return () => {
            released++;
          };
        },
      },
      () => {
        const server = new Server(
          { name: 'r', version: '1' },
          { capabilities: { resources: { subscribe: true } } },
        );
        server.setRequestHandler('resources/list', () => ({ resources: [] }));
        return server;
      },
    );
    const client = new Client({ name: 'v2', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(url));
    cleanups.push(() => client.close());
    const sub = await client.listen({ resourceSubscriptions: ['demo://a', 'demo://b'] });
    expect(held).toEqual([['demo://a', 'demo://b']]);
    expect(released).toBe(0);
    await sub.close();
    for (let i = 0; i < 100 && released === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(released).toBe(1);
  });
});
