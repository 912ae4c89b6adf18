import cors from '@fastify/cors';
import {
  HTTP_TIMEOUTS,
  MAX_JSON_DEPTH,
  createHostOriginPolicy,
  depthMessage,
  drainRefusedBody,
  exceedsDepth,
  isLoopbackHost,
  serverTimeoutOptions,
} from '@mcppipe/http';
import type { HttpTimeouts, McpHttpHost } from '@mcppipe/http';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';

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

/** A body the guarded JSON parser refuses, answered by the error handler with its status and JSON-RPC code. */
type BodyRefusal = Error & { statusCode: number; rpcCode: number };

const refusal = (statusCode: number, rpcCode: number, message: string): BodyRefusal =>
  Object.assign(new Error(message), { statusCode, rpcCode });

/** The Fastify app plus the number of MCP POST requests in flight (for a graceful drain). */
export type McpFastify = FastifyInstance & { inflight(): number };

/**
 * Whether a bind address is a loopback address: `@mcppipe/http`'s one loopback rule (`isLoopbackHost`).
 *
 * @param host - the bind address
 * @returns true for `localhost`, `::1` or an address of 127.0.0.0/8
 */
export const isLoopback: (host: string) => boolean = isLoopbackHost;

function rpcError(code: number, message: string) {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}

/**
 * Builds the Fastify app that serves MCP endpoints over Streamable HTTP (not listening yet).
 * Slow clients are cut off (the request and header timeouts shared with the gateway, D2); bodies are capped (413,
 * the rest of the body drained within bounds so the client reads it) and their JSON nesting is pre-scanned (C4);
 * CORS exposes `Mcp-Session-Id`.
 *
 * @param options - see {@link HttpServerOptions}
 */
export async function buildHttpServer(options: HttpServerOptions): Promise<McpFastify> {
  const maxDepth = options.maxJsonDepth ?? MAX_JSON_DEPTH;
  const app = Fastify({
    bodyLimit: options.bodyLimit,
    // headers and whole request bounded (D2); Node clears both once the request is in, so SSE streams stay open
    ...serverTimeoutOptions(options.timeouts ?? HTTP_TIMEOUTS),
    connectionTimeout: 0, // socket inactivity: a quiet SSE stream or a long tool call is not a slow client
    keepAliveTimeout: 5_000,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    logger: false,
  });
  // Host/Origin verdicts remembered per header value (`@mcppipe/http`); loopback origins are always allowed.
  const policy = createHostOriginPolicy({
    allowedHosts: options.allowedHosts,
    allowedOrigins: options.allowedOrigins,
    loopbackOrigins: true,
  });

  if (isLoopbackHost(options.host)) {
    // A callback hook (no promise per request) over remembered verdicts.
    app.addHook('onRequest', (req, reply, done) => {
      if (!policy.host(req.headers.host ?? '')) {
        reply.code(403).send(rpcError(-32000, `Forbidden: Host "${req.headers.host ?? ''}" is not allowed`));
        return;
      }
      const origin = req.headers.origin;
      if (origin && !policy.origin(origin)) {
        reply.code(403).send(rpcError(-32000, `Forbidden: Origin "${origin}" is not allowed`));
        return;
      }
      done();
    });
  }
  await app.register(cors, {
    origin: (origin, cb) => cb(null, !origin || policy.origin(origin)),
    methods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
    allowedHeaders: [
      'content-type',
      'accept',
      'authorization',
      'mcp-session-id',
      'mcp-protocol-version',
      'mcp-method',
      'last-event-id',
    ],
    exposedHeaders: ['mcp-session-id', 'mcp-protocol-version'],
  });
  // The JSON parser of the MCP endpoints: the depth pre-scan before `JSON.parse` (C4, the gateway's scanner and
  // limit), then Fastify's secure parser (`__proto__` / `constructor.prototype` refused).
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    const bytes = body as Buffer;
    if (exceedsDepth(bytes, maxDepth)) {
      done(refusal(400, -32700, depthMessage(maxDepth)), undefined);
      return;
    }
    parseJson(req, bytes.toString('utf8'), (err, value) => {
      if (err) done(refusal(400, -32700, 'Parse error: invalid JSON'), undefined);
      else done(null, value);
    });
  });
  app.setErrorHandler((err: Partial<BodyRefusal> & { code?: string; message: string }, req, reply) => {
    if (typeof err.rpcCode === 'number' && typeof err.statusCode === 'number') {
      return reply.code(err.statusCode).send(rpcError(err.rpcCode, err.message));
    }
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      // the client may still be uploading: read the rest (bounded) so it sees the 413, not a reset (13.11)
      drainRefusedBody(req.raw);
      reply.removeHeader('connection'); // Fastify's close would drop the socket with the body unread
      return reply.code(413).send(rpcError(-32600, `Request body exceeds ${options.bodyLimit} bytes`));
    }
    if (
      err.statusCode === 400 ||
      err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
      err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
    ) {
      // a stable message: Fastify's and the parser's texts are not for agents
      return reply.code(400).send(rpcError(-32700, 'Parse error: invalid JSON'));
    }
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
      return reply.code(415).send(rpcError(-32000, err.message));
    return reply.code(err.statusCode ?? 500).send(rpcError(-32603, 'Internal error'));
  });
  let inflight = 0;
  for (const [path, host] of Object.entries(options.endpoints)) {
    app.route({
      method: ['GET', 'POST', 'DELETE'],
      url: path,
      handler: async (req, reply) => {
        // hijack() bypasses Fastify's reply, so carry over what its hooks set (CORS headers) onto the raw response
        for (const [name, value] of Object.entries(reply.getHeaders())) {
          if (value !== undefined) reply.raw.setHeader(name, value);
        }
        reply.hijack();
        if (req.method === 'POST') {
          inflight++;
          reply.raw.once('close', () => inflight--);
        }
        await host.handle(req.raw, reply.raw, req.body ?? undefined);
      },
    });
  }
  app.decorate('inflight', () => inflight);
  return app as unknown as McpFastify;
}
