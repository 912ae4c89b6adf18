import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
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
import { applyCors } from './httpCors.js';

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
   * Binds `host`:`port`.
   *
   * @returns the bound address, e.g. `http://127.0.0.1:8808` or `http://[::1]:8808`
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

const METHODS = new Set(['GET', 'POST', 'DELETE']);

/** Fastify's not-found answer, which clients of earlier versions saw. */
function notFound(req: IncomingMessage, res: ServerResponse, path: string): void {
  const body = JSON.stringify({
    message: `Route ${req.method}:${path} not found`,
    error: 'Not Found',
    statusCode: 404,
  });
  res.writeHead(404, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** A request on a kept-alive connection once the stop began: 503 and the connection closed (as Fastify answered). */
function unavailable(res: ServerResponse): void {
  const body = JSON.stringify({
    error: 'Service Unavailable',
    message: 'Service Unavailable',
    statusCode: 503,
  });
  res.writeHead(503, { 'content-type': 'application/json', connection: 'close' }).end(body);
}

function listenOn(server: Server, at: { host: string; port: number }): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(at.port, at.host, () => {
      server.off('error', reject);
      const a = server.address();
      if (a === null || typeof a === 'string') return resolve(String(a));
      resolve(`http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`);
    });
  });
}

/**
 * Builds the HTTP front door that serves MCP endpoints over Streamable HTTP (not listening yet), on `node:http`
 * (no web framework on the cold-start path, issue 21): loopback binds check Host and Origin (403, DNS-rebinding
 * protection); CORS exposes `Mcp-Session-Id` (`httpCors.ts`); slow clients are cut off (the request and header
 * timeouts shared with the gateway, D2); bodies are capped (413, the rest drained within bounds so the client reads
 * it), their JSON nesting pre-scanned (C4) and prototype-poisoning keys refused (`httpBody.ts`); any other path
 * or method is 404; once {@link McpHttpServer.close} was called, a request on a kept-alive connection is 503.
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
  return {
    server,
    listen: (at) => listenOn(server, at),
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
    inflight: () => inflight,
  };
}
