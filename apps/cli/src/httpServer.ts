import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Server as NetServer } from 'node:net';
import {
  HTTP_TIMEOUTS,
  MAX_JSON_DEPTH,
  createHostOriginPolicy,
  isLoopbackHost,
  sendJsonRpcError,
  serverTimeoutOptions,
} from '@mcppipe/http';
import type { HttpTimeouts, McpHttpHost } from '@mcppipe/http';
import { readMcpBody } from './httpBody.js';
import { notFound, unavailable } from './httpAnswers.js';
import { applyCors } from './httpCors.js';
import { bindFrontDoor } from './httpListen.js';

/** Options of {@link buildHttpServer}. */
export interface HttpServerOptions {
  /** The bind address; loopback binds turn on Host/Origin validation (DNS-rebinding protection). */
  host: string;
  /** Extra allowed browser origins (`*` allows any); loopback origins are always allowed. */
  allowedOrigins?: readonly string[];
  /** Extra allowed `Host` header hostnames when bound to loopback. */
  allowedHosts?: readonly string[];
  /** Request body limit in bytes (413 with a JSON-RPC error beyond it). */
  bodyLimit: number;
  /** Named MCP endpoints, e.g. `{ '/mcp': aggregateHost, '/hub': hubHost }`. */
  endpoints: Record<string, McpHttpHost>;
  /**
   * How long a client has to send its headers and its whole request (408 past it; D2). Default `HTTP_TIMEOUTS`
   * of `@mcppipe/http` (10 s, 30 s), the gateway's policy too; long-lived SSE responses are not affected.
   */
  timeouts?: HttpTimeouts;
  /** Deepest JSON nesting accepted in a body, checked before parsing (C4). Default `MAX_JSON_DEPTH` (100). */
  maxJsonDepth?: number;
}

/** The front door of `mcppipe up` (not listening until {@link McpHttpServer.listen}). */
export interface McpHttpServer {
  /** The Node server. */
  readonly server: Server;
  /**
   * Binds `host`:`port`; `localhost` binds both `127.0.0.1` and `::1` (one port), whichever a client resolves.
   *
   * @returns the bound address, e.g. `http://127.0.0.1:8808`, `http://[::1]:8808` or `http://localhost:8808`
   */
  listen(at: { host: string; port: number }): Promise<string>;
  /** Stops accepting connections and closes the idle ones; resolves once every connection has ended. */
  close(): Promise<void>;
  /** MCP POST requests in flight (for a graceful drain). */
  inflight(): number;
}

/**
 * Whether a bind address is a loopback address: `@mcppipe/http`'s one loopback rule (`isLoopbackHost`).
 *
 * @param host - the bind address
 * @returns true for `localhost`, `::1` or an address of 127.0.0.0/8
 */
export const isLoopback: (host: string) => boolean = isLoopbackHost;

/** HEAD is served as GET without a body (Node drops it), as the gateway's `/mcp` does (issue 21). */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'DELETE']);

/**
 * Builds the HTTP front door that serves MCP endpoints over Streamable HTTP (not listening yet), on `node:http`
 * (no web framework on the cold-start path, issue 21): loopback binds check Host and Origin (403, DNS-rebinding
 * protection); CORS exposes `Mcp-Session-Id` (`httpCors.ts`); slow clients are cut off (the request and header
 * timeouts shared with the gateway, D2); bodies are capped (413, the rest drained within bounds so the client reads
 * it), their JSON nesting pre-scanned (C4) and prototype-poisoning keys refused (`httpBody.ts`); HEAD is answered
 * as GET without a body (as the gateway's `/mcp`); any other path or method is 404; `localhost` binds both loopback
 * addresses (`httpListen.ts`); once {@link McpHttpServer.close} was called, a request on a kept-alive connection is 503.
 *
 * @param options - see {@link HttpServerOptions}
 */
export async function buildHttpServer(options: HttpServerOptions): Promise<McpHttpServer> {
  const limits = { bodyLimit: options.bodyLimit, maxDepth: options.maxJsonDepth ?? MAX_JSON_DEPTH };
  const t = serverTimeoutOptions(options.timeouts ?? HTTP_TIMEOUTS);
  // Host/Origin verdicts remembered per header value (`@mcppipe/http`); loopback origins are always allowed.
  const policy = createHostOriginPolicy({
    allowedHosts: options.allowedHosts,
    allowedOrigins: options.allowedOrigins,
    loopbackOrigins: true,
  });
  const guard = isLoopbackHost(options.host);
  const endpoints = new Map(Object.entries(options.endpoints));
  let inflight = 0;
  let closing = false;

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (guard && !policy.host(req.headers.host ?? '')) {
      const message = `Forbidden: Host "${req.headers.host ?? ''}" is not allowed`;
      return sendJsonRpcError(res, 403, { code: -32000, message });
    }
    const origin = req.headers.origin;
    if (guard && origin && !policy.origin(origin))
      return sendJsonRpcError(res, 403, {
        code: -32000,
        message: `Forbidden: Origin "${origin}" is not allowed`,
      });
    const path = (req.url ?? '/').split('?', 1)[0] ?? '/';
    const cors = applyCors(req, res, (o) => policy.origin(o));
    if (cors === 'answered') return;
    const host = endpoints.get(path);
    if (!host || !METHODS.has(req.method ?? '')) return notFound(req, res, path);
    const read = req.method === 'POST' ? await readMcpBody(req, res, limits) : { body: undefined };
    if (!read) return;
    if (req.method === 'POST') {
      inflight++;
      res.once('close', () => inflight--);
    }
    await host.handle(req, res, read.body ?? undefined);
  }

  const server = createServer(
    { requestTimeout: t.requestTimeout, ...t.http }, // headers and whole request bounded (D2); SSE streams stay open
    (req, res) => {
      if (closing) return unavailable(res);
      onRequest(req, res).catch(() => {
        if (!res.headersSent) sendJsonRpcError(res, 500, { code: -32603, message: 'Internal error' });
        else res.destroy();
      });
    },
  );
  server.keepAliveTimeout = 5_000;
  server.timeout = 0; // socket inactivity: a quiet SSE stream or a long tool call is not a slow client
  let extra: readonly NetServer[] = [];
  return {
    server,
    listen: async (at) => {
      const bound = await bindFrontDoor(server, at);
      extra = bound.extra;
      return bound.address;
    },
    close: async () => {
      closing = true;
      const closed = [server, ...extra].map((s) => new Promise<void>((resolve) => s.close(() => resolve())));
      server.closeIdleConnections();
      await Promise.all(closed);
    },
    inflight: () => inflight,
  };
}
