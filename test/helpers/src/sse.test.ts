import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parseSse, readSse, sseJson } from './sse.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A loopback SSE server writing `chunks` one per 10 ms, then holding the stream open. */
async function sseServer(chunks: string[], status = 200): Promise<string> {
  const server = createServer((_req, res) => {
    res.writeHead(status, { 'content-type': 'text/event-stream' });
    let i = 0;
    const next = setInterval(() => (i < chunks.length ? res.write(chunks[i++]) : clearInterval(next)), 10);
    res.on('close', () => clearInterval(next));
    if (status !== 200) res.end('nope');
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

describe('the SSE reader', () => {
  it('parses ids, event types, multi-line data and CRLF; comments are not events', () => {
    const text =
      ': connected\n\nid: 1\nevent: a\ndata: {"x":\ndata: 1}\n\n: ping\r\n\r\nid: 2\r\ndata: two\r\n\r\n';
    expect(parseSse(text)).toEqual([
      { id: '1', event: 'a', data: '{"x":\n1}' },
      { id: '2', event: undefined, data: 'two' },
    ]);
    expect(sseJson('event: message\ndata: {"jsonrpc":"2.0","id":1}\n\n')).toEqual([
      { jsonrpc: '2.0', id: 1 },
    ]);
  });

  it('reads a live stream across chunk boundaries until the condition holds, then closes it', async () => {
    const url = await sseServer([
      ': hi\n\nid: 1\nda',
      'ta: one\n\n',
      'id: 2\ndata: two\n',
      '\n',
      'id: 3\ndata: 3\n\n',
    ]);
    let opened = 0;
    const events = await readSse(url, { until: (e) => e.length >= 2, onOpen: () => opened++ });
    expect(opened).toBe(1);
    expect(events.map((e) => [e.id, e.data])).toEqual([
      ['1', 'one'],
      ['2', 'two'],
    ]);
  });

  it('names a non-200 answer and a stream that never satisfies the condition', async () => {
    await expect(readSse(await sseServer([], 404), { until: () => true })).rejects.toThrow(/: 404 nope/);
    const url = await sseServer(['data: only\n\n']);
    await expect(readSse(url, { until: (e) => e.length > 1, timeoutMs: 300 })).rejects.toThrow(
      /no stop after 300 ms \(1 events\)/,
    );
  });
});
