// The gateway's side of issues 13.1/14.9 (its routes are stateless: requests reusing a JSON-RPC id are separate
// exchanges), C2 (batches) and 13.11 (an over-limit body's client reads the 413).
import type { UpstreamSnapshot } from '@mcppipe/supervisor';
import { normalizeResource } from '@mcppipe/oauth';
import { connect } from 'node:net';
import { createAggregator } from '@mcppipe/aggregator';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from './app.js';
import type { GatewayDeps } from './types.js';
import { TestRegistry, fakeToken, FakeVerifier, freePort, sseJson } from '@mcppipe/test-utils';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** An upstream whose `t` tool answers with its `tag` after `ms`. */
function registry() {
  return new TestRegistry<UpstreamSnapshot>({ retryAfterMs: 1000 }).add('alpha', async (request) => {
    if (request.method === 'tools/list') return { tools: [{ name: 't', inputSchema: { type: 'object' } }] };
    const args = ((request.params as { arguments?: { tag?: string; ms?: number } }).arguments ?? {}) as {
      tag?: string;
      ms?: number;
    };
    await new Promise((r) => setTimeout(r, args.ms ?? 0));
    return { content: [{ type: 'text', text: `result of ${String(args.tag)}` }] };
  });
}

async function listen(overrides: Partial<GatewayDeps> = {}) {
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const reg = registry();
  const app = await buildApp({
    registry: reg,
    verifier: new FakeVerifier(normalizeResource),
    publicUrl,
    aggregate: createAggregator({ registry: reg, mode: 'aggregate' }),
    ...overrides,
  });
  await app.listen({ port, host: '127.0.0.1' });
  apps.push(app);
  return { port, publicUrl, registry: reg };
}

const headersFor = (publicUrl: string, path: string, extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${fakeToken('c', `${publicUrl}${path}`)}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
  ...extra,
});

async function messages(res: Response): Promise<Record<string, unknown>[]> {
  const text = await res.text();
  if (!(res.headers.get('content-type') ?? '').includes('text/event-stream'))
    return [JSON.parse(text) as Record<string, unknown>];
  return sseJson<Record<string, unknown>>(text);
}

const textOf = (m: Record<string, unknown> | undefined) =>
  (m?.['result'] as { content?: { text?: string }[] } | undefined)?.content?.[0]?.text;

describe(
  'stateless routes and requests reusing a JSON-RPC id (issues 13.1, 14.9)',
  { timeout: 30_000 },
  () => {
    it('eight concurrent POSTs with id 1 on /servers/alpha/mcp and on /mcp: eight answers, each its own result', async () => {
      const { publicUrl } = await listen();
      const mcpTools = await messages(
        await fetch(`${publicUrl}/mcp`, {
          method: 'POST',
          headers: headersFor(publicUrl, '/mcp'),
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        }),
      );
      const aggregateName = (mcpTools[0]?.['result'] as { tools: { name: string }[] }).tools[0]!.name;
      for (const [path, tool] of [
        ['/servers/alpha/mcp', 't'],
        ['/mcp', aggregateName],
      ] as const) {
        const posts = Array.from({ length: 8 }, (_, i) =>
          fetch(`${publicUrl}${path}`, {
            method: 'POST',
            headers: headersFor(publicUrl, path),
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: 1,
              method: 'tools/call',
              params: { name: tool, arguments: { tag: `call-${i}`, ms: 40 * (8 - i) } },
            }),
          }).then(messages),
        );
        const answers = await Promise.all(posts);
        expect(
          answers.map((msgs) => msgs.map((m) => [m['id'], textOf(m)])),
          path,
        ).toEqual(Array.from({ length: 8 }, (_, i) => [[1, `result of call-${i}`]]));
      }
    });
  },
);

describe('C2: batches on the gateway', () => {
  it('C2: a batch on /mcp and /servers/alpha/mcp, 2025-11-25 or 2026-07-28, is answered 400 / -32600 and reaches no upstream', async () => {
    const { publicUrl, registry: reg } = await listen();
    const batch = JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't', arguments: {} } },
    ]);
    for (const path of ['/mcp', '/servers/alpha/mcp']) {
      const extras: Record<string, string>[] = [
        {},
        { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call' },
      ];
      for (const extra of extras) {
        const res = await fetch(`${publicUrl}${path}`, {
          method: 'POST',
          headers: headersFor(publicUrl, path, extra),
          body: batch,
        });
        expect(res.status, path).toBe(400);
        const body = (await res.json()) as { error: { code: number; message: string } };
        expect(body.error.code).toBe(-32600);
        expect(body.error.message).toMatch(/batches are not supported/);
      }
    }
    expect(reg.requests.filter((r) => r.request.method === 'tools/call')).toEqual([]);
  });
});

describe('an over-limit body: the client reads the 413 (issue 13.11)', () => {
  it('an 8 MiB body over a 1 KiB limit, declared or chunked: a client that reads late still gets HTTP 413', async () => {
    const { port, publicUrl } = await listen({ bodyLimit: 1024 });
    const token = fakeToken('c', `${publicUrl}/servers/alpha/mcp`);
    const common = `POST /servers/alpha/mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: Bearer ${token}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n`;
    const size = 8 * 1024 * 1024;
    for (let i = 0; i < 2; i++) {
      const declared = await uploadThenRead(port, `${common}content-length: ${size}\r\n\r\n`, size, 300);
      expect(declared.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
      const chunked = await uploadThenRead(
        port,
        `${common}transfer-encoding: chunked\r\n\r\n`,
        size,
        300,
        true,
      );
      expect(chunked.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
    }
  });
});

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
        sent += raw.length;
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
