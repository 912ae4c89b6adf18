import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { TunnelOwner } from './cluster.js';
import { tunnelOffline } from './errors.js';
import type { ForwardExchange } from './forward.js';
import { pipeExchange, requestHasBody } from './forward.js';
import { endToEndHeaders } from './headers.js';
import { NODE_CALL_HEADER, acceptNodeCall, sendNodeCall } from './nodeCall.js';
import type { NodeCallAnswer, NodeCallHandler } from './nodeCall.js';
import { writeTunnelOffline } from './offline.js';
import type { TunnelRegistry } from './registry.js';
import type { Tunnel } from './tunnel.js';
import type { Logger } from './types.js';

/** Node-to-node request headers (S2): the shared secret and the tunnel the request is for. */
export const NODE_SECRET_HEADER = 'x-mcppipe-node-secret';
const NODE_TUNNEL_HEADER = 'x-mcppipe-node-tunnel';
const NODE_ACCOUNT_HEADER = 'x-mcppipe-node-account';
/** The caller the entry node authenticated (its key name or OAuth client), JSON: a string or null (auth `none`). */
const NODE_CALLER_HEADER = 'x-mcppipe-node-caller';
const STRIP_NODE = {
  [NODE_SECRET_HEADER]: null,
  [NODE_TUNNEL_HEADER]: null,
  [NODE_ACCOUNT_HEADER]: null,
  [NODE_CALLER_HEADER]: null,
};

/**
 * How the holding node delivers a request another node forwarded to one of its tunnels: by default straight into
 * the tunnel; the relay sets its own (`TunnelCluster.onForwarded`: the owner's gate and the exchange capture, as
 * for a request that entered here).
 */
export type ForwardedDelivery = (
  tunnel: Tunnel | undefined,
  exchange: ForwardExchange,
  caller: string | null,
) => Promise<void>;

interface NodeLinkOptions {
  secret: string;
  registry: TunnelRegistry;
  connectTimeoutMs: number;
  logger: Logger;
  /** The node calls this node answers, by name (see `TunnelCluster.handle`). */
  calls: ReadonlyMap<string, NodeCallHandler>;
  /** How a forwarded request reaches the tunnel (read per request: the relay may set it after construction). */
  deliver: () => ForwardedDelivery;
}

/** The forwarded caller: what the entry node sent (a string or null), anything else null. */
function callerOf(value: string | string[] | undefined): string | null {
  try {
    const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : null;
    return typeof parsed === 'string' ? parsed : null;
  } catch {
    return null;
  }
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/**
 * @internal The HTTP/2 link between relay nodes (cleartext h2 on the internal network, S2): a listener that
 * accepts forwarded requests carrying the shared secret (compared in constant time) and streams them into a local
 * tunnel, and a client with one cached session per peer.
 */
export class NodeLink {
  readonly #o: NodeLinkOptions;
  readonly #secret: Buffer;
  readonly #sessions = new Map<string, Promise<http2.ClientHttp2Session>>();
  #server: http2.Http2Server | undefined;
  readonly #accepted = new Set<http2.ServerHttp2Session>();

  constructor(options: NodeLinkOptions) {
    this.#o = options;
    this.#secret = digest(options.secret);
  }

  #authorized(value: string | string[] | undefined): boolean {
    return typeof value === 'string' && timingSafeEqual(digest(value), this.#secret);
  }

  /** Starts the listener; resolves with its URL. */
  async listen(where: { host: string; port: number }): Promise<string> {
    const server = http2.createServer({}, (req, res) => this.#accept(req, res));
    server.on('sessionError', () => {});
    server.on('session', (session) => {
      this.#accepted.add(session);
      session.once('close', () => this.#accepted.delete(session));
    });
    this.#server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(where.port, where.host, () => resolve());
    });
    const a = server.address() as AddressInfo;
    return `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`;
  }

  #accept(req: http2.Http2ServerRequest, res: http2.Http2ServerResponse): void {
    req.on('error', () => {});
    if (!this.#authorized(req.headers[NODE_SECRET_HEADER])) {
      this.#o.logger.warn({ from: req.socket.remoteAddress }, 'node link: request without the node secret');
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'MCPP_TUNNEL_REFUSED', message: 'node secret required' } }));
      return;
    }
    if (typeof req.headers[NODE_CALL_HEADER] === 'string')
      return void acceptNodeCall(this.#o.calls, req, res);
    const tunnel = this.#o.registry.lookup(
      String(req.headers[NODE_TUNNEL_HEADER] ?? ''),
      String(req.headers[NODE_ACCOUNT_HEADER] ?? ''),
    );
    const raw = req as unknown as IncomingMessage;
    const out = res as unknown as ServerResponse;
    raw.headers.host = req.authority;
    this.#o
      .deliver()(
        tunnel,
        { req: raw, res: out, headers: STRIP_NODE },
        callerOf(req.headers[NODE_CALLER_HEADER]),
      )
      .catch(() => {
        if (!res.headersSent) writeTunnelOffline(out);
        else res.destroy();
      });
  }

  #session(url: string): Promise<http2.ClientHttp2Session> {
    let pending = this.#sessions.get(url);
    if (pending !== undefined) return pending;
    pending = new Promise<http2.ClientHttp2Session>((resolve, reject) => {
      const session = http2.connect(url);
      const forget = (): void => {
        if (this.#sessions.get(url) === pending) this.#sessions.delete(url);
      };
      const timer = setTimeout(() => {
        session.destroy();
        reject(new Error(`connecting to ${url} timed out`));
      }, this.#o.connectTimeoutMs);
      session.once('connect', () => {
        clearTimeout(timer);
        resolve(session);
      });
      session.on('error', (err) => {
        clearTimeout(timer);
        forget();
        reject(err);
      });
      session.on('close', forget);
      session.on('goaway', forget);
    });
    pending.catch(() => {});
    this.#sessions.set(url, pending);
    return pending;
  }

  /**
   * Forwards an exchange to the owner node, with the caller this node authenticated; rejects with
   * `MCPP_TUNNEL_OFFLINE` when it cannot be reached.
   */
  async forward(owner: TunnelOwner, exchange: ForwardExchange, caller: string | null = null): Promise<void> {
    const { req } = exchange;
    const hasBody = requestHasBody(req);
    let stream: http2.ClientHttp2Stream;
    try {
      const session = await this.#session(owner.url);
      stream = session.request(
        {
          ...endToEndHeaders(req.headers, exchange.headers),
          ':method': req.method ?? 'GET',
          ':path': req.url ?? '/',
          ':authority': req.headers.host ?? owner.subdomain,
          [NODE_SECRET_HEADER]: this.#o.secret,
          [NODE_TUNNEL_HEADER]: owner.subdomain,
          [NODE_ACCOUNT_HEADER]: owner.account,
          [NODE_CALLER_HEADER]: JSON.stringify(caller),
        },
        { endStream: !hasBody },
      );
    } catch (err) {
      this.#o.logger.warn(
        { node: owner.node, err: (err as Error).message },
        'owner node unreachable: tunnel offline',
      );
      throw Object.assign(tunnelOffline(owner.subdomain), { cause: err });
    }
    return pipeExchange(stream, exchange, hasBody);
  }

  /** Sends a named call with a JSON payload to the owner node; rejects with `MCPP_TUNNEL_OFFLINE` on failure. */
  async call(owner: TunnelOwner, name: string, payload: unknown): Promise<NodeCallAnswer> {
    let session: http2.ClientHttp2Session;
    try {
      session = await this.#session(owner.url);
    } catch (err) {
      this.#o.logger.warn({ node: owner.node, err: (err as Error).message }, 'owner node unreachable');
      throw Object.assign(tunnelOffline(owner.subdomain), { cause: err });
    }
    const headers = { [NODE_SECRET_HEADER]: this.#o.secret, [NODE_CALL_HEADER]: name };
    return sendNodeCall(session, { headers, payload, subdomain: owner.subdomain });
  }

  /** Closes the listener and every peer session. */
  async close(): Promise<void> {
    for (const pending of this.#sessions.values())
      void pending.then(
        (s) => s.destroy(),
        () => {},
      );
    this.#sessions.clear();
    const server = this.#server;
    if (server === undefined) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const session of this.#accepted) session.destroy(); // open h2 sessions keep a server open
    });
  }
}
