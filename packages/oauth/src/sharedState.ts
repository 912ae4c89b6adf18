/**
 * The OAuth state of many gateway nodes in the shared store (DESIGN.md S1, G2): registered clients, refresh-token
 * families (with a handle → family index) and access-token revocation markers live in Redis; each node keeps a
 * mirror of them in its in-memory `OAuthState`, so the bearer check stays in memory (G6). The mirror follows the
 * `oauth` pub/sub channel (another node's change is seen at once), re-reads everything every
 * {@link SHARED_SYNC_INTERVAL_MS} for messages lost while Redis was away, and fetches an entry it does not know
 * yet on first use. Decisions that must be atomic across nodes (the refresh-token rotation, a family's
 * revocation) are made on the Redis entry itself with `Collection.update`, never on the mirror.
 *
 * @module
 */
import type { Collection, Store } from '@mcppipe/store';
import { SHARED_SYNC_INTERVAL_MS } from './defaults.js';
import type { Logger } from './logger.js';
import type { ClientRecord, FamilyRecord, OAuthState } from './state.js';

/** The collections and the pub/sub channel of the shared OAuth state. */
const NAMES = {
  clients: 'oauth-clients',
  families: 'oauth-families',
  handles: 'oauth-handles',
  revoked: 'oauth-revoked',
  channel: 'oauth',
} as const;

type Kind = 'client' | 'family' | 'revoked';

/** The shared OAuth state of one node (created by the provider when `sharedStore` is a Redis store). */
export class SharedOAuthState {
  readonly clients: Collection<ClientRecord>;
  readonly families: Collection<FamilyRecord>;
  /** SHA-256 of a family's handle → the family id (written once, when the family starts). */
  readonly handles: Collection<string>;
  /** Revoked access-token `jti` → its `exp` (epoch seconds); the entry expires with the token. */
  readonly revoked: Collection<number>;
  readonly #store: Store;
  readonly #mirror: OAuthState;
  readonly #logger: Logger;
  #stop: (() => void) | undefined;
  /** Messages that arrived while a full re-read was running: applied again after it (it may have read older data). */
  #during: Set<string> | undefined;

  /**
   * @param store - the shared (Redis) store; the caller closes it
   * @param mirror - the provider's in-memory state: its `clients`, `families` and `revokedTokens` follow Redis
   * @param logger - stderr logger
   */
  constructor(store: Store, mirror: OAuthState, logger: Logger) {
    this.#store = store;
    this.#mirror = mirror;
    this.#logger = logger;
    this.clients = store.collection<ClientRecord>(NAMES.clients);
    this.families = store.collection<FamilyRecord>(NAMES.families);
    this.handles = store.collection<string>(NAMES.handles);
    this.revoked = store.collection<number>(NAMES.revoked);
  }

  /**
   * Replaces the mirror's clients, families and revocation markers with what Redis holds.
   *
   * @throws McpPipeError `MCPP_STORE_UNAVAILABLE` when Redis cannot be reached
   */
  async load(): Promise<void> {
    const during = (this.#during = new Set());
    try {
      const [clients, families, revoked] = await Promise.all([
        this.clients.entries(),
        this.families.entries(),
        this.revoked.entries(),
      ]);
      this.#mirror.clients = Object.fromEntries(clients);
      this.#mirror.families = Object.fromEntries(families);
      this.#mirror.revokedTokens = Object.fromEntries(revoked);
    } finally {
      if (this.#during === during) this.#during = undefined;
    }
    // a revocation announced while the read ran must not be undone by the older copy just read
    await Promise.all([...during].map((m) => this.#onMessage(m)));
  }

  async #onMessage(message: string): Promise<void> {
    this.#during?.add(message);
    const colon = message.indexOf(':');
    if (colon > 0) await this.#refresh(message.slice(0, colon) as Kind, message.slice(colon + 1));
  }

  /**
   * Follows other nodes' changes: the `oauth` channel plus a full re-read every `intervalMs`.
   *
   * @param intervalMs - the re-read period (default {@link SHARED_SYNC_INTERVAL_MS})
   */
  async watch(intervalMs = SHARED_SYNC_INTERVAL_MS): Promise<void> {
    const unsubscribe = await this.#store.subscribe(NAMES.channel, (message) => {
      this.#onMessage(message).catch(() => undefined);
    });
    const timer = setInterval(() => {
      this.load().catch((err: unknown) =>
        this.#logger.warn({ err: (err as Error).message }, 'could not re-read the shared OAuth state'),
      );
    }, intervalMs);
    timer.unref();
    this.#stop = () => {
      clearInterval(timer);
      void unsubscribe().catch(() => undefined);
    };
  }

  /** Stops following (the store itself is closed by its owner). */
  stop(): void {
    this.#stop?.();
    this.#stop = undefined;
  }

  async #refresh(kind: Kind, id: string): Promise<void> {
    if (kind === 'client') this.#put(this.#mirror.clients, id, await this.clients.get(id));
    else if (kind === 'family') this.#putFamily(id, await this.families.get(id));
    else if (kind === 'revoked') this.#put(this.#mirror.revokedTokens, id, await this.revoked.get(id));
  }

  /** A family only goes from active to revoked: an older active copy never replaces a revoked one. */
  #putFamily(id: string, value: FamilyRecord | undefined): void {
    const known = Object.hasOwn(this.#mirror.families, id) ? this.#mirror.families[id] : undefined;
    if (value !== undefined && value.status === 'active' && known?.status === 'revoked') return;
    this.#put(this.#mirror.families, id, value);
  }

  #put<T>(map: Record<string, T>, id: string, value: T | undefined): void {
    if (value === undefined) delete map[id];
    else map[id] = value;
  }

  async #announce(kind: Kind, id: string): Promise<void> {
    await this.#store.publish(NAMES.channel, `${kind}:${id}`);
  }

  /**
   * A client by id: the mirror's, else fetched from Redis (a client registered on another node a moment ago).
   *
   * @param id - the `client_id`
   * @returns the record, or undefined
   * @throws McpPipeError `MCPP_STORE_UNAVAILABLE`
   */
  async client(id: string): Promise<ClientRecord | undefined> {
    if (Object.hasOwn(this.#mirror.clients, id)) return this.#mirror.clients[id];
    const found = await this.clients.get(id);
    if (found !== undefined) this.#mirror.clients[id] = found;
    return found;
  }

  /**
   * A family by id: the mirror's, else fetched from Redis (a family started on another node).
   *
   * @param id - the family id
   * @returns the record, or undefined
   * @throws McpPipeError `MCPP_STORE_UNAVAILABLE`
   */
  async family(id: string): Promise<FamilyRecord | undefined> {
    if (Object.hasOwn(this.#mirror.families, id)) return this.#mirror.families[id];
    this.#putFamily(id, await this.families.get(id));
    return Object.hasOwn(this.#mirror.families, id) ? this.#mirror.families[id] : undefined;
  }

  /**
   * The id of the family whose handle hashes to `handleHash` (from Redis, not the mirror).
   *
   * @param handleHash - SHA-256 of the handle part of a refresh token
   * @returns the family id, or undefined
   */
  familyIdOf(handleHash: string): Promise<string | undefined> {
    return this.handles.get(handleHash);
  }

  /**
   * Stores a new client and tells the other nodes.
   *
   * @param record - the registration
   */
  async putClient(record: ClientRecord): Promise<void> {
    await this.clients.set(record.client_id, record);
    this.#mirror.clients[record.client_id] = record;
    await this.#announce('client', record.client_id);
  }

  /**
   * Stores a new family and its handle index, both expiring when no token of the family can be valid any more.
   *
   * @param family - the family
   * @param ttlMs - how long to keep it
   */
  async putFamily(family: FamilyRecord, ttlMs: number): Promise<void> {
    await this.handles.set(family.handleHash, family.id, { ttlMs });
    await this.families.set(family.id, family, { ttlMs });
    this.#putFamily(family.id, family);
    await this.#announce('family', family.id);
  }

  /**
   * Records a changed family (after an `update` of {@link SharedOAuthState.families}) in the mirror and tells
   * the other nodes.
   *
   * @param family - the family as written
   */
  async changedFamily(family: FamilyRecord): Promise<void> {
    this.#putFamily(family.id, family);
    await this.#announce('family', family.id);
  }

  /**
   * Records a revoked access token until it would have expired.
   *
   * @param jti - the token's id
   * @param exp - its `exp` (epoch seconds)
   * @param ttlMs - how long to keep the marker
   */
  async revokeToken(jti: string, exp: number, ttlMs: number): Promise<void> {
    await this.revoked.set(jti, exp, { ttlMs });
    this.#mirror.revokedTokens[jti] = exp;
    await this.#announce('revoked', jti);
  }
}
