import { randomUUID } from 'node:crypto';
import http2 from 'node:http2';
import type {
  ClientHttp2Session,
  ClientHttp2Stream,
  IncomingHttpHeaders,
  OutgoingHttpHeaders,
} from 'node:http2';
import type { Readable } from 'node:stream';

import type { WebSocket } from 'ws';
import { CLOSE_DEAD, CLOSE_REPLACED, SESSION_WINDOW_BYTES, STREAM_WINDOW_BYTES } from './defaults.js';
import { tunnelOffline } from './errors.js';
import type { HeaderOverrides } from './headers.js';
import { endToEndHeaders } from './headers.js';
import { startHeartbeat } from './heartbeat.js';
import { wsDuplex } from './wsDuplex.js';

/** What the relay knows about one live tunnel (the shape `TunnelRegistry.list` returns). */
export interface TunnelInfo {
  /** A random id for this connection. */
  readonly id: string;
  /** The owning account's slug. */
  readonly account: string;
  /** The id of the API key it connected with. */
  readonly keyId: string;
  /** Its subdomain. */
  readonly subdomain: string;
  /** Its public URL, as the registry's `publicUrl` built it. */
  readonly publicUrl: string;
  /** Whether the client asked for zero-knowledge mode (T7). */
  readonly zeroKnowledge: boolean;
  /** The client's metadata (from its connect request). */
  readonly metadata: Readonly<Record<string, string>>;
  /** When it connected, epoch ms. */
  readonly connectedAt: number;
}

/** A request the relay itself sends to the CLI over a tunnel ({@link Tunnel.request}). */
export interface TunnelRequest {
  /** HTTP method. Default `GET`. */
  method?: string;
  /** Path and query, e.g. `/events`. */
  path: string;
  /** Request headers (hop-by-hop ones are dropped). */
  headers?: HeaderOverrides;
  /** The body, sent whole or streamed. Default none. */
  body?: string | Uint8Array | Readable;
}

/** The answer to a {@link TunnelRequest}: status and headers, with the body as the h2 stream itself. */
export interface TunnelResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The response body; read it or `close()` it. */
  stream: ClientHttp2Stream;
}

/** @internal How a tunnel connection is created. */
export interface TunnelInit extends Omit<TunnelInfo, 'id' | 'connectedAt'> {
  ws: WebSocket;
  pingIntervalMs: number;
  deadAfterMs: number;
  onClose: (tunnel: Tunnel, reason: string) => void;
}

/**
 * One live tunnel on the relay: the h2 client session running over the CLI's WebSocket (T3). Created by
 * `TunnelRegistry`; callers get it from `lookup` and pass it to `forward`, or send their own requests.
 */
export class Tunnel implements TunnelInfo {
  readonly id = randomUUID();
  readonly account: string;
  readonly keyId: string;
  readonly subdomain: string;
  readonly publicUrl: string;
  readonly zeroKnowledge: boolean;
  readonly metadata: Readonly<Record<string, string>>;
  readonly connectedAt = Date.now();
  readonly #ws: WebSocket;
  readonly #session: ClientHttp2Session;
  readonly #stopHeartbeat: () => void;
  #closeReason: string | undefined;
  #replaced = false;
  #draining = false;

  /** @internal */
  constructor(init: TunnelInit) {
    this.account = init.account;
    this.keyId = init.keyId;
    this.subdomain = init.subdomain;
    this.publicUrl = init.publicUrl;
    this.zeroKnowledge = init.zeroKnowledge;
    this.metadata = init.metadata;
    this.#ws = init.ws;
    const duplex = wsDuplex(init.ws);
    this.#session = http2.connect(`http://${init.subdomain}.tunnel`, {
      createConnection: () => duplex,
      settings: { initialWindowSize: STREAM_WINDOW_BYTES },
    });
    this.#session.once('connect', (s: ClientHttp2Session) => s.setLocalWindowSize(SESSION_WINDOW_BYTES));
    this.#session.on('error', () => {});
    // the CLI is stopping (T6): no new stream goes to it, the open ones finish (node closes the session after)
    this.#session.once('goaway', () => (this.#draining = true));
    const finish = (reason: string): void => {
      if (this.#closeReason !== undefined) return;
      this.#closeReason = reason;
      this.#stopHeartbeat();
      this.#session.destroy();
      init.onClose(this, reason);
    };
    this.#session.on('close', () => finish('h2 session closed'));
    init.ws.on('close', (code, why) =>
      finish(`websocket closed (${code}${why.length ? ` ${why.toString()}` : ''})`),
    );
    this.#stopHeartbeat = startHeartbeat(init.ws, this.#session, {
      pingIntervalMs: init.pingIntervalMs,
      deadAfterMs: init.deadAfterMs,
      onDead: () => {
        finish(`dead: silent for ${init.deadAfterMs} ms`);
        init.ws.terminate();
      },
    });
  }

  /**
   * Whether the tunnel takes new requests: open, not closing (a client's `close()` frees it at once) and not
   * draining (the client sent a GOAWAY: its open streams finish, new requests are answered `tunnel_offline`).
   */
  get live(): boolean {
    return this.#closeReason === undefined && !this.#draining && this.#ws.readyState === this.#ws.OPEN;
  }

  /** Whether the relay closed it because a newer connection of the same tunnel took over (here or on another node). */
  get replaced(): boolean {
    return this.#replaced;
  }

  /** Why the tunnel closed, once it has. */
  get closeReason(): string | undefined {
    return this.#closeReason;
  }

  /**
   * Opens one raw h2 stream to the CLI (what `forward` and {@link request} build on).
   *
   * @param headers - the h2 request headers, pseudo-headers included (already filtered)
   * @param endStream - true when there is no request body
   * @returns the stream, to write the body to (unless `endStream`) and read the response from
   * @throws McpPipeError `MCPP_TUNNEL_OFFLINE` when the tunnel is not live
   */
  openStream(headers: OutgoingHttpHeaders, endStream: boolean): ClientHttp2Stream {
    if (!this.live) throw tunnelOffline(this.subdomain);
    try {
      return this.#session.request(headers, { endStream });
    } catch (err) {
      // a session that closed under us is an offline tunnel; anything else (a bad header) is the caller's bug
      if (this.#session.closed || this.#session.destroyed) {
        throw Object.assign(tunnelOffline(this.subdomain), { cause: err });
      }
      throw err;
    }
  }

  /**
   * Sends the relay's own request to the CLI over this tunnel and waits for the response headers.
   *
   * @param request - method, path, headers and body
   * @returns status, headers and the body stream
   * @throws McpPipeError `MCPP_TUNNEL_OFFLINE` when the tunnel is not live or drops before the response
   * @example Reading the CLI's event stream
   * ```ts
   * const { status, stream } = await tunnel.request({ path: '/events' });
   * for await (const chunk of stream) handle(chunk);
   * ```
   */
  async request(request: TunnelRequest): Promise<TunnelResponse> {
    const { body } = request;
    const stream = this.openStream(
      {
        ...endToEndHeaders({}, request.headers),
        ':method': request.method ?? 'GET',
        ':path': request.path,
      },
      body === undefined,
    );
    if (typeof body === 'string' || body instanceof Uint8Array) stream.end(body);
    else if (body !== undefined) body.pipe(stream);
    return new Promise((resolve, reject) => {
      const fail = (err?: unknown): void =>
        reject(Object.assign(tunnelOffline(this.subdomain), { cause: err }));
      stream.once('error', fail);
      stream.once('close', fail);
      stream.once('response', (headers) => {
        stream.off('error', fail);
        stream.off('close', fail);
        stream.on('error', () => {});
        resolve({ status: Number(headers[':status']), headers, stream });
      });
    });
  }

  /**
   * Closes the tunnel: a WebSocket close frame with `code` and `reason`, which the client reads.
   *
   * @param code - a WebSocket close code (4000–4003 mean replaced, key revoked, relay closed, dead)
   * @param reason - a short human reason (at most 123 bytes)
   */
  close(code: number, reason: string): void {
    if (code === CLOSE_REPLACED && this.#closeReason === undefined) this.#replaced = true;
    if (this.#ws.readyState === this.#ws.OPEN || this.#ws.readyState === this.#ws.CONNECTING) {
      this.#ws.close(code, reason.slice(0, 120));
    }
    const timer = setTimeout(() => this.#ws.terminate(), 2_000);
    timer.unref();
    if (code === CLOSE_DEAD) this.#ws.terminate();
  }

  /** The public fields, for listing. */
  info(): TunnelInfo {
    const { id, account, keyId, subdomain, publicUrl, zeroKnowledge, metadata, connectedAt } = this;
    return { id, account, keyId, subdomain, publicUrl, zeroKnowledge, metadata, connectedAt };
  }
}
