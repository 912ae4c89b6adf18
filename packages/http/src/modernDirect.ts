import type { ServerResponse } from 'node:http';
import {
  McpServer,
  PerRequestHTTPServerTransport,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  classifyInboundRequest,
  isJsonContentType,
} from '@modelcontextprotocol/server';
import type {
  AuthInfo,
  InboundClassificationOutcome,
  JSONRPCMessage,
  JSONRPCRequest,
  McpServerFactory,
  RequestId,
  Server,
  TransportSendOptions,
} from '@modelcontextprotocol/server';
import { parsedRequest } from './nodeHandler.js';
import type { HostRequest } from './types.js';

/**
 * The mark of a server that may serve any number of concurrent 2026-07-28 requests as one long-lived instance:
 * `server[SHARED_MODERN_SERVER] === true`. A server carries it only when nothing it does depends on what
 * `createMcpHandler` sets per request on a fresh instance beyond the request's own handler context: not the
 * factory's `authInfo`/`requestInfo` (handlers still get `ctx.http.authInfo` and `ctx.http.req` per request),
 * not `getClientCapabilities()`/`getClientVersion()` (the request's `_meta` envelope is in `ctx.mcpReq.envelope`),
 * not `ctx.mcpReq.id` (the shared instance sees an id unique among the requests in flight, not the client's), and
 * its capabilities, instructions and handlers are the same for every request of the methods the direct path
 * serves. `@mcppipe/aggregator`'s servers carry it; a registered symbol, so no package depends on the other.
 */
export const SHARED_MODERN_SERVER: unique symbol = Symbol.for('mcppipe.sharedModernServer') as never;

/** Options of the 2026-07-28 direct path, accepted by `createMcpHttpHost` next to its other options. */
export interface ModernDirectOptions {
  /**
   * Serve plain 2026-07-28 requests (`tools/call`, `tools/list`, `prompts/get`, `resources/read`, …) on one
   * long-lived server instance instead of the SDK's server + transport per request, when the factory's server
   * carries the mark `server[Symbol.for('mcppipe.sharedModernServer')] === true` (see `SHARED_MODERN_SERVER`
   * in `modernDirect.ts` for what it promises). The answers are those of `createMcpHandler`, compared case by
   * case in `modernDirect.test.ts`.
   * Default true; false serves every 2026-07-28 request through `createMcpHandler`.
   */
  modernDirect?: boolean;
}

/**
 * The methods served on the shared instance: plain request/response methods whose handling does not depend on
 * per-instance state. `server/discover` (capabilities and instructions are computed per instance, and it retries
 * failed upstreams), `subscriptions/listen` (a stream), `logging/setLevel` and `resources/(un)subscribe`
 * (instance state) stay with `createMcpHandler`. `ping` is not a 2026-07-28 method: the shared instance answers
 * it like a fresh one (-32601, HTTP 404).
 */
const DIRECT_METHODS = new Set([
  'tools/call',
  'tools/list',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'completion/complete',
  'ping',
]);

/** The revisions the shared instance serves (the SDK's `SUPPORTED_MODERN_PROTOCOL_VERSIONS`, not exported). */
const MODERN_REVISION = '2026-07-28';

/** The edge classification of every request the shared instance serves. */
const CLASSIFICATION = { era: 'modern', revision: MODERN_REVISION } as const;

/** The methods whose `Mcp-Name` header mirrors a body field (the SDK's `MCP_NAME_HEADER_SOURCE`). */
const NAME_SOURCE: Record<string, string> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

/** HTTP status of an error answered while the message is being dispatched (the SDK's `LADDER_ERROR_HTTP_STATUS`). */
const LADDER_STATUS: Record<number, number> = {
  [ProtocolErrorCode.ParseError]: 400,
  [ProtocolErrorCode.InvalidRequest]: 400,
  [ProtocolErrorCode.MethodNotFound]: 404,
  [ProtocolErrorCode.UnsupportedProtocolVersion]: 400,
  [ProtocolErrorCode.MissingRequiredClientCapability]: 400,
  [-32020]: 400, // header mismatch
};

/** The headers `PerRequestHTTPServerTransport`'s SSE response carries, as the Node adapter writes them. */
const SSE_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'content-type': 'text/event-stream',
  'x-accel-buffering': 'no',
};

const sseFrame = (message: JSONRPCMessage) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;

/** A header as the web `Headers.get` returns it (repeated values joined), undefined when absent. */
function headerOf(req: HostRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** RFC 9110 optional whitespace stripped, as the SDK's classifier does. */
const stripOws = (value: string) => value.replace(/^[ \t]+|[ \t]+$/g, '');

/**
 * Whether `validateStandardRequestHeaders` (the SDK's standard-header rung, not exported) passes this request:
 * `MCP-Protocol-Version` and `Mcp-Method` present (the classifier already checked that they agree with the body),
 * and `Mcp-Name` equal to the body's name or URI for the methods that carry one. Anything unusual (a Base64
 * sentinel, a missing or different name) is left to the SDK, which answers it.
 */
function standardHeadersPass(req: HostRequest, message: JSONRPCRequest): boolean {
  if (headerOf(req, 'mcp-protocol-version') === undefined || headerOf(req, 'mcp-method') === undefined)
    return false;
  const field = NAME_SOURCE[message.method];
  if (field === undefined) return true;
  const value = (message.params as Record<string, unknown> | undefined)?.[field];
  const header = headerOf(req, 'mcp-name');
  if (typeof value !== 'string') return header === undefined;
  if (header === undefined) return false;
  const name = stripOws(header);
  return name === value && !name.startsWith('=?');
}

/** A session-less POST: its parsed body, and its classification when the host already made it. */
export interface ClassifiedPost {
  body: unknown;
  outcome?: InboundClassificationOutcome | undefined;
}

/** One HTTP exchange served on the shared instance: what `PerRequestHTTPServerTransport` does for one request. */
class Exchange {
  /** The message is being handed to the protocol layer (errors sent now are ladder errors). */
  dispatching = true;
  done = false;
  #sse = false;
  #keepAlive: ReturnType<typeof setInterval> | undefined;
  #abort: AbortController | undefined;

  constructor(
    readonly res: ServerResponse,
    readonly clientId: RequestId,
    private readonly keepAliveMs: number,
  ) {}

  /** The request's abort signal (for `ctx.http.req.signal`), created when first read. */
  signal = (): AbortSignal => (this.#abort ??= new AbortController()).signal;

  /** The client went away before the response: what the SDK's Node adapter does to its request signal. */
  gone(): void {
    this.done = true;
    this.#stopKeepAlive();
    this.#abort?.abort();
  }

  /** A notification related to the request: the response becomes an SSE stream (the SDK's `auto` mode). */
  event(message: JSONRPCMessage): void {
    if (this.done) return;
    if (!this.#sse) this.#upgrade();
    this.res.write(sseFrame(message));
  }

  /** The response: JSON, with the ladder status when sent while dispatching, or the last frame of the stream. */
  respond(message: JSONRPCMessage & { id: RequestId }): void {
    if (this.done) return;
    this.done = true;
    message.id = this.clientId;
    const code = 'error' in message ? message.error.code : undefined;
    const ladder =
      code !== undefined && (this.dispatching || code === ProtocolErrorCode.MissingRequiredClientCapability)
        ? LADDER_STATUS[code]
        : undefined;
    if (this.#sse) {
      this.#stopKeepAlive();
      this.res.end(sseFrame(message));
      return;
    }
    const body = Buffer.from(JSON.stringify(message));
    this.res.writeHead(ladder ?? 200, {
      'content-type': 'application/json',
      'content-length': String(body.length),
    });
    this.res.end(body);
  }

  /**
   * The shared instance closed with the request unanswered: what the SDK entry answers when its per-request
   * transport closes first (an SSE stream ends; otherwise HTTP 499 without a body).
   */
  abandon(): void {
    if (this.done) return;
    this.done = true;
    this.#stopKeepAlive();
    if (!this.#sse) this.res.writeHead(499);
    this.res.end();
  }

  /** The dispatch threw: the SDK entry's 500 answer (the request's id echoed). */
  fail(): void {
    if (this.done) return;
    this.done = true;
    this.#stopKeepAlive();
    if (this.#sse) {
      this.res.end();
      return;
    }
    const body = Buffer.from(
      JSON.stringify({
        jsonrpc: '2.0',
        error: { code: ProtocolErrorCode.InternalError, message: 'Internal server error' },
        id: this.clientId,
      }),
    );
    this.res.writeHead(500, { 'content-type': 'application/json', 'content-length': String(body.length) });
    this.res.end(body);
  }

  #upgrade(): void {
    this.#sse = true;
    this.res.writeHead(200, SSE_HEADERS);
    if (Number.isFinite(this.keepAliveMs) && this.keepAliveMs >= 1) {
      this.#keepAlive = setInterval(
        () => {
          if (!this.done) this.res.write(': keepalive\n\n');
        },
        Math.min(this.keepAliveMs, 2 ** 31 - 1),
      );
      this.#keepAlive.unref();
    }
  }

  #stopKeepAlive(): void {
    if (this.#keepAlive !== undefined) clearInterval(this.#keepAlive);
    this.#keepAlive = undefined;
  }
}

/**
 * The transport of the shared instance: many exchanges at once, each under an id unique among them (the clients'
 * ids may collide), with `PerRequestHTTPServerTransport`'s response shaping per exchange. It is a
 * `PerRequestHTTPServerTransport` so that connecting binds the instance to the 2026-07-28 era exactly as the SDK's
 * entry binds its per-request instances.
 */
class SharedTransport extends PerRequestHTTPServerTransport {
  readonly #exchanges = new Map<number, Exchange>();
  #seq = 0;
  #closed = false;

  constructor(
    keepAliveMs: number,
    private readonly report: (error: Error) => void,
  ) {
    super({ classification: CLASSIFICATION, keepAliveMs });
  }

  override start(): Promise<void> {
    return Promise.resolve();
  }

  override handleMessage(): Promise<Response> {
    return Promise.reject(new Error('the shared 2026-07-28 transport serves through dispatch()'));
  }

  /** Hands one request to the instance; its response goes to `exchange`. */
  dispatch(
    message: JSONRPCRequest,
    exchange: Exchange,
    extra: { request: Request; authInfo?: AuthInfo },
  ): void {
    const id = ++this.#seq;
    this.#exchanges.set(id, exchange);
    // 'close' comes once; `on` spares the wrapper `once` allocates
    exchange.res.on('close', () => {
      if (exchange.done) return;
      this.#exchanges.delete(id);
      exchange.gone();
      // the per-request transport closes on a client abort, which aborts the handler with ConnectionClosed
      abortHandler(this.server, id);
    });
    try {
      this.onmessage?.({ ...message, id } as JSONRPCMessage, {
        classification: CLASSIFICATION,
        request: extra.request,
        ...(extra.authInfo !== undefined && { authInfo: extra.authInfo }),
      });
    } catch (err) {
      this.#exchanges.delete(id);
      this.report(err instanceof Error ? err : new Error(String(err)));
      exchange.fail();
    } finally {
      exchange.dispatching = false;
    }
  }

  /** The instance connected to this transport (set by the host after `connect`). */
  server: Server | undefined;

  override send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const isResponse = !('method' in message);
    const id = isResponse ? (message as { id?: RequestId }).id : options?.relatedRequestId;
    const exchange = typeof id === 'number' ? this.#exchanges.get(id) : undefined;
    if (exchange === undefined) {
      if (isResponse)
        this.onerror?.(new Error(`Received a response for an unknown request id: ${String(id)}`));
      return Promise.resolve();
    }
    if (isResponse) {
      this.#exchanges.delete(id as number);
      exchange.respond(message as JSONRPCMessage & { id: RequestId });
    } else {
      exchange.event(message);
    }
    return Promise.resolve();
  }

  /** Whether the transport closed (the instance was closed): later requests go to `createMcpHandler`. */
  get closed(): boolean {
    return this.#closed;
  }

  override close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    for (const exchange of this.#exchanges.values()) exchange.abandon();
    this.#exchanges.clear();
    this.onclose?.();
    return Promise.resolve();
  }
}

/** Aborts one in-flight handler of `server` as the per-request transport's close does (`Connection closed`). */
function abortHandler(server: Server | undefined, id: number): void {
  const controllers = (
    server as unknown as { _requestHandlerAbortControllers?: Map<RequestId, AbortController> }
  )?._requestHandlerAbortControllers;
  controllers?.get(id)?.abort(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'));
}

/**
 * The direct path for 2026-07-28 POSTs: one JSON-RPC request that `createMcpHandler` would serve as a plain
 * request/response is dispatched to one long-lived server instance through {@link SharedTransport}, and its
 * answer written to the Node response with one write (JSON), or as the SSE stream the SDK would produce when the
 * handler sends related notifications first (progress).
 *
 * What is checked before dispatching is the SDK entry's ladder (`Content-Type`, the body-primary classification
 * with its envelope and header/body cross-checks, the served revision, the standard-header rung); every request
 * that fails any of it, or that is not one of {@link DIRECT_METHODS}, is left to `createMcpHandler`, which
 * answers it itself. What happens after dispatch is the SDK's own protocol layer on a server bound to the same
 * revision, so the JSON-RPC answers (results, handler errors, method-not-found, invalid envelopes) are the same,
 * and their HTTP statuses follow `PerRequestHTTPServerTransport`'s rules. A client that disconnects aborts the
 * handler with the same `ConnectionClosed` error as a closed per-request transport.
 */
export class ModernDirect {
  #server: Server | undefined;
  #transport: SharedTransport | undefined;
  #starting: Promise<void> | undefined;
  /** False once the factory's server turned out not to be shareable (or the path was closed). */
  #usable = true;

  constructor(
    private readonly factory: McpServerFactory,
    private readonly keepAliveMs: number,
    private readonly onerror: (error: Error) => void,
  ) {}

  /**
   * Serves one POST when it is the direct path's case. Synchronous once the shared instance exists (the first
   * eligible request creates it).
   *
   * @param req - the Node request
   * @param res - the Node response
   * @param post - its parsed body, and its classification when the caller already has it
   * @returns false, having touched nothing, when `createMcpHandler` must serve the request
   */
  tryHandle(req: HostRequest, res: ServerResponse, post: ClassifiedPost): boolean | Promise<boolean> {
    if (!this.#usable) return false;
    const { body } = post;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
    const method = (body as { method?: unknown }).method;
    if (typeof method !== 'string' || !DIRECT_METHODS.has(method)) return false;
    if (!isJsonContentType(headerOf(req, 'content-type') ?? null)) return false;
    const route =
      post.outcome ??
      classifyInboundRequest({
        httpMethod: 'POST',
        protocolVersionHeader: headerOf(req, 'mcp-protocol-version'),
        mcpMethodHeader: headerOf(req, 'mcp-method'),
        mcpNameHeader: headerOf(req, 'mcp-name'),
        body,
      });
    if (route.kind !== 'modern' || route.messageKind !== 'request') return false;
    if (route.classification.revision !== MODERN_REVISION) return false;
    if (!standardHeadersPass(req, route.message)) return false;
    if (this.#transport !== undefined) return this.#serve(req, res, route.message);
    return (this.#starting ??= this.#start()).then(() => this.#serve(req, res, route.message));
  }

  #serve(req: HostRequest, res: ServerResponse, message: JSONRPCRequest): boolean {
    const transport = this.#transport;
    if (transport === undefined || res.destroyed) return false;
    if (transport.closed) {
      this.#usable = false; // something closed the shared instance
      return false;
    }
    const exchange = new Exchange(res, message.id, this.keepAliveMs);
    transport.dispatch(message, exchange, {
      request: parsedRequest(req, message, exchange.signal), // the classified body itself
      ...(req.auth !== undefined && { authInfo: req.auth }),
    });
    return true;
  }

  async #start(): Promise<void> {
    try {
      const product = await this.factory({ era: 'modern' });
      const server = product instanceof McpServer ? undefined : product;
      if (
        server === undefined ||
        (server as unknown as Record<symbol, unknown>)[SHARED_MODERN_SERVER] !== true
      ) {
        this.#usable = false;
        await product.close().catch(() => {});
        return;
      }
      // What the SDK entry's `installModernOnlyHandlers` does to every per-request instance (not exported): the
      // served revision joins the instance's supported versions; connecting to a `PerRequestHTTPServerTransport`
      // classified for it then binds the instance to it, as the entry's per-request instances are bound.
      const internals = server as unknown as { _supportedProtocolVersions?: string[] };
      const versions = internals._supportedProtocolVersions;
      if (Array.isArray(versions) && !versions.includes(MODERN_REVISION))
        internals._supportedProtocolVersions = [...versions, MODERN_REVISION];
      const transport = new SharedTransport(this.keepAliveMs, this.onerror);
      await server.connect(transport);
      if (server.getNegotiatedProtocolVersion() !== MODERN_REVISION) {
        this.#usable = false;
        await server.close().catch(() => {});
        return;
      }
      transport.server = server;
      this.#server = server;
      this.#transport = transport;
    } catch (err) {
      this.#usable = false;
      this.onerror(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** Closes the shared instance; later requests go to `createMcpHandler`. */
  async close(): Promise<void> {
    this.#usable = false;
    await this.#starting;
    const server = this.#server;
    this.#server = undefined;
    this.#transport = undefined;
    await server?.close().catch(() => {});
  }
}
