/**
 * Test-only: serves a hub over real Streamable HTTP on 127.0.0.1 the way DESIGN.md prescribes for `/hub`:
 * 2026-07-28 requests go to `createMcpHandler(hub.createServer, { legacy: 'reject' })`, 2025-era requests to a
 * sessionful transport per session (routed with `isLegacyRequest`). A bare `node:http` bridge keeps the hub
 * package free of `@modelcontextprotocol/node`. Not exported by the package.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  isLegacyRequest,
} from '@modelcontextprotocol/server';
import type { Hub } from '../types.js';

/** A running test server. */
export interface ServedHub {
  /** The MCP endpoint, `http://127.0.0.1:<port>/hub`. */
  url: URL;
  /** Live 2025-era sessions. */
  sessionCount(): number;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;

async function toWebRequest(req: IncomingMessage, url: URL): Promise<Request> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(key, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(key, v);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD' && size > 0;
  return new Request(url, {
    method: req.method ?? 'GET',
    headers,
    ...(hasBody ? { body: Buffer.concat(chunks) } : {}),
  });
}

async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  res.on('close', () => void reader.cancel().catch(() => undefined));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // the client went away
  }
  res.end();
}

/**
 * Serves `hub` on 127.0.0.1 with an ephemeral port.
 *
 * @param hub - the hub to serve
 * @returns the endpoint URL and a close function (closes sessions, the modern handler and the socket server)
 */
export async function serveHub(hub: Hub): Promise<ServedHub> {
  const modern = createMcpHandler((ctx) => hub.createServer(ctx), { legacy: 'reject' });
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();

  const handle = async (req: IncomingMessage, res: ServerResponse, base: URL) => {
    const request = await toWebRequest(req, new URL(req.url ?? '/', base));
    const sessionId = req.headers['mcp-session-id'];
    const session = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (session) return writeResponse(res, await session.handleRequest(request));
    if (typeof sessionId === 'string' || !(await isLegacyRequest(request))) {
      return writeResponse(res, await modern.fetch(request));
    }
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, transport),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    await hub.createServer({ era: 'legacy' }).connect(transport);
    return writeResponse(res, await transport.handleRequest(request));
  };

  const http = createServer((req, res) => {
    handle(req, res, url).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
      else res.end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  const url = new URL(`http://127.0.0.1:${port}/hub`);

  const close = async () => {
    await Promise.all([...sessions.values()].map((t) => t.close().catch(() => undefined)));
    sessions.clear();
    await modern.close();
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
  return { url, sessionCount: () => sessions.size, close, [Symbol.asyncDispose]: close };
}
