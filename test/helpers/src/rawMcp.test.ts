import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openRawSession, postInitialize } from './rawMcp.js';

interface Seen {
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** A loopback HTTP server that records every POST and answers `{}`, with `mcp-session-id: s1` when `session`. */
async function recorder(session: boolean) {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => {
      seen.push({ headers: req.headers, body: JSON.parse(text) });
      res.writeHead(200, { 'content-type': 'application/json', ...(session && { 'mcp-session-id': 's1' }) });
      res.end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return { seen, url, close: () => new Promise((r) => server.close(r)) };
}

let close: (() => Promise<unknown>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

describe('raw MCP POSTs', () => {
  it('postInitialize sends a 2025-11-25 initialize, id 1, with the client name and both accept types', async () => {
    const r = await recorder(false);
    close = r.close;
    const res = await postInitialize(r.url, { clientName: 'raw' });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{}');
    expect(r.seen).toHaveLength(1);
    expect(r.seen[0]!.headers['content-type']).toBe('application/json');
    expect(r.seen[0]!.headers['accept']).toBe('application/json, text/event-stream');
    expect(r.seen[0]!.body).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
  });

  it('openRawSession sends notifications/initialized on the session and returns its request headers', async () => {
    const r = await recorder(true);
    close = r.close;
    const headers = await openRawSession(r.url);
    expect(headers).toEqual({
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': 's1',
      'mcp-protocol-version': '2025-11-25',
    });
    expect(r.seen.map((s) => (s.body as { method: string }).method)).toEqual([
      'initialize',
      'notifications/initialized',
    ]);
    expect((r.seen[0]!.body as { params: { clientInfo: { name: string } } }).params.clientInfo.name).toBe(
      'e2e',
    );
    expect(r.seen[1]!.headers['mcp-session-id']).toBe('s1');
    expect(r.seen[1]!.headers['mcp-protocol-version']).toBe('2025-11-25');
  });

  it('asks for the protocol version and capabilities given, and sends the version on the session', async () => {
    const r = await recorder(true);
    close = r.close;
    const headers = await openRawSession(r.url, {
      protocolVersion: '2025-03-26',
      capabilities: { elicitation: {} },
    });
    expect(headers['mcp-protocol-version']).toBe('2025-03-26');
    expect((r.seen[0]!.body as { params: Record<string, unknown> }).params).toMatchObject({
      protocolVersion: '2025-03-26',
      capabilities: { elicitation: {} },
    });
    expect(r.seen[1]!.headers['mcp-protocol-version']).toBe('2025-03-26');
  });

  it('openRawSession throws when initialize answers without a session id', async () => {
    const r = await recorder(false);
    close = r.close;
    await expect(openRawSession(r.url)).rejects.toThrow(/without mcp-session-id/);
    expect(r.seen).toHaveLength(1);
  });
});
