import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { isValidUpstreamName } from '@mcppipe/namespace';
import { WebSocketServer } from 'ws';
import type { WebSocket } from 'ws';
import {
  CLOSE_KEY_REVOKED,
  CLOSE_RELAY_CLOSED,
  CLOSE_REPLACED,
  DEFAULT_DEAD_AFTER_MS,
  DEFAULT_PING_INTERVAL_MS,
  METADATA_HEADER,
  PUBLIC_URL_HEADER,
  TUNNEL_AUTH_HEADER,
  SUBDOMAIN_HEADER,
  ZERO_KNOWLEDGE_HEADER,
} from './defaults.js';
import { validateHeartbeat } from './heartbeat.js';
import type { ForwardExchange } from './forward.js';
import { forwardRequest } from './forward.js';
import { readMetadata, refuseUpgrade } from './handshake.js';
import type { TunnelInfo } from './tunnel.js';
import { Tunnel } from './tunnel.js';
import type { Logger } from './types.js';
import { silentLogger } from './types.js';

/** Who an API key belongs to, as the relay's key store says. */
export interface TunnelIdentity {
  /** The account slug. */
  account: string;
  /** The key's id (what `closeByKey` matches). */
  keyId: string;
}

/** A connect or disconnect, for logs, the API and webhooks. */
export interface TunnelEvent {
  type: 'tunnel.connected' | 'tunnel.disconnected';
  tunnelId: string;
  account: string;
  subdomain: string;
  /** Epoch ms. */
  at: number;
  /** Why it disconnected (`tunnel.disconnected` only). */
  reason?: string;
  /**
   * A newer connection of the same tunnel took over, on this node or another (`tunnel.disconnected` only): the
   * tunnel is still connected, so this is no disconnect to publish.
   */
  replaced?: boolean;
}

/** Options of {@link TunnelRegistry}. */
export interface TunnelRegistryOptions {
  /** Resolves an API key (the `Bearer` token of the connect request) to its owner; undefined refuses it (401). */
  authenticate: (apiKey: string) => Promise<TunnelIdentity | undefined>;
  /** Builds a tunnel's public URL (the zone logic stays with the caller, T4). */
  publicUrl: (subdomain: string, account: string) => string;
  /**
   * The auth mode the relay applies to an accepted tunnel (T5), sent to the client in the 101 answer
   * ({@link TUNNEL_AUTH_HEADER}); undefined: the header is left out. Default: none sent.
   */
  authMode?: (
    claim: TunnelIdentity & { subdomain: string; metadata: Record<string, string> },
  ) => string | undefined;
  /** h2 PING interval, in ms. Default 20 000. */
  pingIntervalMs?: number;
  /** A tunnel silent this long is closed, in ms. Default 45 000. */
  deadAfterMs?: number;
  /** Logger (default: silent). Keys are never logged. */
  logger?: Logger;
  /** Called on every connect and disconnect. */
  onEvent?: (event: TunnelEvent) => void;
  /**
   * Many relay nodes (S2): asked before a connect is accepted whether its subdomain is free across nodes
   * (`TunnelCluster.reserve`); false refuses it with the same 409 as another account's live tunnel here.
   */
  reserve?: (
    claim: TunnelIdentity & { subdomain: string; metadata: Record<string, string> },
  ) => Promise<boolean>;
}

const taken = (subdomain: string) => ({
  code: 'MCPP_TUNNEL_SUBDOMAIN_TAKEN',
  message: `subdomain "${subdomain}" is held by another account's live tunnel: pick another --subdomain`,
});

/**
 * The relay half of the tunnel (T2, T3, T6): accepts tunnel connections on a WebSocket upgrade, authenticates
 * their keys through the injected lookup, hands out public URLs, and forwards each public request as one h2
 * stream to the owning tunnel. One subdomain has at most one live tunnel; the same account reconnecting
 * takes it over, another account is refused (409).
 *
 * @example Wiring a relay into a node HTTP server
 * ```ts
 * const registry = new TunnelRegistry({ authenticate: keys.lookup, publicUrl: (s, a) => `https://${s}--${a}.${zone}/mcp` });
 * server.on('upgrade', (req, socket, head) => {
 *   if (new URL(req.url ?? '/', 'http://x').pathname === '/tunnel/connect') void registry.handleUpgrade(req, socket, head);
 *   else socket.destroy();
 * });
 * ```
 */
export class TunnelRegistry implements AsyncDisposable {
  readonly #options: TunnelRegistryOptions;
  readonly #pingIntervalMs: number;
  readonly #deadAfterMs: number;
  readonly #logger: Logger;
  readonly #wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: 16 * 1024 * 1024,
  });
  readonly #bySubdomain = new Map<string, Tunnel>();
  readonly #pendingHeaders = new WeakMap<IncomingMessage, string[]>();
  #closed = false;

  /**
   * @param options - the key lookup, the public URL builder and the heartbeat durations
   * @throws McpPipeError `MCPP_TUNNEL_INVALID_OPTIONS` for bad durations
   */
  constructor(options: TunnelRegistryOptions) {
    this.#options = options;
    this.#pingIntervalMs = options.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS;
    this.#deadAfterMs = options.deadAfterMs ?? DEFAULT_DEAD_AFTER_MS;
    validateHeartbeat(this.#pingIntervalMs, this.#deadAfterMs);
    this.#logger = options.logger ?? silentLogger;
    this.#wss.on('headers', (headers, req) => {
      const extra = this.#pendingHeaders.get(req);
      if (extra !== undefined) headers.push(...extra);
    });
  }

  /**
   * Handles a node HTTP server's `upgrade` event for the connect path (the path check is the caller's).
   * Refusals are HTTP answers before the 101, with a JSON body `{ error: { code, message } }`: 401 bad key,
   * 400 bad subdomain, 409 subdomain held by another account's live tunnel.
   *
   * @param req - the upgrade request
   * @param socket - its socket
   * @param head - the first bytes after the headers
   * @returns the new tunnel, or undefined when refused
   */
  async handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<Tunnel | undefined> {
    socket.on('error', () => {});
    if (this.#closed)
      return refuseUpgrade(socket, 503, {
        code: 'MCPP_TUNNEL_OFFLINE',
        message: 'the relay is shutting down',
      });
    const auth = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    let identity: TunnelIdentity | undefined;
    try {
      identity = auth === undefined ? undefined : await this.#options.authenticate(auth);
    } catch (err) {
      this.#logger.error({ err }, 'tunnel key lookup failed');
      return refuseUpgrade(socket, 503, {
        code: 'MCPP_TUNNEL_OFFLINE',
        message: 'the relay could not check the key; retry',
      });
    }
    if (identity === undefined) {
      return refuseUpgrade(socket, 401, {
        code: 'MCPP_TUNNEL_BAD_KEY',
        message:
          'the API key is unknown or revoked: create one with `mcppipe-gateway keys create`, with the same --data-dir (or --redis) as the relay',
      });
    }
    const subdomain = String(req.headers[SUBDOMAIN_HEADER] ?? '');
    if (!isValidUpstreamName(subdomain)) {
      return refuseUpgrade(socket, 400, {
        code: 'MCPP_TUNNEL_INVALID_SUBDOMAIN',
        message: `subdomain ${JSON.stringify(subdomain)} is invalid: it must match ^[a-z][a-z0-9_-]{0,31}$, must not contain "__" and must not end with "_"`,
      });
    }
    const metadata = readMetadata(req.headers[METADATA_HEADER]);
    if (metadata === undefined) {
      return refuseUpgrade(socket, 400, {
        code: 'MCPP_TUNNEL_REFUSED',
        message: `${METADATA_HEADER} must be a JSON object of strings, at most 4 KB`,
      });
    }
    if (this.#options.reserve && !(await this.#options.reserve({ ...identity, subdomain, metadata })))
      return refuseUpgrade(socket, 409, taken(subdomain));
    const held = this.#bySubdomain.get(subdomain);
    if (held?.live && held.account !== identity.account) return refuseUpgrade(socket, 409, taken(subdomain));
    if (this.#closed || socket.destroyed)
      return refuseUpgrade(socket, 503, {
        code: 'MCPP_TUNNEL_OFFLINE',
        message: 'the relay is shutting down',
      });
    const publicUrl = this.#options.publicUrl(subdomain, identity.account);
    const answer = [`${PUBLIC_URL_HEADER}: ${publicUrl}`];
    const mode = this.#options.authMode?.({ ...identity, subdomain, metadata });
    if (mode !== undefined && /^[a-z-]{1,32}$/.test(mode)) answer.push(`${TUNNEL_AUTH_HEADER}: ${mode}`);
    this.#pendingHeaders.set(req, answer);
    // From the 409 check to the registration nothing awaits (ws completes the upgrade synchronously), so two
    // connects racing for one subdomain cannot both pass the check.
    let tunnel: Tunnel | undefined;
    this.#wss.handleUpgrade(req, socket, head, (ws) => {
      tunnel = this.#register(ws, {
        ...identity,
        subdomain,
        publicUrl,
        metadata,
        zeroKnowledge: req.headers[ZERO_KNOWLEDGE_HEADER] === '1',
      });
    });
    return tunnel;
  }

  #register(ws: WebSocket, info: Omit<TunnelInfo, 'id' | 'connectedAt'>): Tunnel {
    const { subdomain } = info;
    const previous = this.#bySubdomain.get(subdomain);
    const tunnel = new Tunnel({
      ...info,
      ws,
      pingIntervalMs: this.#pingIntervalMs,
      deadAfterMs: this.#deadAfterMs,
      onClose: (t, reason) => this.#closedTunnel(t, reason),
    });
    this.#bySubdomain.set(subdomain, tunnel);
    if (previous !== undefined) {
      previous.close(CLOSE_REPLACED, `replaced by a newer connection for subdomain "${subdomain}"`);
    }
    this.#logger.info({ tunnel: tunnel.id, account: tunnel.account, subdomain }, 'tunnel connected');
    this.#options.onEvent?.({
      type: 'tunnel.connected',
      tunnelId: tunnel.id,
      account: tunnel.account,
      subdomain,
      at: tunnel.connectedAt,
    });
    return tunnel;
  }

  #closedTunnel(tunnel: Tunnel, reason: string): void {
    if (this.#bySubdomain.get(tunnel.subdomain) === tunnel) this.#bySubdomain.delete(tunnel.subdomain);
    this.#logger.info(
      { tunnel: tunnel.id, account: tunnel.account, subdomain: tunnel.subdomain, reason },
      'tunnel disconnected',
    );
    this.#options.onEvent?.({
      type: 'tunnel.disconnected',
      tunnelId: tunnel.id,
      account: tunnel.account,
      subdomain: tunnel.subdomain,
      at: Date.now(),
      reason,
      ...(tunnel.replaced && { replaced: true }),
    });
  }

  /**
   * The live tunnel of `subdomain` owned by `account`.
   *
   * @param subdomain - the subdomain from the public address
   * @param account - the account slug from the public address
   * @returns the tunnel, or undefined when none is live (a closing one counts as gone)
   */
  lookup(subdomain: string, account: string): Tunnel | undefined {
    const tunnel = this.#bySubdomain.get(subdomain);
    return tunnel?.live && tunnel.account === account ? tunnel : undefined;
  }

  /**
   * Forwards a public request to a tunnel as one h2 stream and pipes the answer back (status, end-to-end
   * headers, streamed body; SSE arrives event by event). A public client that goes away cancels the stream
   * (RST_STREAM CANCEL), so the CLI cancels the upstream call. A tunnel that drops mid-call fails the call
   * (502 before the headers, a cut connection after); it is never replayed (T6).
   *
   * @param tunnel - from {@link lookup}; undefined means offline
   * @param exchange - the public request and response, and header overrides (`null` deletes: strip the agent's
   *   credentials, set `X-Forwarded-*`)
   * @returns when the response is finished or the exchange was cancelled
   * @throws McpPipeError `MCPP_TUNNEL_OFFLINE` (a rejection, before anything is written) when the tunnel is not
   *   live; answer it with `writeTunnelOffline`
   * @example
   * ```ts
   * await registry.forward(registry.lookup(subdomain, account), { req, res, headers: { authorization: null } })
   *   .catch((err) => { if (isMcpPipeError(err, 'MCPP_TUNNEL_OFFLINE')) writeTunnelOffline(res); else throw err; });
   * ```
   */
  forward(tunnel: Tunnel | undefined, exchange: ForwardExchange): Promise<void> {
    return forwardRequest(tunnel, exchange);
  }

  /**
   * Closes every tunnel that connected with this key (a revoked key, T1).
   *
   * @param keyId - the key's id
   * @param reason - a short reason the client sees
   * @returns how many tunnels were closed
   */
  closeByKey(keyId: string, reason = 'the API key was revoked'): number {
    let count = 0;
    for (const tunnel of [...this.#bySubdomain.values()]) {
      if (tunnel.keyId !== keyId) continue;
      this.#bySubdomain.delete(tunnel.subdomain);
      tunnel.close(CLOSE_KEY_REVOKED, reason);
      count++;
    }
    return count;
  }

  /**
   * Closes every tunnel (the clients reconnect with backoff).
   *
   * @param reason - a short reason the clients see
   */
  closeAll(reason = 'the relay closed the tunnel'): void {
    for (const tunnel of [...this.#bySubdomain.values()]) tunnel.close(CLOSE_RELAY_CLOSED, reason);
    this.#bySubdomain.clear();
  }

  /** @returns the live tunnels */
  list(): TunnelInfo[] {
    return [...this.#bySubdomain.values()].filter((t) => t.live).map((t) => t.info());
  }

  /** Closes every tunnel and refuses new ones. */
  async close(): Promise<void> {
    this.#closed = true;
    this.closeAll('the relay is shutting down');
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
  }

  /** Same as {@link close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
