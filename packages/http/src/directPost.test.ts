// The 2025-session fast path (directPost.ts) must answer exactly as the SDK transport does. A one-element batch
// (accepted on a 2025-03-26 session only, the revision that has batches) always takes the SDK's path, so each check runs the same call both ways and compares what a client sees.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/server';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { openRawSession } from '@mcppipe/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { SERIALIZED_RESULT } from './directPost.js';
import { createMcpHttpHost } from './host.js';
import type { McpHttpHostOptions } from './types.js';

const errors: Error[] = [];

/**
 * A tools/list result carrying its own JSON text (SERIALIZED_RESULT), written with a space after every colon, so a
 * client can tell that the fast path wrote these bytes rather than serializing the object.
 */
const LIST_TEXT = JSON.stringify({ tools: [{ name: 'echo', inputSchema: { type: 'object' } }] }).replace(
  /":/g,
  '": ',
);
function listResult() {
  const result = JSON.parse(LIST_TEXT) as { tools: { name: string; inputSchema: { type: 'object' } }[] };
  Object.defineProperty(result, SERIALIZED_RESULT, { enumerable: false, value: Buffer.from(LIST_TEXT) });
  return result;
}

function testServer(): Server {
  const server = new Server({ name: 'direct', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.onerror = (e) => errors.push(e);
  server.setRequestHandler('tools/list', () => listResult());
  server.setRequestHandler('tools/call', async (req, ctx) => {
    const args = (req.params.arguments ?? {}) as Record<string, unknown>;
    const token = ctx.mcpReq._meta?.progressToken;
    switch (req.params.name) {
      case 'progress':
        for (let i = 1; i <= 3; i++) {
          if (token !== undefined)
            await ctx.mcpReq.notify({
              method: 'notifications/progress',
              params: { progressToken: token, progress: i, total: 3 },
            });
        }
        return { content: [{ type: 'text', text: 'done' }] };
      case 'slow':
        await new Promise((r) => setTimeout(r, Number(args['ms'] ?? 150)));
        return { content: [{ type: 'text', text: 'slow done' }] };
      case 'ask': {
        const answer = (await ctx.mcpReq.send({
          method: 'elicitation/create',
          params: {
            message: 'name?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
          },
        })) as { content?: { name?: string } };
        return { content: [{ type: 'text', text: `hello ${answer.content?.name ?? '?'}` }] };
      }
      case 'header':
        return { content: [{ type: 'text', text: String(ctx.http?.req?.headers.get('x-probe')) }] };
      case 'fail':
        throw new Error('tool failed');
      default:
        return { content: [{ type: 'text', text: `echo: ${String(args['text'])}` }] };
    }
  });
  return server;
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
  errors.length = 0;
});

async function start(options: McpHttpHostOptions = {}, protocolVersion = '2025-11-25') {
  const host = createMcpHttpHost(() => testServer(), options);
  const http = createServer((req, res) => void host.handle(req, res));
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  cleanups.push(async () => {
    await host.close();
    http.closeAllConnections();
    await new Promise((r) => http.close(r));
  });
  const url = new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
  const headers = await openRawSession(url, {
    clientName: 't',
    protocolVersion,
    capabilities: { elicitation: {} },
  });
  const sid = headers['mcp-session-id'];
  return { url, host, sid, headers };
}

/** What a client sees of a response: status, the headers that matter, and the SSE data lines (or JSON body). */
async function seen(res: Response) {
  const text = await res.text();
  const data = text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as unknown);
  const h = Object.fromEntries(
    [...res.headers.entries()].filter(
      ([k]) => !['date', 'transfer-encoding', 'content-length', 'keep-alive'].includes(k),
    ),
  );
  return {
    status: res.status,
    headers: h,
    data: data.length > 0 ? data : text ? (JSON.parse(text) as unknown) : undefined,
    text,
  };
}

const call = (
  id: number,
  name: string,
  args: Record<string, unknown> = {},
  meta?: Record<string, unknown>,
) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
});

describe('the 2025-session fast path answers as the SDK transport does', () => {
  it('same status, headers and SSE events for a plain call, a progress stream and a failing tool', async () => {
    const { url, headers } = await start({}, '2025-03-26');
    for (const [name, args, meta] of [
      ['echo', { text: 'x' }, undefined],
      ['progress', {}, { progressToken: 'p1' }],
      ['fail', {}, undefined],
    ] as const) {
      const fast = await seen(
        await fetch(url, { method: 'POST', headers, body: JSON.stringify(call(7, name, args, meta)) }),
      );
      const sdk = await seen(
        await fetch(url, { method: 'POST', headers, body: JSON.stringify([call(7, name, args, meta)]) }),
      );
      expect(fast.status).toBe(200);
      expect(fast.headers).toEqual(sdk.headers);
      expect(fast.data).toEqual(sdk.data);
    }
  });

  it('writes a result that carries its own JSON text (SERIALIZED_RESULT) as those bytes, spliced into the event', async () => {
    const { url, headers } = await start({}, '2025-03-26');
    const list = { jsonrpc: '2.0', id: 'l-1', method: 'tools/list', params: {} };
    const fastRes = await fetch(url, { method: 'POST', headers, body: JSON.stringify(list) });
    const length = Number(fastRes.headers.get('content-length'));
    const fast = await seen(fastRes);
    const sdk = await seen(await fetch(url, { method: 'POST', headers, body: JSON.stringify([list]) }));
    expect(fast.text).toBe(`event: message\ndata: {"result":${LIST_TEXT},"jsonrpc":"2.0","id":"l-1"}\n\n`);
    expect(length).toBe(Buffer.byteLength(fast.text));
    expect(sdk.text).not.toContain(LIST_TEXT); // the SDK transport serializes the object itself
    expect(fast.headers).toEqual(sdk.headers);
    expect(fast.data).toEqual(sdk.data);
    expect(fast.data).toEqual([
      { jsonrpc: '2.0', id: 'l-1', result: { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] } },
    ]);
  });

  it('progress notifications come on the call stream before the result', async () => {
    const { url, headers } = await start();
    const r = await seen(
      await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify(call(3, 'progress', {}, { progressToken: 'tok' })),
      }),
    );
    expect(r.data).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'tok', progress: 1, total: 3 },
      },
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'tok', progress: 2, total: 3 },
      },
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'tok', progress: 3, total: 3 },
      },
      { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'done' }] } },
    ]);
  });

  it('leaves every request the SDK refuses to the SDK: unsupported protocol version, Accept, Content-Type, invalid message', async () => {
    const { url, headers } = await start();
    const body = JSON.stringify(call(1, 'echo', { text: 'x' }));
    const version = await seen(
      await fetch(url, {
        method: 'POST',
        headers: { ...headers, 'mcp-protocol-version': '1999-01-01' },
        body,
      }),
    );
    expect(version.status).toBe(400);
    const accept = await seen(
      await fetch(url, { method: 'POST', headers: { ...headers, accept: 'application/json' }, body }),
    );
    expect(accept.status).toBe(406);
    const type = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'text/plain' },
      body,
    });
    expect(type.status).toBe(415);
    const invalid = await seen(
      await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'tools/call' }),
      }),
    );
    expect(invalid.status).toBe(400);
    expect(invalid.data).toMatchObject({ error: { code: -32700 } });
  });

  it('hands handlers ctx.http.req with the request headers', async () => {
    const { url, headers } = await start();
    const r = await seen(
      await fetch(url, {
        method: 'POST',
        headers: { ...headers, 'x-probe': 'seen' },
        body: JSON.stringify(call(4, 'header')),
      }),
    );
    expect(r.data).toEqual([
      { jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: 'seen' }] } },
    ]);
  });

  it('sends headers while a slow call runs, then keep-alive comments, then the result', async () => {
    const { url, headers } = await start({ keepAliveMs: 40 });
    const started = Date.now();
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify(call(5, 'slow', { ms: 400 })),
    });
    const headersAfter = Date.now() - started;
    expect(res.status).toBe(200);
    expect(headersAfter).toBeLessThan(390); // headers came before the result (bounded, not a tight timing claim)
    const r = await seen(res);
    expect(r.text).toContain(': keepalive');
    expect(r.data).toEqual([
      { jsonrpc: '2.0', id: 5, result: { content: [{ type: 'text', text: 'slow done' }] } },
    ]);
  });

  it('carries server→client requests related to the call on its stream (a real v1 client answers an elicitation)', async () => {
    const host = createMcpHttpHost(() => testServer());
    const http = createServer((req, res) => void host.handle(req, res));
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    cleanups.push(async () => {
      await host.close();
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
    });
    const client = new V1Client({ name: 'v1', version: '1' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { name: 'Ada' } }));
    await client.connect(
      new V1Transport(new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`)),
    );
    cleanups.push(() => client.close());
    const r = await client.callTool({ name: 'ask', arguments: {} });
    expect(r.content).toEqual([{ type: 'text', text: 'hello Ada' }]);
  });

  it('reports a response whose client went away as undeliverable, like the SDK', async () => {
    const { url, headers } = await start();
    const controller = new AbortController();
    const pending = fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify(call(9, 'slow', { ms: 300 })),
      signal: controller.signal,
    });
    await new Promise((r) => setTimeout(r, 100));
    controller.abort();
    await pending.then((r) => r.text()).catch(() => undefined);
    for (let i = 0; i < 100 && errors.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringContaining('Response for request ID 9 is undeliverable'),
    ]);
  });

  it('ends an open call stream when the session is deleted', async () => {
    const { url, headers, host } = await start();
    const pending = fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify(call(11, 'slow', { ms: 2000 })),
    });
    await new Promise((r) => setTimeout(r, 100));
    const del = await fetch(url, {
      method: 'DELETE',
      headers: { 'mcp-session-id': headers['mcp-session-id'], 'mcp-protocol-version': '2025-11-25' },
    });
    expect(del.status).toBe(200);
    const res = await pending;
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    expect(host.sessionCount()).toBe(0);
  });
});
