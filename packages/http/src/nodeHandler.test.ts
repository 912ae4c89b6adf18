// createNodeHandler must answer exactly as the SDK's toNodeHandler does: the same handler behind both, the same
// requests, compared as a client sees them.
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { Server, createMcpHandler } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJsonBody } from './body.js';
import { createNodeHandler } from './nodeHandler.js';

const MODERN = '2026-07-28';
const meta = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

function factory() {
  const server = new Server({ name: 'nh', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', () => ({
    tools: [{ name: 'echo', inputSchema: { type: 'object' } }],
  }));
  server.setRequestHandler('tools/call', async (req, ctx) => {
    const name = req.params.name;
    if (name === 'progress') {
      const token = ctx.mcpReq._meta?.progressToken;
      if (token !== undefined)
        await ctx.mcpReq.notify({
          method: 'notifications/progress',
          params: { progressToken: token, progress: 1 },
        });
      return { content: [{ type: 'text', text: 'done' }] };
    }
    if (name === 'request') {
      const req2 = ctx.http?.req;
      const body = (await req2?.json()) as { id?: unknown } | undefined;
      return {
        content: [
          {
            type: 'text',
            text: `${req2?.method} ${new URL(req2?.url ?? 'http://x/').pathname} ${req2?.headers.get('x-probe')} ${String(body?.id)}`,
          },
        ],
      };
    }
    if (name === 'fail') throw new Error('boom');
    return {
      content: [
        {
          type: 'text',
          text: `echo: ${String((req.params.arguments as { text?: string } | undefined)?.text)}`,
        },
      ],
    };
  });
  return server;
}

type NodeHandler = (req: IncomingMessage, res: ServerResponse, body?: unknown) => Promise<void>;
const servers: ReturnType<typeof createServer>[] = [];
const handlers: { close(): Promise<void> }[] = [];
let sdkUrl: string;
let oursUrl: string;

async function serve(make: (h: ReturnType<typeof createMcpHandler>) => NodeHandler): Promise<string> {
  const mcp = createMcpHandler(factory, { legacy: 'stateless' });
  handlers.push(mcp);
  const node = make(mcp);
  const http = createServer((req, res) => {
    void (async () => {
      const body =
        req.method === 'POST' ? await readJsonBody(req, 1 << 20).catch(() => undefined) : undefined;
      await node(req, res, body);
    })();
  });
  servers.push(http);
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
}

beforeAll(async () => {
  sdkUrl = await serve((h) => toNodeHandler(h));
  oursUrl = await serve((h) => createNodeHandler(h, { maxRequestBodySize: 1 << 20 }));
});
afterAll(async () => {
  for (const h of handlers) await h.close();
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function both(init: { headers: Record<string, string>; body: unknown }) {
  const send = async (url: string) => {
    const res = await fetch(url, { method: 'POST', headers: init.headers, body: JSON.stringify(init.body) });
    const text = await res.text();
    const headers = Object.fromEntries(
      [...res.headers.entries()].filter(
        ([k]) => !['date', 'transfer-encoding', 'content-length', 'keep-alive'].includes(k),
      ),
    );
    return { status: res.status, headers, text };
  };
  return { sdk: await send(sdkUrl), ours: await send(oursUrl) };
}

const modernHeaders = (method: string, name?: string): Record<string, string> => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': MODERN,
  'mcp-method': method,
  ...(name ? { 'mcp-name': name } : {}),
});
const call = (id: number, name: string, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: { text: 'x' }, _meta: { ...meta, ...extra } },
});

describe('createNodeHandler answers as toNodeHandler does', () => {
  it('2026-07-28 calls: a JSON result, an SSE stream with progress, a failing tool, a list', async () => {
    for (const [headers, body] of [
      [modernHeaders('tools/call', 'echo'), call(1, 'echo')],
      [modernHeaders('tools/call', 'progress'), call(2, 'progress', { progressToken: 'p' })],
      [modernHeaders('tools/call', 'fail'), call(3, 'fail')],
      [modernHeaders('tools/list'), { jsonrpc: '2.0', id: 4, method: 'tools/list', params: { _meta: meta } }],
    ] as const) {
      const { sdk, ours } = await both({ headers, body });
      expect(ours).toEqual(sdk);
      expect(ours.status).toBe(200);
    }
  });

  it('rejections of the entry: missing Mcp-Method header, unsupported version, wrong content type', async () => {
    const noMethod = { ...modernHeaders('tools/call', 'echo') } as Record<string, string>;
    delete noMethod['mcp-method'];
    const badVersion = call(5, 'echo', { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' });
    for (const [headers, body] of [
      [noMethod, call(5, 'echo')],
      [modernHeaders('tools/call', 'echo'), badVersion],
      [{ ...modernHeaders('tools/call', 'echo'), 'content-type': 'text/plain' }, call(6, 'echo')],
    ] as const) {
      const { sdk, ours } = await both({ headers, body });
      expect(ours).toEqual(sdk);
      expect(ours.status).toBeGreaterThanOrEqual(400);
    }
  });

  it('2025-era stateless requests (the legacy leg answers over SSE)', async () => {
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    };
    const { sdk, ours } = await both({
      headers,
      body: {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'y' } },
      },
    });
    expect(ours).toEqual(sdk);
    expect(ours.text).toContain('echo: y');
  });

  it('hands handlers a request whose method, URL, headers and body are those of toWebRequest', async () => {
    const { sdk, ours } = await both({
      headers: { ...modernHeaders('tools/call', 'request'), 'x-probe': 'seen' },
      body: call(8, 'request'),
    });
    expect(ours).toEqual(sdk);
    expect(ours.text).toContain('POST /mcp seen 8');
  });
});
