import { randomBytes } from 'node:crypto';
import { isMcpPipeError } from '@mcppipe/errors';
import { systemClock, type Clock, type Scheduler, type TimerHandle } from '@mcppipe/upstream-state';
import { Webhook } from 'standardwebhooks';
import { resolvePublic, systemResolver, type Resolver } from './address.js';
import * as d from './defaults.js';
import { invalidWebhookError, unknownWebhookError } from './errors.js';
import type { EventsStore } from './store.js';
import { nodeTransport, type WebhookTransport } from './transport.js';
import { EVENT_TYPES, silentLogger, type EventType, type Logger, type McpPipeEvent } from './types.js';

/** A webhook subscription as listed (the secret is shown once, at creation). */
export interface WebhookSubscription {
  id: string;
  url: string;
  events: EventType[];
  /** ISO 8601. */
  createdAt: string;
}

/** One entry of a subscription's delivery log. */
export interface DeliveryRecord {
  /** The event's id, also the `webhook-id` header. */
  eventId: string;
  eventType: EventType;
  /** `pending` while attempts remain, then `delivered` (a 2xx) or `failed`. */
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  /** HTTP status of the last attempt; null when it got no answer. */
  statusCode: number | null;
  /** Duration of the last attempt in ms. */
  latencyMs: number | null;
  /** Why the last attempt failed; null after a success. */
  error: string | null;
  /** ISO 8601 of the first and of the last attempt. */
  createdAt: string;
  updatedAt: string;
}

/** Options of {@link WebhookDeliverer.open}. */
export interface WebhookDelivererOptions {
  /** Where subscriptions (with their secrets) are kept. Default: memory only. */
  store?: EventsStore;
  /** The store key of this scope, e.g. `webhooks` or `webhooks.<tunnel>`. Default `webhooks`. */
  storeKey?: string;
  /** Allow targets on loopback, private and link-local addresses (`MCPPIPE_WEBHOOKS_ALLOW_PRIVATE=1` in the gateway). Default false. */
  allowPrivate?: boolean;
  /** Waits before the 2nd, 3rd, … attempt; attempts = length + 1. Default 5 s, 30 s, 2 min, 10 min, 45 min. */
  retryDelaysMs?: readonly number[];
  /** Timeout of one attempt in ms. Default 10 000. */
  timeoutMs?: number;
  /** Entries kept per delivery log. Default 100. */
  logSize?: number;
  /** Events waiting per subscription. Default 1000. */
  queueSize?: number;
  /** Subscriptions in this scope. Default 20. */
  maxSubscriptions?: number;
  /**
   * The event types this scope publishes, which a subscription may name (any other is refused at creation, so a
   * subscription never waits for an event that cannot come). Default every type ({@link EVENT_TYPES}).
   */
  eventTypes?: readonly EventType[];
  /** Clock and timers of the retry schedule (tests: `VirtualClock`). Default the system's. */
  clock?: Clock & Scheduler;
  /** DNS resolver (tests). Default `dns.lookup`. */
  resolver?: Resolver;
  /** Sends one attempt (tests). Default {@link nodeTransport}. */
  transport?: WebhookTransport;
  logger?: Logger;
}

interface Sub extends WebhookSubscription {
  secret: string;
  signer: Webhook;
  queue: { event: McpPipeEvent; body: string; record: DeliveryRecord }[];
  log: DeliveryRecord[];
  busy: boolean;
  timer: TimerHandle | undefined;
}

/**
 * Webhook subscriptions of one scope and their deliveries (E3): each event is POSTed as JSON, signed per Standard
 * Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256>`), at least once, in
 * order per subscription (a retrying delivery holds back the later ones), with up to 6 attempts at growing
 * intervals, each with a 10 s timeout and no redirects followed; targets on non-public addresses are refused at
 * creation and at each connection unless `allowPrivate`. The last 100 deliveries per subscription are logged.
 */
export class WebhookDeliverer {
  readonly #subs = new Map<string, Sub>();
  readonly #o: Required<Omit<WebhookDelivererOptions, 'store' | 'logger'>> &
    Pick<WebhookDelivererOptions, 'store'>;
  readonly #logger: Logger;
  #closed = false;
  #idle: (() => void)[] = [];
  #unwatch: (() => Promise<void>) | undefined;

  private constructor(options: WebhookDelivererOptions) {
    const resolver = options.resolver ?? systemResolver;
    const allowPrivate = options.allowPrivate ?? false;
    this.#o = {
      store: options.store,
      storeKey: options.storeKey ?? 'webhooks',
      allowPrivate,
      retryDelaysMs: options.retryDelaysMs ?? d.DEFAULT_WEBHOOK_RETRY_DELAYS_MS,
      timeoutMs: options.timeoutMs ?? d.DEFAULT_WEBHOOK_TIMEOUT_MS,
      logSize: options.logSize ?? d.DEFAULT_DELIVERY_LOG_SIZE,
      queueSize: options.queueSize ?? d.DEFAULT_WEBHOOK_QUEUE_SIZE,
      maxSubscriptions: options.maxSubscriptions ?? d.DEFAULT_MAX_SUBSCRIPTIONS,
      eventTypes: options.eventTypes ?? EVENT_TYPES,
      clock: options.clock ?? systemClock,
      resolver,
      transport: options.transport ?? nodeTransport(resolver, allowPrivate),
    };
    this.#logger = options.logger ?? silentLogger;
  }

  /**
   * Creates a deliverer and loads the scope's subscriptions from the store.
   *
   * @param options - see {@link WebhookDelivererOptions}
   * @returns the deliverer
   */
  static async open(options: WebhookDelivererOptions = {}): Promise<WebhookDeliverer> {
    const deliverer = new WebhookDeliverer(options);
    await deliverer.#load();
    // many nodes (S1): a subscription made through another node is delivered here for this node's events
    deliverer.#unwatch = await options.store?.watch?.((key) => {
      if (key === deliverer.#o.storeKey && !deliverer.#closed)
        deliverer.#load().catch((err: unknown) => {
          deliverer.#logger.error({ err: (err as Error).message }, 'reloading webhook subscriptions failed');
        });
    });
    return deliverer;
  }

  /** Reads the saved subscriptions: new ones are added, removed ones dropped, kept ones keep their queue and log. */
  async #load(): Promise<void> {
    const saved = (await this.#o.store?.read(this.#o.storeKey)) as
      { subscriptions?: (WebhookSubscription & { secret: string })[] } | undefined;
    const list = saved?.subscriptions ?? [];
    const ids = new Set(list.map((s) => s.id));
    for (const [id, sub] of this.#subs) if (!ids.has(id)) this.#drop(sub);
    for (const s of list) if (!this.#subs.has(s.id)) this.#add(s);
  }

  #drop(sub: Sub): void {
    if (sub.timer !== undefined) this.#o.clock.clearTimeout(sub.timer);
    sub.queue.length = 0;
    this.#subs.delete(sub.id);
  }

  #add(s: WebhookSubscription & { secret: string }): Sub {
    const sub: Sub = {
      ...s,
      signer: new Webhook(s.secret),
      queue: [],
      log: [],
      busy: false,
      timer: undefined,
    };
    this.#subs.set(s.id, sub);
    return sub;
  }

  async #save(): Promise<void> {
    const subscriptions = [...this.#subs.values()].map(({ id, url, events, createdAt, secret }) => ({
      id,
      url,
      events,
      createdAt,
      secret,
    }));
    await this.#o.store?.write(this.#o.storeKey, { subscriptions }, { secret: true });
  }

  /**
   * Adds a subscription (E3). The target is resolved now and refused when it is not public (unless allowed).
   *
   * @param input - `url` (http or https) and `events` (event types, at least one)
   * @returns the subscription and its signing secret (`whsec_…`), which is never shown again
   * @throws McpPipeError `MCPP_EVENTS_INVALID_WEBHOOK`, `MCPP_EVENTS_PRIVATE_TARGET`
   */
  async create(input: {
    url: unknown;
    events: unknown;
  }): Promise<{ subscription: WebhookSubscription; secret: string }> {
    const url = parseTarget(input.url);
    const events = parseEvents(input.events, this.#o.eventTypes);
    if (this.#subs.size >= this.#o.maxSubscriptions) {
      throw invalidWebhookError(
        `at most ${this.#o.maxSubscriptions} webhook subscriptions; remove one first`,
      );
    }
    if (!this.#o.allowPrivate) {
      await resolvePublic(url.hostname, this.#o.resolver).catch((err: unknown) => {
        if (isMcpPipeError(err)) throw err;
        throw invalidWebhookError(`cannot resolve the webhook host ${url.hostname}; check the URL`);
      });
    }
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const subscription: WebhookSubscription = {
      id: `wh_${randomBytes(9).toString('base64url')}`,
      url: url.href,
      events,
      createdAt: new Date(this.#o.clock.now()).toISOString(),
    };
    this.#add({ ...subscription, secret });
    await this.#save();
    return { subscription, secret };
  }

  /** @returns every subscription (without secrets), oldest first */
  list(): WebhookSubscription[] {
    return [...this.#subs.values()].map(({ id, url, events, createdAt }) => ({
      id,
      url,
      events: [...events],
      createdAt,
    }));
  }

  /**
   * Removes a subscription; its waiting deliveries are dropped.
   *
   * @throws McpPipeError `MCPP_EVENTS_UNKNOWN_WEBHOOK`
   */
  async remove(id: string): Promise<void> {
    const sub = this.#subs.get(id);
    if (!sub) throw unknownWebhookError(id);
    this.#drop(sub);
    await this.#save();
    this.#checkIdle();
  }

  /**
   * A subscription's delivery log, newest first (at most 100 entries).
   *
   * @throws McpPipeError `MCPP_EVENTS_UNKNOWN_WEBHOOK`
   */
  deliveries(id: string): DeliveryRecord[] {
    const sub = this.#subs.get(id);
    if (!sub) throw unknownWebhookError(id);
    return sub.log.map((r) => ({ ...r })).reverse();
  }

  /**
   * Queues an event for every subscription that chose its type. Returns at once.
   *
   * @param event - an event from an `EventHub`
   */
  dispatch(event: McpPipeEvent): void {
    if (this.#closed) return;
    const body = JSON.stringify(event);
    const now = new Date(this.#o.clock.now()).toISOString();
    for (const sub of this.#subs.values()) {
      if (!sub.events.includes(event.type)) continue;
      const record: DeliveryRecord = {
        eventId: event.id,
        eventType: event.type,
        status: 'pending',
        attempts: 0,
        statusCode: null,
        latencyMs: null,
        error: null,
        createdAt: now,
        updatedAt: now,
      };
      sub.log.push(record);
      if (sub.log.length > this.#o.logSize) sub.log.shift();
      sub.queue.push({ event, body, record });
      if (sub.queue.length > this.#o.queueSize) {
        const dropped = sub.queue.splice(sub.busy ? 1 : 0, 1)[0]!;
        Object.assign(dropped.record, { status: 'failed', error: 'dropped: too many deliveries waiting' });
      }
      void this.#pump(sub);
    }
  }

  async #pump(sub: Sub): Promise<void> {
    if (sub.busy || sub.timer !== undefined || this.#closed) return;
    const head = sub.queue[0];
    if (!head) return this.#checkIdle();
    sub.busy = true;
    const { record } = head;
    const started = this.#o.clock.now();
    let error: string | null = null;
    let statusCode: number | null = null;
    try {
      const headers = {
        'content-type': 'application/json',
        'user-agent': 'mcppipe-webhooks',
        'webhook-id': head.event.id,
        'webhook-timestamp': String(Math.floor(started / 1000)),
        'webhook-signature': sub.signer.sign(head.event.id, new Date(started), head.body),
      };
      const res = await this.#o.transport({
        url: sub.url,
        headers,
        body: head.body,
        timeoutMs: this.#o.timeoutMs,
      });
      statusCode = res.status;
      if (res.status < 200 || res.status > 299) error = `the target answered HTTP ${res.status}`;
    } catch (err) {
      error = isMcpPipeError(err) ? err.message : `delivery failed: ${(err as Error).message}`;
    }
    sub.busy = false;
    if (!this.#subs.has(sub.id) || this.#closed) return;
    record.attempts += 1;
    Object.assign(record, {
      statusCode,
      error,
      latencyMs: this.#o.clock.now() - started,
      updatedAt: new Date(this.#o.clock.now()).toISOString(),
    });
    const delay = this.#o.retryDelaysMs[record.attempts - 1];
    if (error === null || delay === undefined) {
      record.status = error === null ? 'delivered' : 'failed';
      if (error !== null)
        this.#logger.warn({ webhook: sub.id, event: record.eventId, error }, 'webhook delivery failed');
      sub.queue.shift();
      return this.#pump(sub);
    }
    sub.timer = this.#o.clock.setTimeout(() => {
      sub.timer = undefined;
      void this.#pump(sub);
    }, delay);
  }

  #checkIdle(): void {
    if ([...this.#subs.values()].some((s) => s.queue.length > 0)) return;
    for (const resolve of this.#idle.splice(0)) resolve();
  }

  /** Settles when no delivery is waiting or retrying (tests, shutdown). */
  idle(): Promise<void> {
    return new Promise((resolve) => {
      this.#idle.push(resolve);
      this.#checkIdle();
    });
  }

  /** Stops delivering: timers are cleared, waiting deliveries dropped. */
  close(): void {
    this.#closed = true;
    void this.#unwatch?.().catch(() => {});
    for (const sub of this.#subs.values()) {
      if (sub.timer !== undefined) this.#o.clock.clearTimeout(sub.timer);
      sub.timer = undefined;
      sub.queue.length = 0;
    }
    this.#checkIdle();
  }
}

function parseTarget(value: unknown): URL {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    throw invalidWebhookError('webhook "url" must be an absolute http:// or https:// URL');
  }
  if (typeof value !== 'string' || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
    throw invalidWebhookError('webhook "url" must be an absolute http:// or https:// URL');
  }
  if (url.username || url.password) {
    throw invalidWebhookError('webhook "url" must not carry credentials; every delivery is signed instead');
  }
  return url;
}

function parseEvents(value: unknown, types: readonly EventType[]): EventType[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw invalidWebhookError(`webhook "events" must be a non-empty list of: ${types.join(', ')}`);
  }
  for (const e of value) {
    if (!types.includes(e as EventType)) {
      const known = EVENT_TYPES.includes(e as EventType);
      throw invalidWebhookError(
        known
          ? `event type ${JSON.stringify(e)} never happens in this scope; use: ${types.join(', ')}` +
              (String(e).startsWith('tunnel.') ? " (tunnel events: a tunnel's own webhooks)" : '')
          : `unknown event type ${JSON.stringify(e)}; use: ${types.join(', ')}`,
      );
    }
  }
  return [...new Set(value as EventType[])];
}
