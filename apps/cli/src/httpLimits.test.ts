// The request limits of `mcppipe up`'s HTTP server, on real sockets with the real host: the depth pre-scan (C4),
// the request/header timeouts that leave SSE streams alone (D2), batches (C2) and the 413 a client still uploading
// must read (issue 13.11).
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createMcpHttpHost } from '@mcppipe/http';
import type { HttpTimeouts } from '@mcppipe/http';
import { Server } from '@modelcontextprotocol/server';
import { MCP_POST_HEADERS as base, openRawSession } from '@mcppipe/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { buildHttpServer } from './httpServer.js';
import type { McpHttpServer } from './httpServer.js';

/** Every tools/call the server saw (the "upstream" of these tests). */
const calls: unknown[] = [];

function server(): Server {
  const s = new Server({ name: 'limits', version: '1.0.0' }, { capabilities: { tools: {} } });
  s.setRequestHandler('tools/list', () => ({ tools: [{ name: 'echo', inputSchema: { type: 'object' } }] }));
  s.setRequestHandler('tools/call', (req) => {
    calls.push(req.params.arguments);
    return { content: [{ type: 'text', text: 'called' }] };
  });
  return s;
}

const apps: { app: McpHttpServer; close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const { app, close } of apps.splice(0)) {
    app.server.closeAllConnections();
    await app.close();
    await close();
  }
  calls.length = 0;
});

async function listen(options: { timeouts?: HttpTimeouts; bodyLimit?: number } = {}) {
  const host = createMcpHttpHost(() => server(), { keepAliveMs: 300 });
  const app = await buildHttpServer({
    host: '127.0.0.1',
    bodyLimit: options.bodyLimit ?? 4 * 1024 * 1024,
    endpoints: { '/mcp': host },
    ...(options.timeouts && { timeouts: options.timeouts }),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  apps.push({ app, close: () => host.close() });
  const port = (app.server.address() as AddressInfo).port;
  return { port, url: `http://127.0.0.1:${port}/mcp` };
}

const session = (url: string) => openRawSession(url, { clientName: 't' });

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const MODERN = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' };

/** Reads a JSON-RPC error answer; the message must be the stable one, no internal text. */
async function rpcError(res: Response) {
  const body = (await res.json()) as { error: { code: number; message: string }; id: unknown };
  expect(body.error.message).not.toMatch(/call stack|RangeError|zod|ZodError|invalid_type|at .+:\d+/i);
  return body;
}

describe('C4: the JSON nesting-depth pre-scan of mcppipe up', () => {
  it('C4: a body nesting 5,000 deep is answered 400 / -32700 without a session, on a 2025 session and as a 2026-07-28 request', async () => {
    const { url } = await listen();
    const headers = await session(url);
    const deep = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"a":${nested(5_000)}}}}`;
    for (const [what, h] of [
      ['no session', base],
      ['2025 session', headers],
      ['2026-07-28', { ...base, ...MODERN }],
    ] as const) {
      const started = performance.now();
      const res = await fetch(url, { method: 'POST', headers: h, body: deep });
      const ms = performance.now() - started;
      expect(res.status, what).toBe(400);
      expect(await rpcError(res), what).toEqual({
        jsonrpc: '2.0',
        error: { code: -32700, message: 'Parse error: JSON nests deeper than 100 levels' },
        id: null,
      });
      expect(ms, what).toBeLessThan(2_000); // generous for a loaded machine; the scan itself is microseconds
    }
    expect(calls).toEqual([]);
  });

  it('C4: a tools/call whose arguments nest 4,200 deep on a live session is refused; the server is not called', async () => {
    const { url } = await listen();
    const headers = await session(url);
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body: `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"x":${nested(4_200)}}}}`,
    });
    expect(res.status).toBe(400);
    expect((await rpcError(res)).error.code).toBe(-32700);
    expect(calls).toEqual([]);
    // the session still works, and a body at the limit passes
    const ok = await fetch(url, {
      method: 'POST',
      headers,
      body: `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"x":${nested(97)}}}}`,
    });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('called');
    expect(calls).toHaveLength(1);
  });

  it('C4: invalid JSON gets a stable message, not the parser text', async () => {
    const { url } = await listen();
    const res = await fetch(url, { method: 'POST', headers: base, body: '{"jsonrpc":"2.0",' });
    expect(res.status).toBe(400);
    expect(await rpcError(res)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32700, message: 'Parse error: invalid JSON' },
      id: null,
    });
  });
});

describe('C2: batches on mcppipe up', () => {
  it('C2: a batch on a 2025-11-25 session and as a 2026-07-28 request is answered 400 / -32600', async () => {
    const { url } = await listen();
    const headers = await session(url);
    const batch = JSON.stringify([
      { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'echo', arguments: {} } },
    ]);
    for (const h of [headers, { ...base, ...MODERN }]) {
      const res = await fetch(url, { method: 'POST', headers: h, body: batch });
      expect(res.status).toBe(400);
      expect((await rpcError(res)).error.code).toBe(-32600);
    }
    expect(calls).toEqual([]);
  });
});

/** Opens a raw connection, writes `head`, then one byte per `everyMs`; resolves when the server closes it. */
function tricklingClient(port: number, head: string, everyMs: number) {
  return new Promise<{ received: string; closedAfterMs: number }>((resolve) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1', () => socket.write(head));
    let received = '';
    const trickle = setInterval(() => socket.write(' '), everyMs);
    socket.on('data', (c: Buffer) => (received += c.toString()));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(trickle);
      resolve({ received, closedAfterMs: Date.now() - started });
    });
    setTimeout(() => socket.destroy(), 20_000).unref();
  });
}

describe('D2: request timeouts that leave SSE streams alone', { timeout: 40_000 }, () => {
  it('D2: a body trickling one byte at a time is cut (408) after the request timeout, while an SSE GET stream held open longer stays open', async () => {
    const { port, url } = await listen({ timeouts: { headersTimeoutMs: 500, requestTimeoutMs: 1_500 } });
    const headers = await session(url);
    const sse = await fetch(url, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-session-id': headers['mcp-session-id'] },
    });
    expect(sse.status).toBe(200);
    expect(sse.headers.get('content-type')).toContain('text/event-stream');
    const reader = sse.body!.getReader();

    const slow = await tricklingClient(
      port,
      `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: 1000\r\n\r\n{`,
      200,
    );
    expect(slow.received.startsWith('HTTP/1.1 408') || slow.received === '').toBe(true);
    expect(slow.closedAfterMs).toBeGreaterThanOrEqual(1_000);
    expect(slow.closedAfterMs).toBeLessThan(15_000);

    // the SSE stream has been open for longer than the request timeout; it still delivers (keep-alive comments)
    await new Promise((r) => setTimeout(r, 1_000));
    const chunk = await Promise.race([
      reader.read(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('SSE stream silent')), 10_000)),
    ]);
    expect(chunk.done).toBe(false);
    expect(new TextDecoder().decode(chunk.value)).toContain(': keepalive');
    await reader.cancel();
  });
});

describe('an over-limit body: the client reads the 413 (issue 13.11)', () => {
  /** Uploads `bytes` in 64 KiB pieces without reading until `readAfterMs`; resolves with what it read. */
  function uploadThenRead(port: number, head: string, bytes: number, readAfterMs: number, chunked = false) {
    return new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let received = '';
      let settled = false;
      const finish = (result: string) => {
        if (settled) return;
        settled = true;
        socket.destroy();
        resolve(result);
      };
      socket.pause();
      socket.on('data', (c: Buffer) => {
        received += c.toString();
        if (received.includes('\r\n\r\n')) finish(received);
      });
      socket.on('error', (e: NodeJS.ErrnoException) => finish(`${e.code ?? 'error'} ${received}`));
      socket.on('close', () => finish(received));
      socket.write(head);
      const raw = Buffer.alloc(64 * 1024, 0x20);
      const piece = chunked
        ? Buffer.concat([Buffer.from(`${raw.length.toString(16)}\r\n`), raw, Buffer.from('\r\n')])
        : raw;
      let sent = 0;
      const pump = () => {
        while (sent < bytes) {
          sent += piece.length;
          if (!socket.write(piece)) {
            socket.once('drain', pump);
            return;
          }
        }
      };
      pump();
      setTimeout(() => socket.resume(), readAfterMs);
      setTimeout(() => finish(`timeout ${received}`), 15_000).unref();
    });
  }

  it('an 8 MiB body over a 1 KiB limit, declared or chunked: the client that reads late still gets HTTP 413', async () => {
    const { port } = await listen({ bodyLimit: 1024 });
    const common = `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n`;
    for (let i = 0; i < 3; i++) {
      const declared = await uploadThenRead(
        port,
        `${common}content-length: ${8 * 1024 * 1024}\r\n\r\n`,
        8 * 1024 * 1024,
        300,
      );
      expect(declared.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
      const chunked = await uploadThenRead(
        port,
        `${common}transfer-encoding: chunked\r\n\r\n`,
        8 * 1024 * 1024,
        300,
        true,
      );
      expect(chunked.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
    }
  });
});
