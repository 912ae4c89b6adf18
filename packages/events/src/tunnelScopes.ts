import { EventHub } from './hub.js';
import {
  callEventScope,
  followEventScope,
  type FollowedScope,
  type ScopeRequester,
  type ToolsSnapshot,
  type UpstreamSnapshot,
} from './remote.js';
import type { EventsStore } from './store.js';
import { silentLogger, type Logger } from './types.js';
import { WebhookDeliverer, type WebhookDelivererOptions } from './webhooks.js';

/** A tunnel as the relay's API lists it (`GET /api/tunnels`). */
export interface TunnelSummary {
  /** The address label `<subdomain>--<account>`: stable across reconnects. */
  id: string;
  subdomain: string;
  account: string;
  publicUrl: string;
  connected: boolean;
  /** ISO 8601 of the last connect. */
  connectedAt: string;
  /** The auth mode the CLI asked for (`oauth`, `api-key`, `none`). */
  auth: string;
  zeroKnowledge: boolean;
  /** Upstreams behind it (0 for single-upstream and zero-knowledge tunnels). */
  upstreams: number;
}

/** One tunnel connection, as {@link TunnelScopes.connected} takes it. */
export interface TunnelConnection {
  id: string;
  subdomain: string;
  account: string;
  publicUrl: string;
  auth: string;
  zeroKnowledge: boolean;
  /**
   * The CLI serves an event scope (its connect metadata has `events: "1"`, `SCOPE_METADATA_KEY`); other
   * tunnels (zero-knowledge, older CLIs, plain `connectTunnel` users) are never sent the relay's own requests.
   */
  servesScope: boolean;
  /** Epoch ms. */
  connectedAt: number;
  /** Sends the relay's own requests over this connection. */
  request: ScopeRequester;
}

/** The event scope of one tunnel on the relay. */
export interface TunnelScope {
  readonly summary: TunnelSummary;
  readonly hub: EventHub;
  /** Its webhook subscriptions (loaded from the store on first connect). */
  readonly webhooks: Promise<WebhookDeliverer>;
  /** The snapshot of its upstreams (empty when disconnected, zero-knowledge or single-upstream). */
  upstreams(): Promise<UpstreamSnapshot[]>;
  /** Its pinned tools. */
  tools(): Promise<ToolsSnapshot>;
  /** Forwards a scope call (`POST /upstreams/:name/reconnect`, `POST /tools/:name/accept`) to the CLI. */
  call(method: 'GET' | 'POST', path: string): Promise<{ status: number; body: unknown }>;
}

/** Options of {@link TunnelScopes}. */
export interface TunnelScopesOptions extends Pick<
  WebhookDelivererOptions,
  'allowPrivate' | 'retryDelaysMs' | 'timeoutMs' | 'resolver' | 'transport'
> {
  /** Where each tunnel's webhooks are kept (key `webhooks.<tunnel id>`). Default memory. */
  store?: EventsStore;
  /** Wait before re-opening a tunnel's event stream that ended while the tunnel stayed up, in ms. Default 1000. */
  refollowMs?: number;
  logger?: Logger;
}

interface Entry extends TunnelScope {
  summary: TunnelSummary;
  current: TunnelConnection | undefined;
  follow: FollowedScope | undefined;
  lastRemoteId: string | undefined;
}

const OFFLINE = { status: 404, body: { error: 'not_found', message: 'the tunnel is not connected' } };

/**
 * The relay's per-tunnel event scopes (E1–E3), keyed by tunnel id: each has a hub (`tunnel.connected` /
 * `tunnel.disconnected` published here, the CLI's own events republished from its `/.mcppipe/events` stream), its
 * webhooks and pass-through snapshot calls. A tunnel seen once stays listed (`connected: false`) while the process
 * lives. Owner scoping is the caller's: {@link TunnelScopes.get} takes the account and answers undefined for
 * another's.
 */
export class TunnelScopes {
  readonly #scopes = new Map<string, Entry>();
  readonly #o: TunnelScopesOptions;
  readonly #logger: Logger;

  /** @param options - store, webhook delivery tuning, logger */
  constructor(options: TunnelScopesOptions = {}) {
    this.#o = options;
    this.#logger = options.logger ?? silentLogger;
  }

  #create(c: TunnelConnection): Entry {
    const hub = new EventHub();
    const { store, allowPrivate, retryDelaysMs, timeoutMs, resolver, transport } = this.#o;
    const webhooks = WebhookDeliverer.open({
      storeKey: `webhooks.${c.id}`,
      logger: this.#logger,
      ...(store && { store }),
      ...(allowPrivate !== undefined && { allowPrivate }),
      ...(retryDelaysMs && { retryDelaysMs }),
      ...(timeoutMs !== undefined && { timeoutMs }),
      ...(resolver && { resolver }),
      ...(transport && { transport }),
    });
    webhooks.catch((err: unknown) =>
      this.#logger.error({ tunnel: c.id, err: (err as Error).message }, 'could not load webhooks'),
    );
    // then-callbacks run in registration order: deliveries keep the hub's order
    hub.subscribe(
      (event) =>
        void webhooks.then(
          (w) => w.dispatch(event),
          () => {},
        ),
    );
    const entry: Entry = {
      summary: { ...summaryOf(c), connected: false },
      hub,
      webhooks,
      current: undefined,
      follow: undefined,
      lastRemoteId: undefined,
      upstreams: async () => {
        const r = await entry.call('GET', '/upstreams');
        const list = (r.body as { upstreams?: UpstreamSnapshot[] }).upstreams;
        return r.status === 200 && Array.isArray(list) ? list : [];
      },
      tools: async () => {
        const r = await entry.call('GET', '/tools');
        return r.status === 200 ? (r.body as ToolsSnapshot) : { hold: false, tools: [] };
      },
      call: async (method, path) => {
        const c = entry.current;
        if (c === undefined || c.zeroKnowledge || !c.servesScope) return OFFLINE;
        return callEventScope(c.request, method, path).catch(() => OFFLINE);
      },
    };
    return entry;
  }

  #follow(entry: Entry, c: TunnelConnection): void {
    const follow = followEventScope(c.request, entry.hub, {
      tunnel: c.id,
      lastEventId: entry.lastRemoteId,
      logger: this.#logger,
    });
    entry.follow = follow;
    void follow.ended.then(() => {
      entry.lastRemoteId = follow.lastEventId();
      if (entry.current !== c || entry.follow !== follow || !follow.opened()) return;
      entry.follow = undefined;
      const again = setTimeout(
        () => entry.current === c && this.#follow(entry, c),
        this.#o.refollowMs ?? 1000,
      );
      again.unref();
    });
  }

  /**
   * A tunnel connected (or reconnected): publishes `tunnel.connected`, follows its events, counts its upstreams.
   *
   * @param c - the connection
   */
  connected(c: TunnelConnection): void {
    let entry = this.#scopes.get(c.id);
    if (!entry) this.#scopes.set(c.id, (entry = this.#create(c)));
    entry.follow?.close();
    entry.follow = undefined;
    entry.current = c;
    entry.summary = summaryOf(c);
    entry.hub.publish('tunnel.connected', { tunnel: c.id, at: c.connectedAt, reason: null });
    if (c.zeroKnowledge || !c.servesScope) return;
    this.#follow(entry, c);
    const counted = entry;
    void counted.upstreams().then((list) => {
      if (counted.current === c) counted.summary.upstreams = list.length;
    });
  }

  /**
   * A tunnel connection closed: publishes `tunnel.disconnected` unless a newer connection took over (here: it is
   * current; on another node: `replaced`, and this node's scope only stops following it).
   *
   * @param d - the tunnel's `id`, `at` (epoch ms), the `reason` when known, the closed connection's `request`
   *   (nothing is published when a newer connection is current), and `replaced` when the relay closed it for a
   *   newer connection of the same tunnel on another node
   */
  disconnected(d: {
    id: string;
    at: number;
    reason: string | null;
    request?: ScopeRequester | undefined;
    replaced?: boolean;
  }): void {
    const { id, at, reason, request } = d;
    const entry = this.#scopes.get(id);
    if (!entry?.current || (request !== undefined && entry.current.request !== request)) return;
    entry.current = undefined;
    entry.follow?.close();
    entry.summary.connected = false;
    if (d.replaced !== true) entry.hub.publish('tunnel.disconnected', { tunnel: id, at, reason });
  }

  /**
   * The scope of a tunnel owned by `account`.
   *
   * @returns the scope; undefined when unknown or another account's (answer 404 either way)
   */
  get(id: string, account: string): TunnelScope | undefined {
    const entry = this.#scopes.get(id);
    return entry?.summary.account === account ? entry : undefined;
  }

  /** @returns the summaries of `account`'s tunnels, by id */
  list(account: string): TunnelSummary[] {
    return [...this.#scopes.values()]
      .filter((e) => e.summary.account === account)
      .map((e) => ({ ...e.summary }))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** Stops following and delivering. */
  close(): void {
    for (const entry of this.#scopes.values()) {
      entry.current = undefined;
      entry.follow?.close();
      void entry.webhooks.then(
        (w) => w.close(),
        () => {},
      );
    }
  }
}

function summaryOf(c: TunnelConnection): TunnelSummary {
  return {
    id: c.id,
    subdomain: c.subdomain,
    account: c.account,
    publicUrl: c.publicUrl,
    connected: true,
    connectedAt: new Date(c.connectedAt).toISOString(),
    auth: c.auth,
    zeroKnowledge: c.zeroKnowledge,
    upstreams: 0,
  };
}
