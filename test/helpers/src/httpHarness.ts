/**
 * The one test HTTP host for an aggregator or a hub, on loopback: 2025-era requests go to sessionful
 * `NodeStreamableHTTPServerTransport`s (one aggregator `Server` per session), 2026-07-28 requests to
 * `createMcpHandler(aggregator.createServer, { legacy: 'reject' })` — the wiring DESIGN.md prescribes and the
 * README documents. An aggregator's `list_changed`/`resource_updated` events are forwarded to the modern
 * handler's listen streams.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import { createMcpHandler, isLegacyRequest } from '@modelcontextprotocol/server';
import type { Server } from '@modelcontextprotocol/server';
import type { ServerFactory } from './agents.js';

type ListKind = 'tools' | 'prompts' | 'resources';

/** What the host serves: a server factory; an aggregator's `on`/`off` for its list events are used when present. */
export interface HarnessTarget extends ServerFactory {
  on?: unknown;
  off?: unknown;
}

type Subscribe = (event: string, listener: (arg: string) => void) => unknown;

/** A running harness. */
export interface HttpHarness {
  /** The MCP endpoint, `http://127.0.0.1:<port><path>` (default path `/mcp`). */
  url: URL;
  /** Live 2025-era sessions. */
  sessionCount(): number;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  if (chunks.length === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function isInitialize(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some(
    (m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize',
  );
}

/**
 * Serves `aggregator` over Streamable HTTP on 127.0.0.1 (both eras). With `eraBlind`, the factory ignores the
 * SDK's `ctx.era`, as a host that calls `createServer()` without arguments does.
 *
 * @param aggregator - an aggregator or a hub (anything with `createServer`)
 * @param options - `eraBlind`; `path` of the endpoint (default `/mcp`, the hub's is `/hub`)
 */
export async function startHttpHarness(
  aggregator: HarnessTarget,
  options: { eraBlind?: boolean; path?: string } = {},
): Promise<HttpHarness> {
  const sessions = new Map<string, { transport: NodeStreamableHTTPServerTransport; server: Server }>();
  const factory = options.eraBlind
    ? () => aggregator.createServer()
    : (ctx: { era?: 'legacy' | 'modern' }) => aggregator.createServer(ctx);
  const modern = createMcpHandler(factory, { legacy: 'reject' });
  const modernNode = toNodeHandler(modern);
  const onListChanged = (kind: ListKind) => {
    if (kind === 'tools') modern.notify.toolsChanged();
    else if (kind === 'prompts') modern.notify.promptsChanged();
    else modern.notify.resourcesChanged();
  };
  const onUpdated = (uri: string) => modern.notify.resourceUpdated(uri);
  const on = typeof aggregator.on === 'function' ? (aggregator.on as Subscribe).bind(aggregator) : undefined;
  const off =
    typeof aggregator.off === 'function' ? (aggregator.off as Subscribe).bind(aggregator) : undefined;
  on?.('list_changed', onListChanged as (arg: string) => void);
  on?.('resource_updated', onUpdated);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    const sid = req.headers['mcp-session-id'];
    if (typeof sid === 'string') {
      const session = sessions.get(sid);
      if (session === undefined) {
        res.writeHead(404).end();
        return;
      }
      await session.transport.handleRequest(req, res, body);
      return;
    }
    if (req.method === 'POST' && isInitialize(body)) {
      const transport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) => {
          sessions.set(id, { transport, server });
        },
      });
      const server = options.eraBlind
        ? aggregator.createServer()
        : aggregator.createServer({ era: 'legacy' });
      transport.onclose = () => {
        if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
      };
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
      return;
    }
    if (req.method === 'POST' && !(await isLegacyRequest(await toWebRequest(req, body), body))) {
      await modernNode(req, res, body);
      return;
    }
    res
      .writeHead(400, { 'content-type': 'application/json' })
      .end('{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request"}}');
  }

  const http = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;

  const close = async () => {
    off?.('list_changed', onListChanged as (arg: string) => void);
    off?.('resource_updated', onUpdated);
    await Promise.allSettled(
      [...sessions.values()].map(async (s) => {
        await s.transport.close();
        await s.server.close();
      }),
    );
    sessions.clear();
    await modern.close();
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
  return {
    url: new URL(`http://127.0.0.1:${port}${options.path ?? '/mcp'}`),
    sessionCount: () => sessions.size,
    close,
    [Symbol.asyncDispose]: close,
  };
}
