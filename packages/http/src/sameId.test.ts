// Issues 13.1 and 14.9: requests that reuse a JSON-RPC id on one 2025-era session (clients that send `id: 1` on
// every request) each get their own answer on their own POST; a cancel naming a shared id reaches the most recent
// request. And C2: JSON-RPC batches only where a session negotiated 2025-03-26.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/server';
import { MCP_POST_HEADERS as base, openRawSession } from '@mcppipe/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpHttpHost } from './host.js';

/** Per test: the tags whose handler saw its request aborted. */
const aborted: string[] = [];

function tagServer(): Server {
  const server = new Server({ name: 'tags', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/call', async (req, ctx) => {
    const args = (req.params.arguments ?? {}) as { tag?: string; ms?: number };
    const tag = String(args.tag);
    const token = ctx.mcpReq._meta?.progressToken;
    if (token !== undefined)
      await ctx.mcpReq.notify({
        method: 'notifications/progress',
        params: { progressToken: token, progress: 1, message: tag },
      });
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, args.ms ?? 0);
      ctx.mcpReq.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        aborted.push(tag);
        resolve();
      });
    });
    return { content: [{ type: 'text', text: `result of ${tag}` }] };
  });
  return server;
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
  aborted.length = 0;
});

async function session(protocolVersion = '2025-11-25') {
  const host = createMcpHttpHost(() => tagServer());
  const http = createServer((req, res) => void host.handle(req, res));
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  cleanups.push(async () => {
    await host.close();
    http.closeAllConnections();
    await new Promise((r) => http.close(r));
  });
  const url = new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
  const headers = await openRawSession(url, { clientName: 't', protocolVersion });
  return { url, headers, host };
}

const callBody = (id: number | string, tag: string, ms: number, progressToken?: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 't', arguments: { tag, ms }, ...(progressToken && { _meta: { progressToken } }) },
  });

/** The JSON-RPC messages of an SSE (or JSON) answer. */
async function messages(res: Response): Promise<Record<string, unknown>[]> {
  const text = await res.text();
  if (!(res.headers.get('content-type') ?? '').includes('text/event-stream'))
    return [JSON.parse(text) as Record<string, unknown>];
  return text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
}

/** Fails the test instead of hanging when an answer never comes (issue 14.9: streams left open). */
const within = <T>(p: Promise<T>, ms = 20_000) =>
  Promise.race([
    p,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)),
  ]);

const textOf = (m: Record<string, unknown> | undefined) =>
  (m?.['result'] as { content?: { text?: string }[] } | undefined)?.content?.[0]?.text;

describe('one 2025-era session, requests reusing a JSON-RPC id (issue 13.1)', () => {
  it('a slow and a fast call both with id 1: each answer on its own POST, with id 1', async () => {
    const { url, headers } = await session();
    const slow = fetch(url, { method: 'POST', headers, body: callBody(1, 'slow', 600, 'p-slow') });
    await new Promise((r) => setTimeout(r, 100)); // the slow one is in flight first
    const fast = fetch(url, { method: 'POST', headers, body: callBody(1, 'fast', 0, 'p-fast') });
    const [slowMsgs, fastMsgs] = await within(Promise.all([slow.then(messages), fast.then(messages)]));
    const slowAnswer = slowMsgs.find((m) => 'result' in m || 'error' in m);
    const fastAnswer = fastMsgs.find((m) => 'result' in m || 'error' in m);
    expect(slowAnswer?.['id']).toBe(1);
    expect(fastAnswer?.['id']).toBe(1);
    expect(textOf(slowAnswer)).toBe('result of slow');
    expect(textOf(fastAnswer)).toBe('result of fast');
    // progress notifications stay on their own request's stream too
    expect(slowMsgs.filter((m) => m['method'] === 'notifications/progress').map((m) => m['params'])).toEqual([
      { progressToken: 'p-slow', progress: 1, message: 'slow' },
    ]);
    expect(fastMsgs.filter((m) => m['method'] === 'notifications/progress').map((m) => m['params'])).toEqual([
      { progressToken: 'p-fast', progress: 1, message: 'fast' },
    ]);
  });

  it('eight concurrent POSTs with id 1 (issue 14.9): eight answers, each its own result, none left open', async () => {
    const { url, headers } = await session();
    // the earliest sent finishes last, so answers come back in the reverse order of the requests
    const posts = Array.from({ length: 8 }, (_, i) =>
      fetch(url, { method: 'POST', headers, body: callBody(1, `call-${i}`, 50 * (8 - i)) }).then(messages),
    );
    const answers = await within(Promise.all(posts));
    expect(answers.map((msgs) => msgs.map((m) => [m['id'], textOf(m)]))).toEqual(
      Array.from({ length: 8 }, (_, i) => [[1, `result of call-${i}`]]),
    );
  });

  it('a cancel naming a shared id cancels the most recent request with that id; the other completes', async () => {
    const { url, headers } = await session();
    const older = fetch(url, { method: 'POST', headers, body: callBody(1, 'older', 1_500) }).then(messages);
    await new Promise((r) => setTimeout(r, 100));
    const newerAbort = new AbortController();
    const newer = fetch(url, {
      method: 'POST',
      headers,
      body: callBody(1, 'newer', 30_000),
      signal: newerAbort.signal,
    });
    await newer; // headers sent: the newer one is in flight
    const cancel = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }),
    });
    expect(cancel.status).toBe(202);
    const olderMsgs = await within(older);
    expect(textOf(olderMsgs[0])).toBe('result of older');
    expect(olderMsgs[0]?.['id']).toBe(1);
    expect(aborted).toEqual(['newer']);
    newerAbort.abort();
  });

  it('without a collision a cancel reaches its request unchanged', async () => {
    const { url, headers } = await session();
    const abort = new AbortController();
    await fetch(url, { method: 'POST', headers, body: callBody(5, 'only', 30_000), signal: abort.signal });
    await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } }),
    });
    await within(
      (async () => {
        while (aborted.length === 0) await new Promise((r) => setTimeout(r, 20));
      })(),
    );
    expect(aborted).toEqual(['only']);
    abort.abort();
  });
});

describe('C2: JSON-RPC batches', () => {
  const batch = JSON.stringify([
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't', arguments: { tag: 'b' } } },
  ]);

  it('C2: a batch on a 2025-11-25 and a 2025-06-18 session is refused with 400 / -32600', async () => {
    for (const version of ['2025-11-25', '2025-06-18']) {
      const { url, headers } = await session(version);
      const res = await fetch(url, { method: 'POST', headers, body: batch });
      expect(res.status, version).toBe(400);
      const body = (await res.json()) as { error: { code: number; message: string }; id: null };
      expect(body.error.code).toBe(-32600);
      expect(body.error.message).toMatch(/batches are not supported/);
    }
  });

  it('C2: a batch without a session (a 2026-07-28 request, or a batched initialize) is refused with 400 / -32600', async () => {
    const { url } = await session();
    const extras: Record<string, string>[] = [
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
      {},
    ];
    for (const extra of extras) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { ...base, ...extra },
        body: JSON.stringify([
          {
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: {
              protocolVersion: '2025-03-26',
              capabilities: {},
              clientInfo: { name: 't', version: '1' },
            },
          },
        ]),
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32600);
    }
  });

  it('C2: a session that negotiated 2025-03-26 keeps its batches', async () => {
    const { url, headers } = await session('2025-03-26');
    const res = await fetch(url, { method: 'POST', headers, body: batch });
    expect(res.status).toBe(200);
    const msgs = await messages(res);
    expect(msgs.map((m) => [m['id'], textOf(m)])).toEqual([[1, 'result of b']]);
  });
});
