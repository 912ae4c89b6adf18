// C4 / issue 14.2: no internal text in an error an agent sees. A request whose params fail the SDK's schema gets a
// stable message naming at most the offending field, on every path of the host, never the raw zod issue dump.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/server';
import { MCP_POST_HEADERS as base, postInitialize } from '@mcppipe/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpHttpHost } from './host.js';
import { agentSafeMessage } from './safeErrors.js';
import type { McpHttpHostOptions } from './types.js';

function server(): Server {
  const s = new Server({ name: 'safe', version: '1.0.0' }, { capabilities: { tools: {} } });
  s.setRequestHandler('tools/list', () => ({ tools: [] }));
  s.setRequestHandler('tools/call', () => ({ content: [{ type: 'text', text: 'ok' }] }));
  return s;
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
});

async function start(options: McpHttpHostOptions & { modernDirect?: boolean } = {}) {
  const host = createMcpHttpHost(() => server(), options);
  const http = createServer((req, res) => void host.handle(req, res));
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  cleanups.push(async () => {
    await host.close();
    http.closeAllConnections();
    await new Promise((r) => http.close(r));
  });
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
}

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** The error of a JSON or single-event SSE answer. */
async function errorOf(res: Response): Promise<{ code: number; message: string }> {
  const text = await res.text();
  const json = text.startsWith('event:')
    ? text
        .split('\n')
        .find((l) => l.startsWith('data: '))!
        .slice(6)
    : text;
  return (JSON.parse(json) as { error: { code: number; message: string } }).error;
}

const EXPECTED = {
  code: -32602,
  message: 'Invalid params for tools/call: the field "params.arguments" is missing or has the wrong type',
};

describe('C4: schema failures reach the agent as a stable message, no raw zod output', () => {
  it('C4: on a 2025 session (fast path and SDK transport path)', async () => {
    const url = await start();
    const init = await postInitialize(url, { clientName: 't', protocolVersion: '2025-03-26' });
    await init.text();
    const headers = { ...base, 'mcp-session-id': init.headers.get('mcp-session-id')! };
    const call = {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'x', arguments: 'not an object' },
    };
    expect(await errorOf(await fetch(url, { method: 'POST', headers, body: JSON.stringify(call) }))).toEqual(
      EXPECTED,
    );
    // a one-element batch (2025-03-26) takes the SDK transport's path
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify([call]) });
    expect(await errorOf(res)).toEqual(EXPECTED);
  });

  it('C4: as a 2026-07-28 request, on the shared instance and through the SDK per-request handler', async () => {
    for (const modernDirect of [true, false]) {
      const url = await start({ modernDirect });
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          ...base,
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'x',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 3,
          method: 'tools/call',
          params: { name: 'x', arguments: 7, _meta: MODERN_META },
        }),
      });
      expect(await errorOf(res), `modernDirect ${String(modernDirect)}`).toEqual(EXPECTED);
    }
  });

  it('C4: agentSafeMessage keeps ordinary messages and hides a stack overflow', () => {
    expect(agentSafeMessage(-32602, 'Invalid params: name is required')).toBe(
      'Invalid params: name is required',
    );
    expect(agentSafeMessage(-32603, 'upstream said no')).toBe('upstream said no');
    expect(agentSafeMessage(-32603, 'Maximum call stack size exceeded')).toBe(
      'Internal error: the request could not be processed',
    );
    expect(agentSafeMessage(-32602, 'Invalid tools/call request: [not json]')).toBe(
      'Invalid params for tools/call: the request does not match its schema',
    );
  });
});
