import { hostname } from 'node:os';
import { CLOSE_REPLACED } from './defaults.js';
import { invalidOption } from './errors.js';
import type { ForwardExchange } from './forward.js';
import type { NodeCallAnswer, NodeCallHandler } from './nodeCall.js';
import { NodeLink } from './nodeLink.js';
import type { ForwardedDelivery } from './nodeLink.js';
import type { TunnelRegistry } from './registry.js';
import type { TunnelInfo } from './tunnel.js';
import type { Logger } from './types.js';
import { silentLogger } from './types.js';

/** Who holds a tunnel (S2): the record its node keeps in the shared store, refreshed by a heartbeat. */
export interface TunnelOwner {
  /** The owner node's id. */
  node: string;
  /** The owner node's node-to-node URL (`http://10.0.0.5:3100`). */
  url: string;
  /** The connection's id (a newer connection of the same subdomain has another). */
  tunnelId: string;
  account: string;
  subdomain: string;
  keyId: string;
  /** The tunnel's connect metadata (its policy: `auth`, `allow`), so any node can check a request first. */
  metadata: Record<string, string>;
  /** A zero-knowledge tunnel (T7): no policies or capture of bodies (absent in records of older nodes: false). */
  zeroKnowledge?: boolean;
  /** Epoch ms the connection was accepted (absent in a reservation and in records of older nodes). */
  connectedAt?: number;
}

/**
 * Where owner records live: structurally a `Collection<TunnelOwner>` of `@mcppipe/store` (the Redis backend for
 * many nodes), so this package needs no store import.
 */
export interface OwnerLeases {
  get(key: string): Promise<TunnelOwner | undefined>;
  set(key: string, value: TunnelOwner, options?: { ttlMs?: number }): Promise<void>;
  compareAndSwap(
    key: string,
    swap: { expected: TunnelOwner | undefined; next: TunnelOwner | undefined; ttlMs?: number },
  ): Promise<boolean>;
  entries(): Promise<Array<[string, TunnelOwner]>>;
}

/** A connect asking for a subdomain, before it is accepted ({@link TunnelCluster.reserve}). */
export interface TunnelClaim {
  subdomain: string;
  account: string;
  keyId: string;
  metadata: Readonly<Record<string, string>>;
}

/** Options of {@link TunnelCluster}. */
export interface TunnelClusterOptions {
  /** The shared owner records. */
  leases: OwnerLeases;
  /** This node's registry of local tunnels. */
  registry: TunnelRegistry;
  /** This node's id (unique per process: a restarted node is a new node). */
  nodeId: string;
  /**
   * The URL other nodes reach this node's node-to-node listener at (`--node-url`). Default: the listener's
   * address, with this host's name in place of a wildcard address.
   */
  nodeUrl?: string | undefined;
  /** The secret every node shares (`MCPPIPE_NODE_SECRET`), at least 32 characters. */
  secret: string;
  /** An owner record disappears this long after its node's last heartbeat, in ms. Default 15 000. */
  leaseTtlMs?: number;
  /** Heartbeat interval, in ms. Default a third of `leaseTtlMs`. */
  heartbeatMs?: number;
  /** Connecting to a peer node fails after this long (the request gets `tunnel_offline`), in ms. Default 2 000. */
  connectTimeoutMs?: number;
  logger?: Logger;
}

/** Default lease of an owner record, ms. */
export const DEFAULT_LEASE_TTL_MS = 15_000;
/** Compare-and-swap rounds of {@link TunnelCluster.reserve} before it gives up (then refuses). */
const RESERVE_ATTEMPTS = 5;
/** Shortest node secret accepted, characters. */
export const MIN_NODE_SECRET_LENGTH = 32;

/**
 * Tunnel ownership across relay nodes (DESIGN.md S2). The node holding a tunnel writes `subdomain → owner` with a
 * heartbeat TTL; a public request landing on another node is checked there (policy, auth) and forwarded to the
 * owner over the node-to-node HTTP/2 link ({@link NodeLink}). When the owner dies its peers get `tunnel_offline`
 * at once (the connection is refused) until the CLI reconnects through any node, which takes the record over; a
 * node that sees its record taken closes its own stale connection (`CLOSE_REPLACED`).
 *
 * @example
 * ```ts
 * const cluster = new TunnelCluster({ leases: store.collection('tunnels'), registry, nodeId, nodeUrl, secret });
 * await cluster.listen({ host: '10.0.0.5', port: 3100 });
 * ```
 */
export class TunnelCluster implements AsyncDisposable {
  readonly #o: TunnelClusterOptions;
  readonly #ttl: number;
  readonly #logger: Logger;
  readonly #link: NodeLink;
  readonly #timer: NodeJS.Timeout;
  readonly #calls = new Map<string, NodeCallHandler>();
  #warned = false;
  #deliver: ForwardedDelivery = (tunnel, exchange) => this.#o.registry.forward(tunnel, exchange);
  #nodeUrl: string | undefined;
  /** The tunnels other nodes hold, by subdomain: refreshed every heartbeat and by every lookup. */
  #remote = new Map<string, TunnelOwner>();

  /**
   * @param options - see {@link TunnelClusterOptions}
   * @throws McpPipeError `MCPP_TUNNEL_INVALID_OPTIONS` for a short secret or a bad duration
   */
  constructor(options: TunnelClusterOptions) {
    if (options.secret.length < MIN_NODE_SECRET_LENGTH)
      throw invalidOption(
        'MCPPIPE_NODE_SECRET',
        `must be at least ${MIN_NODE_SECRET_LENGTH} characters (e.g. openssl rand -hex 32)`,
        `${options.secret.length} characters`,
      );
    this.#o = options;
    this.#nodeUrl = options.nodeUrl;
    this.#ttl = options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
    const beat = options.heartbeatMs ?? Math.floor(this.#ttl / 3);
    if (!Number.isInteger(beat) || beat < 1 || beat >= this.#ttl)
      throw invalidOption('heartbeatMs', 'must be a positive integer below leaseTtlMs', beat);
    this.#logger = options.logger ?? silentLogger;
    this.#link = new NodeLink({
      secret: options.secret,
      registry: options.registry,
      connectTimeoutMs: options.connectTimeoutMs ?? 2_000,
      logger: this.#logger,
      calls: this.#calls,
      deliver: () => this.#deliver,
    });
    this.#timer = setInterval(() => void this.#heartbeat(), beat);
    this.#timer.unref();
  }

  /**
   * Starts the node-to-node listener (never the public one: peers only, each request carries the secret).
   *
   * @returns its address, e.g. `http://127.0.0.1:3100`
   */
  async listen(where: { host: string; port: number }): Promise<string> {
    const address = await this.#link.listen(where);
    const wildcard = /^http:\/\/(0\.0\.0\.0|\[::\])(:\d+)$/.exec(address);
    this.#nodeUrl ??= wildcard ? `http://${hostname()}${wildcard[2]}` : address;
    this.#logger.info({ address, nodeUrl: this.#nodeUrl }, `node link listening on ${address}`);
    await this.#refreshRemote();
    return address;
  }

  #record(info: TunnelInfo): TunnelOwner {
    return {
      node: this.#o.nodeId,
      url: this.#nodeUrl ?? '',
      tunnelId: info.id,
      account: info.account,
      subdomain: info.subdomain,
      keyId: info.keyId,
      metadata: { ...info.metadata },
      zeroKnowledge: info.zeroKnowledge,
      connectedAt: info.connectedAt,
    };
  }

  #failed(err: unknown, what: string): void {
    if (this.#warned) return;
    this.#warned = true; // once per outage: the store logs its own reconnects
    this.#logger.warn({ err: (err as Error).message }, `tunnel ownership: could not ${what}; retrying`);
  }

  /**
   * Decides a connect before it is accepted (S2, T2's 409 across nodes): a subdomain whose live record belongs to
   * ANOTHER account (on any node) is refused, as a live tunnel of another account is on one node; the same account
   * may take its subdomain over from any node (a reconnect after a node loss). A free subdomain is reserved for
   * this node at once (compare-and-swap on an absent record), so two accounts racing on two nodes cannot both win.
   *
   * @param claim - the subdomain, the connecting key's account and id, the connect metadata
   * @returns false: answer 409 `MCPP_TUNNEL_SUBDOMAIN_TAKEN`; true when the store is away (fail open, logged:
   *   a node without Redis cannot forward anyway, and its own tunnels keep working)
   */
  async reserve(claim: TunnelClaim): Promise<boolean> {
    const pending: TunnelOwner = {
      node: this.#o.nodeId,
      url: this.#nodeUrl ?? '',
      tunnelId: '',
      ...claim,
      metadata: { ...claim.metadata },
    };
    try {
      for (let attempt = 0; attempt < RESERVE_ATTEMPTS; attempt++) {
        const current = await this.#o.leases.get(claim.subdomain);
        if (current !== undefined) return current.account === claim.account;
        const swap = { expected: undefined, next: pending, ttlMs: this.#ttl };
        if (await this.#o.leases.compareAndSwap(claim.subdomain, swap)) return true;
      }
      return false; // lost every race: someone holds it now
    } catch (err) {
      this.#failed(err, 'check a subdomain');
      return true;
    }
  }

  /**
   * The tunnels other nodes held at the last heartbeat or lookup (for the resource list of the authorization
   * server: OAuth-mode tunnels of other nodes are served here too).
   */
  remoteTunnels(): TunnelOwner[] {
    return [...this.#remote.values()];
  }

  async #refreshRemote(): Promise<void> {
    try {
      const all = await this.#o.leases.entries();
      this.#remote = new Map(all.filter(([, o]) => o.node !== this.#o.nodeId));
    } catch (err) {
      this.#failed(err, 'list the tunnels of other nodes');
    }
  }

  /** Records a new local tunnel as this node's (the newest connection wins, as within one node). */
  async claim(info: TunnelInfo): Promise<void> {
    try {
      await this.#o.leases.set(info.subdomain, this.#record(info), { ttlMs: this.#ttl });
      this.#warned = false;
    } catch (err) {
      this.#failed(err, 'record a tunnel'); // the next heartbeat records it
    }
  }

  /** Removes the record of a local tunnel that closed, if it is still this connection's. */
  async release(tunnelId: string, subdomain: string): Promise<void> {
    try {
      const current = await this.#o.leases.get(subdomain);
      if (current?.node === this.#o.nodeId && current.tunnelId === tunnelId)
        await this.#o.leases.compareAndSwap(subdomain, { expected: current, next: undefined });
    } catch (err) {
      this.#failed(err, 'release a tunnel'); // the lease expires by itself
    }
  }

  async #heartbeat(): Promise<void> {
    await this.#refreshRemote();
    for (const info of this.#o.registry.list()) {
      try {
        const current = await this.#o.leases.get(info.subdomain);
        if (current !== undefined && current.node !== this.#o.nodeId) {
          // the client reconnected through another node: this connection is stale
          this.#o.registry
            .lookup(info.subdomain, info.account)
            ?.close(CLOSE_REPLACED, 'replaced by a newer connection on another relay node');
          continue;
        }
        const next = this.#record(info);
        await this.#o.leases.compareAndSwap(info.subdomain, { expected: current, next, ttlMs: this.#ttl });
        this.#warned = false;
      } catch (err) {
        this.#failed(err, 'refresh a tunnel lease');
      }
    }
  }

  /**
   * The owner of a tunnel held by ANOTHER node.
   *
   * @returns its record, or undefined when no other node holds `subdomain` for `account` (or the store is away)
   */
  async remoteOwner(subdomain: string, account: string): Promise<TunnelOwner | undefined> {
    let owner: TunnelOwner | undefined;
    try {
      owner = await this.#o.leases.get(subdomain);
    } catch (err) {
      this.#failed(err, 'look a tunnel up');
      return undefined;
    }
    if (owner === undefined || owner.node === this.#o.nodeId) this.#remote.delete(subdomain);
    else this.#remote.set(subdomain, owner);
    return owner?.node !== this.#o.nodeId && owner?.account === account ? owner : undefined;
  }

  /**
   * Forwards a public request (already checked and rewritten by this node) to the owner node.
   *
   * @throws McpPipeError `MCPP_TUNNEL_OFFLINE` (a rejection, nothing written) when the owner cannot be reached
   */
  forward(owner: TunnelOwner, exchange: ForwardExchange, caller: string | null = null): Promise<void> {
    return this.#link.forward(owner, exchange, caller);
  }

  /**
   * How this node delivers the requests other nodes forward to its tunnels (default: straight into the tunnel).
   * The relay sets its own, so a forwarded request meets the owner's stored policies and is recorded like one that
   * entered here.
   *
   * @param deliver - gets the tunnel (undefined when it is gone: reject with `MCPP_TUNNEL_OFFLINE`), the exchange
   *   and the caller the entry node authenticated
   */
  onForwarded(deliver: ForwardedDelivery): void {
    this.#deliver = deliver;
  }

  /**
   * Answers a named node call on this node's link (the dashboard API of a tunnel this node holds, asked by a node
   * that does not hold it). A later handler of the same name replaces the earlier one.
   *
   * @param name - the call's name
   * @param handler - answers the JSON payload with a status and a JSON body
   */
  handle(name: string, handler: NodeCallHandler): void {
    this.#calls.set(name, handler);
  }

  /**
   * Sends a named call to the node holding a tunnel (see {@link handle}); unknown names answer 404.
   *
   * @param owner - the tunnel's owner record ({@link remoteOwner})
   * @param name - the call's name
   * @param payload - its JSON payload (at most 1 MiB)
   * @returns the owner node's answer
   * @throws McpPipeError `MCPP_TUNNEL_OFFLINE` when the owner cannot be reached or does not answer in 70 s
   */
  call(owner: TunnelOwner, name: string, payload: unknown): Promise<NodeCallAnswer> {
    return this.#link.call(owner, name, payload);
  }

  /** Stops the heartbeat and the node link (records expire by their TTL or are released as tunnels close). */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#link.close();
  }

  /** Same as {@link close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
