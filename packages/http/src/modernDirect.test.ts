// The 2026-07-28 direct path (modernDirect.ts) must answer exactly as createMcpHandler does. Every case is sent
// to two hosts over the same server factory, one with the direct path and one without, and what a client sees
// (status, the headers that matter, the body) is compared; the handler-side effects (auth info, abort reasons)
// are compared too.
import { createServer } from 'node:http';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpHttpHost } from './host.js';
import { SHARED_MODERN_SERVER } from './modernDirect.js';

const VERSION = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** What handlers saw, per host. */
interface Seen {
  aborts: string[];
  auth: (string | undefined)[];
  builds: number;
}

class SharedServer extends Server {
  readonly [SHARED_MODERN_SERVER] = true;
}

function testServer(seen: Seen, shareable = true): Server {
  seen.builds++;
  const server = new (shareable ? SharedServer : Server)(
    { name: 'direct', version: '1.0.0' },
    { capabilities: { tools: {}, prompts: {} } },
  );
  server.setRequestHandler('tools/list', () => ({
    tools: [{ name: 'echo', inputSchema: { type: 'object' } }],
  }));
  server.setRequestHandler('prompts/list', () => ({ prompts: [] }));
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
        await new Promise((r) => setTimeout(r, Number(args['ms'] ?? 100)));
        return { content: [{ type: 'text', text: `slow ${String(args['text'])}` }] };
      case 'hang':
        await new Promise<void>((resolve) => {
          ctx.mcpReq.signal.addEventListener('abort', () => {
            const reason = ctx.mcpReq.signal.reason as { name?: string; code?: unknown; message?: string };
            seen.aborts.push(`${reason?.constructor?.name}:${String(reason?.code)}:${reason?.message}`);
            resolve();
          });
        });
        return { content: [{ type: 'text', text: 'aborted' }] };
      case 'ask': {
        const answer = ctx.mcpReq.inputResponses?.['q'] as { content?: { name?: string } } | undefined;
        if (answer !== undefined)
          return { content: [{ type: 'text', text: `hello ${answer.content?.name ?? '?'}` }] };
        return {
          resultType: 'input_required',
          inputRequests: {
            q: {
              method: 'elicitation/create',
              params: {
                mode: 'form',
                message: 'name?',
                requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
              },
            },
          },
          requestState: 'state-1',
        } as never;
      }
      case 'auth':
        seen.auth.push(ctx.http?.authInfo?.token);
        return { content: [{ type: 'text', text: `token ${String(ctx.http?.authInfo?.token)}` }] };
      case 'header':
        return { content: [{ type: 'text', text: String(ctx.http?.req?.headers.get('x-probe')) }] };
      case 'unknown':
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Unknown tool: unknown');
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
});

async function startHost(modernDirect: boolean, options: { stateless?: boolean; shareable?: boolean } = {}) {
  const seen: Seen = { aborts: [], auth: [], builds: 0 };
  const host = createMcpHttpHost(() => testServer(seen, options.shareable ?? true), {
    modernDirect,
    ...(options.stateless !== undefined && { stateless: options.stateless }),
  });
  const http = createServer((req, res) => {
    const token = req.headers['x-token'];
    if (typeof token === 'string') {
      const auth: AuthInfo = { token, clientId: 'c', scopes: ['s'] };
      (req as IncomingMessage & { auth?: AuthInfo }).auth = auth;
    }
    void host.handle(req, res);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  cleanups.push(async () => {
    await host.close();
    http.closeAllConnections();
    await new Promise((r) => http.close(r));
  });
  return { url: new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`), host, seen };
}

/** Both hosts: `direct` with the direct path, `sdk` without. */
async function pair(options: { stateless?: boolean; shareable?: boolean } = {}) {
  return { direct: await startHost(true, options), sdk: await startHost(false, options) };
}

interface Req {
  method: string;
  params?: Record<string, unknown>;
  id?: unknown;
  headers?: Record<string, string>;
  /** Drop these default headers. */
  omit?: string[];
  /** Send this body as is. */
  raw?: unknown;
}

function post(url: URL, r: Req, signal?: AbortSignal): Promise<Response> {
  const params = { ...(r.params ?? {}), _meta: { ...META, ...((r.params?.['_meta'] as object) ?? {}) } };
  const name = r.params?.['name'] ?? r.params?.['uri'];
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': VERSION,
    'mcp-method': r.method,
    ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
    ...r.headers,
  };
  for (const h of r.omit ?? []) delete headers[h];
  const body = r.raw ?? { jsonrpc: '2.0', id: r.id ?? 1, method: r.method, params };
  return fetch(url, { method: 'POST', headers, body: JSON.stringify(body), ...(signal && { signal }) });
}

/** What a client sees of a response: status, the headers that matter, and the SSE data lines (or JSON body). */
async function seenOf(res: Response) {
  const text = await res.text();
  const data = text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as unknown);
  const h = Object.fromEntries(
    [...res.headers.entries()].filter(([k]) => !['date', 'transfer-encoding', 'keep-alive'].includes(k)),
  );
  const sse = h['content-type'] === 'text/event-stream';
  if (sse) delete h['content-length'];
  return {
    status: res.status,
    headers: h,
    body: sse ? data : text ? (JSON.parse(text) as unknown) : undefined,
  };
}

async function both(hosts: Awaited<ReturnType<typeof pair>>, r: Req) {
  const [a, b] = await Promise.all([
    post(hosts.direct.url, r).then(seenOf),
    post(hosts.sdk.url, r).then(seenOf),
  ]);
  expect(a).toEqual(b);
  return a;
}

const call = (name: string, args: Record<string, unknown> = {}, extra: Partial<Req> = {}): Req => ({
  method: 'tools/call',
  params: { name, arguments: args },
  ...extra,
});

describe('the 2026-07-28 direct path answers as createMcpHandler does', () => {
  it('serves plain requests on one shared instance, with the same JSON answers', async () => {
    const hosts = await pair();
    const echo = await both(hosts, call('echo', { text: 'hi' }));
    expect(echo.status).toBe(200);
    expect(echo.headers['content-type']).toBe('application/json');
    expect(echo.body).toMatchObject({ id: 1, result: { content: [{ text: 'echo: hi' }] } });
    await both(hosts, { method: 'tools/list', id: 'list-1' });
    await both(hosts, { method: 'prompts/list', id: 7 });
    await both(hosts, call('header', {}, { headers: { 'x-probe': 'p1' } }));
    for (let i = 0; i < 3; i++) await both(hosts, call('echo', { text: String(i) }, { id: i }));
    // one instance served every direct request; the SDK path builds one per request
    expect(hosts.direct.seen.builds).toBe(1);
    expect(hosts.sdk.seen.builds).toBeGreaterThanOrEqual(7);
  });

  it('answers progress as the same SSE stream', async () => {
    const hosts = await pair();
    const r = await both(
      hosts,
      call('progress', {}, { params: { name: 'progress', _meta: { progressToken: 'p' } } }),
    );
    expect(r.headers['content-type']).toBe('text/event-stream');
    expect(r.body).toHaveLength(4);
    // without a progress token: plain JSON
    expect((await both(hosts, call('progress'))).headers['content-type']).toBe('application/json');
    expect(hosts.direct.seen.builds).toBe(1);
  });

  it('answers handler errors, invalid params and unknown methods alike (statuses included)', async () => {
    const hosts = await pair();
    expect((await both(hosts, call('unknown'))).body).toMatchObject({ error: { code: -32602 } });
    expect((await both(hosts, call('fail'))).body).toMatchObject({ error: { code: -32603 } });
    // tools/call without a name: the SDK's request validation
    const invalid = await both(hosts, { method: 'tools/call', params: { arguments: {} } });
    expect(invalid.body).toMatchObject({ error: { code: -32602 } });
    // ping is no 2026-07-28 method: -32601 at dispatch, HTTP 404
    expect((await both(hosts, { method: 'ping' })).status).toBe(404);
    expect(hosts.direct.seen.builds).toBe(1);
    // a method the direct path leaves to the SDK
    await both(hosts, { method: 'resources/subscribe', params: { uri: 'x://y' } });
  });

  it('leaves every ladder rejection to the SDK: envelope, versions, header/body mismatches, content type', async () => {
    const hosts = await pair();
    const cases: Req[] = [
      // invalid envelope (clientInfo not an object)
      call('echo', {}, { params: { name: 'echo', _meta: { 'io.modelcontextprotocol/clientInfo': 3 } } }),
      // unsupported revision in both header and envelope
      call(
        'echo',
        {},
        {
          params: { name: 'echo', _meta: { 'io.modelcontextprotocol/protocolVersion': '2027-01-01' } },
          headers: { 'mcp-protocol-version': '2027-01-01' },
        },
      ),
      // header/body version mismatch
      call('echo', {}, { headers: { 'mcp-protocol-version': '2025-11-25' } }),
      // Mcp-Method mismatch, missing, Mcp-Name mismatch, missing, Base64 sentinel, missing protocol version
      call('echo', {}, { headers: { 'mcp-method': 'tools/list' } }),
      call('echo', {}, { omit: ['mcp-method'] }),
      call('echo', {}, { headers: { 'mcp-name': 'other' } }),
      call('echo', {}, { omit: ['mcp-name'] }),
      call('echo', {}, { headers: { 'mcp-name': '=?base64?ZWNobw==?=' } }),
      call('echo', {}, { headers: { 'mcp-name': '  echo ' } }),
      call('echo', {}, { omit: ['mcp-protocol-version'] }),
      // not JSON
      call('echo', {}, { headers: { 'content-type': 'text/plain' } }),
      // not a JSON-RPC request: no id, a batch, a response
      { method: 'tools/call', raw: { jsonrpc: '2.0', method: 'tools/call', params: { _meta: META } } },
      {
        method: 'tools/call',
        raw: [{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } }],
      },
      { method: 'tools/call', raw: { jsonrpc: '2.0', id: 1, result: {} } },
      { method: 'tools/list', raw: { jsonrpc: '1.0', id: 1, method: 'tools/list', params: { _meta: META } } },
      // a modern header without the envelope
      { method: 'tools/list', raw: { jsonrpc: '2.0', id: 1, method: 'tools/list' } },
    ];
    for (const c of cases) {
      const r = await both(hosts, c);
      expect(r.status, JSON.stringify(c)).not.toBe(500);
    }
  });

  it('answers input_required as the SDK does, and the retry with input responses', async () => {
    const hosts = await pair();
    // the request declares no elicitation capability: -32021, HTTP 400
    const refused = await both(hosts, call('ask'));
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: { code: -32021 } });
    const capable = {
      name: 'ask',
      arguments: {},
      _meta: { 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } },
    };
    const asked = await both(hosts, { method: 'tools/call', params: capable });
    expect(asked.body).toMatchObject({ result: { resultType: 'input_required', requestState: 'state-1' } });
    const retried = await both(hosts, {
      method: 'tools/call',
      params: {
        ...capable,
        requestState: 'state-1',
        inputResponses: { q: { action: 'accept', content: { name: 'ada' } } },
      },
    });
    expect(retried.body).toMatchObject({ result: { content: [{ text: 'hello ada' }] } });
    expect(hosts.direct.seen.builds).toBe(1);
  });

  it('hands the request auth info to handlers', async () => {
    const hosts = await pair();
    await both(hosts, call('auth', {}, { headers: { 'x-token': 'tok-1' } }));
    await both(hosts, call('auth'));
    expect(hosts.direct.seen.auth).toEqual(['tok-1', undefined]);
    expect(hosts.sdk.seen.auth).toEqual(hosts.direct.seen.auth);
    expect(hosts.direct.seen.builds).toBe(1);
  });

  it('aborts the handler with the same reason when the client disconnects', async () => {
    const hosts = await pair();
    for (const host of [hosts.direct, hosts.sdk]) {
      const controller = new AbortController();
      const pending = post(host.url, call('hang'), controller.signal).catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 100));
      controller.abort();
      await pending;
      for (let i = 0; i < 100 && host.seen.aborts.length === 0; i++)
        await new Promise((r) => setTimeout(r, 10));
    }
    expect(hosts.direct.seen.aborts).toHaveLength(1);
    expect(hosts.direct.seen.aborts).toEqual(hosts.sdk.seen.aborts);
    // the shared instance still serves
    await both(hosts, call('echo', { text: 'after' }));
    expect(hosts.direct.seen.builds).toBe(1);
  });

  it('answers a request still running when the host closes as the SDK does', async () => {
    const hosts = await pair();
    const answers = await Promise.all(
      [hosts.direct, hosts.sdk].map(async (host) => {
        const pending = post(host.url, call('hang'));
        await new Promise((r) => setTimeout(r, 100));
        await host.host.close();
        return seenOf(await pending);
      }),
    );
    expect(answers[0]).toEqual(answers[1]);
    expect(hosts.direct.seen.builds).toBe(1);
  });

  it('leaves requests to the SDK once the shared instance was closed from elsewhere', async () => {
    const shared: Server[] = [];
    const seen: Seen = { aborts: [], auth: [], builds: 0 };
    const host = createMcpHttpHost(() => {
      const server = testServer(seen);
      shared.push(server);
      return server;
    });
    const http = createServer((req, res) => void host.handle(req, res));
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    cleanups.push(async () => {
      await host.close();
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
    });
    const url = new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
    expect((await seenOf(await post(url, call('echo', { text: '1' })))).status).toBe(200);
    expect(seen.builds).toBe(1);
    await shared[0]?.close();
    const after = await seenOf(await post(url, call('echo', { text: '2' })));
    expect(after.body).toMatchObject({ result: { content: [{ text: 'echo: 2' }] } });
    expect(seen.builds).toBe(2);
  });

  it('keeps concurrent requests with the same JSON-RPC id apart', async () => {
    const { direct } = await pair();
    const answers = await Promise.all(
      ['a', 'b', 'c', 'd'].map((text, i) =>
        post(direct.url, call('slow', { text, ms: 40 - i * 10 }, { id: 1 })).then(seenOf),
      ),
    );
    expect(answers.map((a) => a.body)).toEqual(
      ['a', 'b', 'c', 'd'].map((text) =>
        expect.objectContaining({
          id: 1,
          result: expect.objectContaining({ content: [{ type: 'text', text: `slow ${text}` }] }),
        }),
      ),
    );
  });

  it('serves stateless hosts too, and servers without the mark per request', async () => {
    const stateless = await pair({ stateless: true });
    await both(stateless, call('echo', { text: 's' }));
    expect(stateless.direct.seen.builds).toBe(1);
    const plain = await pair({ shareable: false });
    await both(plain, call('echo', { text: 'p' }));
    await both(plain, call('echo', { text: 'q' }));
    // one probe instance, then per request like the SDK path
    expect(plain.direct.seen.builds).toBe(plain.sdk.seen.builds + 1);
  });

  it('serves a real 2026-07-28 client', async () => {
    const { direct } = await pair();
    const client = new Client({ name: 'v2', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(direct.url));
    cleanups.push(() => client.close());
    expect(client.getNegotiatedProtocolVersion()).toBe(VERSION);
    const progress: number[] = [];
    const r = await client.callTool(
      { name: 'progress', arguments: {} },
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(r.content).toEqual([{ type: 'text', text: 'done' }]);
    expect(progress).toEqual([1, 2, 3]);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
    await expect(client.callTool({ name: 'unknown', arguments: {} })).rejects.toThrow(/Unknown tool/);
  });
});
