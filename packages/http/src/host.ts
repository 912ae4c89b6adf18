import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { classifyInboundRequest, createMcpHandler } from '@modelcontextprotocol/server';
import type { InboundClassificationOutcome, McpServer, Server } from '@modelcontextprotocol/server';
import type { BodyError } from './body.js';
import { isInitializeBody, readJsonBody, sendJsonRpcError } from './body.js';
import { DirectPosts } from './directPost.js';
import { drainRefusedBody } from './limits.js';
import { withAgentSafeErrors } from './safeErrors.js';
import type { ClassifiedPost, ModernDirectOptions } from './modernDirect.js';
import { ModernDirect } from './modernDirect.js';
import { createNodeHandler } from './nodeHandler.js';
import { loadSdkNode } from './sdkNode.js';
import { SessionTable } from './sessionTable.js';
import type { HostRequest, Logger, McpHttpHost, McpHttpHostOptions, McpServerFactory } from './types.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

interface Session {
  transport: NodeStreamableHTTPServerTransport;
  server: McpServer | Server;
  /** The session's fast path for single-request POSTs (see {@link DirectPosts}). */
  direct: DirectPosts;
  /** The client asked for 2025-03-26, the one revision with JSON-RPC batches: its batches are served. */
  batches: boolean;
}

/** The one revision that defines JSON-RPC batches (2025-06-18 removed them; SECURITY-REFERENCE C2). */
const BATCH_REVISION = '2025-03-26';

/** The answer to a batch where batches are not served (C2). */
function refuseBatch(res: ServerResponse): void {
  sendJsonRpcError(res, 400, {
    code: -32600,
    message: `Invalid Request: JSON-RPC batches are not supported (protocol revisions after ${BATCH_REVISION} removed them): send one message per POST`,
  });
}

/** A header as the web `Headers.get` would return it (repeated values joined), undefined when absent. */
function headerOf(req: HostRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

/**
 * The classification behind `isLegacyRequest(toWebRequest(req, body), body)` without building a web `Request`:
 * with a parsed body the SDK's predicate reads nothing but the method, the three standard MCP headers and the
 * body, and hands them to `classifyInboundRequest`, which is what this does. The request is legacy when the
 * outcome's `kind` is `legacy`.
 */
function classifyPost(req: HostRequest, body: unknown): InboundClassificationOutcome {
  return classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: headerOf(req, 'mcp-protocol-version'),
    mcpMethodHeader: headerOf(req, 'mcp-method'),
    mcpNameHeader: headerOf(req, 'mcp-name'),
    body,
  });
}

/** The `resourceSubscriptions` URIs of a 2026-07-28 `subscriptions/listen` request, if it asks for any. */
function listenedResources(body: unknown): string[] | undefined {
  const msg = body as {
    method?: unknown;
    params?: { notifications?: { resourceSubscriptions?: unknown } };
  } | null;
  if (msg?.method !== 'subscriptions/listen') return undefined;
  const uris = msg.params?.notifications?.resourceSubscriptions;
  if (!Array.isArray(uris)) return undefined;
  const strings = uris.filter((u): u is string => typeof u === 'string');
  return strings.length > 0 ? strings : undefined;
}

/**
 * Creates a Streamable HTTP host serving both protocol eras on one endpoint (DESIGN.md "The SDK line and
 * the two protocol eras"): 2025-era requests go to sessionful transports kept in a bounded session table
 * (so cancellation, `list_changed` and server→client requests work), 2026-07-28 requests go to the SDK's
 * per-request handler. With `stateless: true` every request is served per request (seed 001, G7).
 *
 * Unknown or evicted session ids answer 404 (clients re-initialize); DELETE ends a session.
 *
 * @param serverFactory - builds one MCP server per 2025 session or per 2026 request (`ctx.era` tells which)
 * @param options - see {@link McpHttpHostOptions} and {@link ModernDirectOptions} (the 2026-07-28 direct path,
 *   on by default for servers that allow it)
 * @returns the host; call `handle(req, res, parsedBody)` from any Node HTTP framework
 *
 * @example Fastify
 * ```ts
 * const host = createMcpHttpHost(() => aggregator.createServer());
 * app.all('/mcp', async (req, reply) => { reply.hijack(); await host.handle(req.raw, reply.raw, req.body); });
 * ```
 */
export function createMcpHttpHost(
  serverFactory: McpServerFactory,
  options: McpHttpHostOptions & ModernDirectOptions = {},
): McpHttpHost {
  // no internal text (raw zod issues, stack overflows) in an error an agent sees (C4)
  const factory = withAgentSafeErrors(serverFactory);
  const {
    stateless = false,
    maxSessions = 1000,
    sessionIdleTimeoutMs = 1_800_000,
    maxRequestBodySize = 4 * 1024 * 1024,
    keepAliveMs = 15_000,
    logger = silent,
    onResourceSubscriptions,
    modernDirect = true,
  } = options;
  const onerror = (error: Error) => logger.debug({ err: error.message }, 'mcp transport error');
  const modern = createMcpHandler(factory, {
    legacy: stateless ? 'stateless' : 'reject',
    maxRequestBodySize,
    keepAliveMs,
    onerror,
  });
  const modernNode = createNodeHandler(modern, { maxRequestBodySize, onerror });
  const direct = modernDirect ? new ModernDirect(factory, keepAliveMs, onerror) : undefined;

  const closeSession = (session: Session) => {
    void session.transport.close().catch(() => {});
    void session.server.close().catch(() => {});
  };
  const table = new SessionTable<Session>(maxSessions, sessionIdleTimeoutMs, (id, session, reason) => {
    logger.info({ sessionId: id, reason }, 'mcp session closed');
    closeSession(session);
  });
  const sweeper = setInterval(() => table.sweep(Date.now()), Math.min(sessionIdleTimeoutMs, 60_000));
  sweeper.unref();

  async function openSession(req: HostRequest, res: ServerResponse, body: unknown): Promise<void> {
    let sessionId: string | undefined;
    const { NodeStreamableHTTPServerTransport } = await loadSdkNode();
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      keepAliveMs,
      onsessioninitialized: (id) => {
        sessionId = id;
        table.set(id, session, Date.now());
      },
    });
    const direct = new DirectPosts(transport, keepAliveMs);
    const server = await factory({ era: 'legacy', ...(req.auth ? { authInfo: req.auth } : {}) });
    const requested = (body as { params?: { protocolVersion?: unknown } }).params?.protocolVersion;
    const session: Session = { transport, server, direct, batches: requested === BATCH_REVISION };
    await server.connect(transport);
    const onclose = transport.onclose;
    transport.onclose = () => {
      onclose?.();
      direct.closeAll();
      if (sessionId !== undefined) table.delete(sessionId);
    };
    await transport.handleRequest(req, res, body);
    if (sessionId === undefined) closeSession(session);
  }

  async function handle(req: HostRequest, res: ServerResponse, parsedBody?: unknown): Promise<void> {
    let body = parsedBody;
    try {
      if (body === undefined && req.method === 'POST') body = await readJsonBody(req, maxRequestBodySize);
    } catch (err) {
      const e = err as BodyError;
      // the client may still be uploading: read the rest (bounded) so it sees the 413, not a reset
      if (e.status === 413) drainRefusedBody(req);
      sendJsonRpcError(res, e.status ?? 400, { code: e.rpcCode ?? -32700, message: e.message });
      return;
    }
    const sid = req.headers['mcp-session-id'];
    if (Array.isArray(body) && (stateless || typeof sid !== 'string')) return refuseBatch(res);
    if (stateless) return serveModern(req, res, { body });

    if (typeof sid === 'string') {
      const session = table.touch(sid, Date.now());
      if (!session) {
        sendJsonRpcError(res, 404, { code: -32001, message: 'Session not found: initialize a new session' });
        return;
      }
      if (Array.isArray(body)) {
        // batches only where the session negotiated 2025-03-26 and the request does not claim a later revision
        const version = headerOf(req, 'mcp-protocol-version');
        if (!session.batches || (version !== undefined && version !== BATCH_REVISION))
          return refuseBatch(res);
      }
      if (req.method === 'POST') {
        if (session.direct.tryHandle(req, res, body)) return;
        body = session.direct.remapCancel(body);
      }
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method === 'POST' && isInitializeBody(body)) return openSession(req, res, body);
    if (req.method !== 'POST') {
      sendJsonRpcError(res, 400, { code: -32000, message: 'Bad Request: Mcp-Session-Id header is required' });
      return;
    }
    // a POST always has its parsed body here (read above when the framework did not)
    const outcome = classifyPost(req, body);
    if (outcome.kind === 'legacy') {
      sendJsonRpcError(res, 400, { code: -32000, message: 'Bad Request: Mcp-Session-Id header is required' });
      return;
    }
    return serveModern(req, res, { body, outcome });
  }

  /**
   * A session-less request: the direct path when it applies (see {@link ModernDirect}), else the SDK's
   * per-request handler, holding upstream resource subscriptions for listen streams that ask.
   */
  async function serveModern(req: HostRequest, res: ServerResponse, post: ClassifiedPost): Promise<void> {
    const { body } = post;
    if (direct !== undefined && req.method === 'POST') {
      const served = direct.tryHandle(req, res, post);
      if (served === true || (served !== false && (await served))) return;
    }
    if (onResourceSubscriptions) await holdSubscriptions(res, body, onResourceSubscriptions);
    return modernNode(req, res, body);
  }

  async function holdSubscriptions(
    res: ServerResponse,
    body: unknown,
    hold: NonNullable<McpHttpHostOptions['onResourceSubscriptions']>,
  ): Promise<void> {
    const uris = listenedResources(body);
    if (!uris) return;
    try {
      const release = await hold(uris);
      res.once('close', () => void Promise.resolve(release()).catch(() => {}));
    } catch (err) {
      logger.warn({ err: (err as Error).message, uris }, 'resource subscription for a listen stream failed');
    }
  }

  async function close(): Promise<void> {
    clearInterval(sweeper);
    const sessions = table.values();
    table.clear();
    await Promise.allSettled(
      sessions.map(async (s) => {
        await s.transport.close();
        await s.server.close();
      }),
    );
    await direct?.close();
    await modern.close();
  }

  return {
    handle,
    notify: modern.notify,
    sessionCount: () => table.size,
    close,
    [Symbol.asyncDispose]: close,
  };
}
