import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import {
  SUPPORTED_PROTOCOL_VERSIONS,
  isJsonContentType,
  parseJSONRPCMessage,
} from '@modelcontextprotocol/server';
import type { AuthInfo, JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';
import { parsedRequest } from './nodeHandler.js';

/**
 * The response headers of an SSE-mode POST, exactly as the SDK's `WebStandardStreamableHTTPServerTransport` sets
 * them (Node sends them lower-cased either way).
 */
function sseHeaders(sessionId: string): Record<string, string> {
  return {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    'mcp-session-id': sessionId,
  };
}

/** An SSE `message` event, byte for byte what the SDK writes (no event ids: no event store is configured). */
const sseEvent = (message: JSONRPCMessage) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;

/**
 * Key under which a result may carry its own JSON text: a non-enumerable `Buffer` property holding the UTF-8 bytes
 * of `JSON.stringify(result)`. The session fast path writes those bytes instead of serializing the result again;
 * `@mcppipe/aggregator` sets it on merged lists answered in one page (issue 9, T4). This is its one home: producers
 * import it from here (a registered symbol, `Symbol.for`, so copies of this package agree).
 */
export const SERIALIZED_RESULT: unique symbol = Symbol.for('@mcppipe/serialized-result');

/**
 * The SSE event of a response as bytes: `sseEvent(message)`, byte for byte, in one buffer, or, when the result
 * carries its own JSON text ({@link SERIALIZED_RESULT}), in three (the text in the middle, neither copied nor
 * re-encoded: a 300 KB list then costs no allocation of its size per answer).
 */
function sseEventChunks(message: JSONRPCMessage): Buffer[] {
  const result = (message as { result?: unknown }).result;
  const text =
    typeof result === 'object' && result !== null
      ? (result as Record<symbol, unknown>)[SERIALIZED_RESULT]
      : undefined;
  if (!Buffer.isBuffer(text)) return [Buffer.from(sseEvent(message))];
  let head = 'event: message\ndata: {';
  let tail = '';
  let sep = '';
  let afterResult = false;
  for (const [key, value] of Object.entries(message)) {
    if (value === undefined) continue;
    const part =
      key === 'result' ? `${sep}"result":` : `${sep}${JSON.stringify(key)}:${JSON.stringify(value)}`;
    sep = ',';
    if (afterResult) tail += part;
    else head += part;
    if (key === 'result') afterResult = true;
  }
  return [Buffer.from(head), text, Buffer.from(`${tail}}\n\n`)];
}

/** Writes `chunks` and ends `res`, corked, so the socket gets them in one `writev`. */
function endWith(res: ServerResponse, chunks: Buffer[]): void {
  if (chunks.length === 1) {
    res.end(chunks[0]);
    return;
  }
  res.cork();
  for (const chunk of chunks) res.write(chunk);
  res.end();
  res.uncork();
}

/**
 * Headers are sent with the first event; a call still running after this long gets them at once, like the SDK
 * (which sends them before dispatching), so clients with a short time-to-headers limit see no difference.
 */
const HEADERS_AFTER_MS = 50;

/** One request served by the fast path: its response stream until the response is written. */
class Exchange {
  #timer: ReturnType<typeof setTimeout> | undefined;
  /**
   * The id the client sent, when the request was dispatched under another one (its id was already in flight on
   * the session): the response gets it back. Undefined in the common case (no collision, nothing remapped).
   */
  clientId: RequestId | undefined;
  /** The id the request was dispatched under, when it is not the client's (see {@link clientId}). */
  wireId: string | undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly headers: Record<string, string>,
    keepAliveMs: number,
  ) {
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.res.destroyed || this.res.writableEnded) return;
      if (!this.res.headersSent) {
        this.res.writeHead(200, this.headers);
        this.res.flushHeaders();
      }
      if (Number.isFinite(keepAliveMs) && keepAliveMs >= 1) {
        this.#timer = setInterval(() => {
          if (this.res.destroyed || this.res.writableEnded) this.stop();
          else this.res.write(': keepalive\n\n');
        }, keepAliveMs);
        this.#timer.unref();
      }
    }, HEADERS_AFTER_MS);
    this.#timer.unref();
  }

  /** Whether the client is gone (the SDK then drops notifications and reports the response undeliverable). */
  get gone(): boolean {
    return this.res.destroyed;
  }

  /** Writes a notification or server→client request on the stream. */
  event(message: JSONRPCMessage): void {
    if (this.res.destroyed || this.res.writableEnded) return;
    if (!this.res.headersSent) this.res.writeHead(200, this.headers);
    this.res.write(sseEvent(message));
  }

  /** Writes the response and ends the stream (headers and event in one write when nothing was sent yet). */
  finish(message: JSONRPCMessage): void {
    this.stop();
    if (this.res.destroyed || this.res.writableEnded) return;
    if (this.clientId !== undefined) message = { ...message, id: this.clientId } as JSONRPCMessage;
    if (this.res.headersSent) {
      endWith(this.res, sseEventChunks(message));
      return;
    }
    // encoded once: its length is the Content-Length and the socket writes the bytes as they are
    const chunks = sseEventChunks(message);
    let length = 0;
    for (const chunk of chunks) length += chunk.length;
    this.res.writeHead(200, { ...this.headers, 'content-length': String(length) });
    endWith(this.res, chunks);
  }

  /** Ends the stream without a response (the session closed), as the SDK closes its stream. */
  abort(): void {
    this.stop();
    if (this.res.destroyed || this.res.writableEnded) return;
    if (!this.res.headersSent) this.res.writeHead(200, this.headers);
    this.res.end();
  }

  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

/**
 * The fast path of a 2025-era session (`@mcppipe/http`'s hot path): a POST carrying exactly one JSON-RPC request
 * that the SDK's `NodeStreamableHTTPServerTransport` would accept is dispatched to the session's server directly
 * and its response written straight to the Node response, without the SDK's Node↔web conversion (a web `Request`,
 * a `ReadableStream` and a web `Response` per call, headers and body in separate writes).
 *
 * Everything else — `initialize`, notifications, posted responses, batches, `GET`, `DELETE`, and every request the
 * SDK would refuse (wrong `Accept` or `Content-Type`, an unsupported `MCP-Protocol-Version`, an invalid message,
 * a scope challenge) — is left to the SDK transport, so its answers stay the SDK's own. What the fast path does
 * mirrors the SDK's success path: the same message validation (`parseJSONRPCMessage`), the same `onmessage`
 * extra (`authInfo`, `request`), the same SSE framing and headers, notifications and server→client requests
 * related to the call on the same stream, keep-alive comments, and an undeliverable response reported to
 * `onerror` when the client went away.
 */
export class DirectPosts {
  /** The fast path's requests in flight, by the id they were dispatched under (the wire id). */
  readonly #open = new Map<RequestId, Exchange>();
  /**
   * Client ids in flight more than once (issue 13.1): client id → the exchanges sent under it, oldest first.
   * Empty unless ids collided, so the common case costs one `size` check.
   */
  readonly #shared = new Map<RequestId, Exchange[]>();
  #remapSeq = 0;
  #versions: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;
  #scopeChallenges = false;
  readonly #headers: Record<string, string> = {};

  /**
   * Wraps the transport's `send` (responses and related messages of fast-path calls go to their streams) and
   * records what the server configures on it. Create it before `server.connect(transport)`.
   */
  constructor(
    private readonly transport: NodeStreamableHTTPServerTransport,
    private readonly keepAliveMs: number,
  ) {
    const setVersions = transport.setSupportedProtocolVersions.bind(transport);
    transport.setSupportedProtocolVersions = (versions: string[]) => {
      this.#versions = versions;
      setVersions(versions);
    };
    const setScope = transport.setScopeChallengeResolver.bind(transport);
    transport.setScopeChallengeResolver = (resolver) => {
      this.#scopeChallenges = resolver !== undefined;
      setScope(resolver);
    };
    const sdkSend = transport.send.bind(transport);
    transport.send = (message, options) => {
      if (this.#open.size === 0) return sdkSend(message, options);
      const isResponse = !('method' in message);
      const id = isResponse ? (message as { id?: RequestId }).id : options?.relatedRequestId;
      const exchange = id === undefined ? undefined : this.#open.get(id);
      if (exchange === undefined) return sdkSend(message, options);
      if (!isResponse) {
        exchange.event(message);
        return Promise.resolve();
      }
      this.#open.delete(id as RequestId);
      if (this.#shared.size > 0) this.#forget(exchange, id as RequestId);
      if (exchange.gone) {
        exchange.stop();
        this.transport.onerror?.(
          new Error(
            `Response for request ID ${String(id)} is undeliverable: per-request stream is disconnected and no eventStore is configured`,
          ),
        );
      } else {
        exchange.finish(message);
      }
      return Promise.resolve();
    };
  }

  /**
   * Serves one POST of this session when it is the fast path's case.
   *
   * @returns false, having touched nothing, when the SDK transport must serve the request
   */
  tryHandle(req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, body: unknown): boolean {
    if (this.#scopeChallenges || typeof body !== 'object' || body === null || Array.isArray(body))
      return false;
    const { method, id } = body as { method?: unknown; id?: unknown };
    if (typeof method !== 'string' || method === 'initialize' || id === undefined || id === null)
      return false;
    const accept = req.headers.accept;
    if (accept === undefined || !accept.includes('application/json') || !accept.includes('text/event-stream'))
      return false;
    if (!isJsonContentType(req.headers['content-type'] ?? null)) return false;
    const version = req.headers['mcp-protocol-version'];
    if (typeof version === 'string' && !this.#versions.includes(version)) return false;
    const sessionId = this.transport.sessionId;
    const onmessage = this.transport.onmessage;
    if (sessionId === undefined || onmessage === undefined) return false;
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(body);
    } catch {
      return false; // the SDK answers 400 itself
    }
    if (!('method' in message) || !('id' in message)) return false;
    const exchange = new Exchange(res, this.#headersFor(sessionId), this.keepAliveMs);
    const clientId = message.id;
    const first = this.#open.get(clientId);
    if (first !== undefined) {
      // the id is in flight already (clients that send `id: 1` on every request): dispatch under a fresh id
      let wireId: string;
      do wireId = `mcppipe-remap-${++this.#remapSeq}`;
      while (this.#open.has(wireId));
      exchange.clientId = clientId;
      exchange.wireId = wireId;
      message = { ...message, id: wireId };
      const list = this.#shared.get(clientId);
      if (list === undefined) this.#shared.set(clientId, [first, exchange]);
      else list.push(exchange);
    } else if (this.#shared.size > 0) {
      // the client's own id is free again but others under it are still in flight: this one is the most recent
      this.#shared.get(clientId)?.push(exchange);
    }
    this.#open.set(message.id, exchange);
    onmessage(message, {
      authInfo: req.auth,
      // built only if a handler reads more than method, URL, headers or signal (a real one costs more than the
      // rest of the fast path); the signal aborts when the client goes away
      request: parsedRequest(req, body, () => {
        const abort = new AbortController();
        res.once('close', () => abort.abort());
        return abort.signal;
      }),
      closeSSEStream: undefined,
      closeStandaloneSSEStream: undefined,
    } as never);
    return true;
  }

  /**
   * Rewrites a client's `notifications/cancelled` whose `requestId` names a client id in flight more than once on
   * this session to the wire id of the most recent of those requests (the one a client reusing ids is most likely
   * to mean; packages/http/README.md documents the choice). Anything else comes back unchanged, the same object.
   *
   * @param body - a parsed POST body of this session
   * @returns the body to hand to the SDK transport
   */
  remapCancel(body: unknown): unknown {
    if (this.#shared.size === 0 || typeof body !== 'object' || body === null) return body;
    const msg = body as { method?: unknown; params?: { requestId?: RequestId } };
    if (msg.method !== 'notifications/cancelled') return body;
    const requestId = msg.params?.requestId;
    const list = requestId === undefined ? undefined : this.#shared.get(requestId);
    const latest = list?.[list.length - 1];
    if (latest === undefined) return body;
    if (latest.wireId === undefined) return body;
    return { ...msg, params: { ...msg.params, requestId: latest.wireId } };
  }

  /** Drops an answered exchange from {@link #shared}. */
  #forget(exchange: Exchange, wireId: RequestId): void {
    const clientId = exchange.clientId ?? wireId;
    const list = this.#shared.get(clientId);
    if (list === undefined) return;
    const at = list.indexOf(exchange);
    if (at >= 0) list.splice(at, 1);
    // kept while a remapped request is left: a cancel naming the client id must still find it
    if (!list.some((e) => e.wireId !== undefined)) this.#shared.delete(clientId);
  }

  /** Ends every open stream (the transport closed). */
  closeAll(): void {
    for (const exchange of this.#open.values()) exchange.abort();
    this.#open.clear();
    this.#shared.clear();
  }

  #headersFor(sessionId: string): Record<string, string> {
    if (this.#headers['mcp-session-id'] !== sessionId) Object.assign(this.#headers, sseHeaders(sessionId));
    return this.#headers;
  }
}
