import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseExchange, requestOf, responseOf, textOf } from './classify.js';
import {
  DEFAULT_BODY_CAP_BYTES,
  DEFAULT_RING_MAX_BYTES,
  DEFAULT_RING_MAX_EXCHANGES,
  MAX_PENDING_CHILD_RESPONSES,
  RECORD_OVERHEAD_BYTES,
} from './defaults.js';
import { invalidOptionsError, invalidRequestError } from './errors.js';
import { redactMessage, restoreRedacted } from './redact.js';
import { BoundedRing } from './ring.js';
import { SharedWriter } from './shared.js';
import type { SharedExchangeRing, SharedWriterOptions } from './shared.js';
import { ToolStats } from './stats.js';
import { tapExchange, teeExchange } from './tap.js';
import type { ExchangeTee, TapOptions } from './tap.js';
import { runReplay } from './replay.js';
import type { ReplayAnswer } from './replay.js';
import type {
  ExchangeChild,
  ExchangeContext,
  ExchangeDetail,
  ExchangeSummary,
  RawExchange,
  ToolStatsRow,
} from './types.js';

/** Options of {@link ExchangeCapture}. */
export interface ExchangeCaptureOptions {
  /** Exchanges kept per tunnel. Default 1000. */
  maxExchanges?: number;
  /** Captured bytes kept per tunnel. Default 16 MiB. */
  maxBytes?: number;
  /** Bytes kept of each body. Default 64 KiB. */
  bodyCapBytes?: number;
  /** Time source, epoch ms. Default `Date.now`. */
  now?: () => number;
  /**
   * Many nodes (issue 20, S1): every exchange is also written, batched, to this ring shared by the nodes, which
   * {@link ExchangeCapture.listShared} and {@link ExchangeCapture.getShared} read. Unset: this node's ring only.
   */
  shared?: SharedExchangeRing;
  /** Batching of the writes to `shared` (flush interval, batch size, error sink). */
  sharedWrites?: SharedWriterOptions;
}

/** Filters of {@link ExchangeCapture.list} (all optional, combined with AND). */
export interface ExchangeFilter {
  upstream?: string;
  method?: string;
  /** `ok`, `isError`, or `error` (a JSON-RPC error code or a non-2xx answer). */
  status?: 'ok' | 'error' | 'isError';
  caller?: string;
  /** At most this many, newest first. Default 100. */
  limit?: number;
}

/** What a replay sends: the original request's body and the headers that keep its session. */
export interface ReplaySource {
  /** The original body (values included: kept in memory only, never returned by the API); undefined if cut. */
  body: string | undefined;
  headers: Record<string, string>;
}

/**
 * One exchange in the ring: the summary's fields (the summary object is made when read: the list, Live, the
 * Inspector) and the text its detail is parsed from. Few objects per entry: the ring outlives the young generation,
 * so every retained object costs GC time on every call (R10).
 */
interface Held extends Omit<ExchangeSummary, 'at' | 'replayOf'> {
  /** The capture-wide record number (the id's counter): {@link ExchangeCapture.newer}'s cursor. */
  seq: number;
  sizeBytes: number;
  /** The summary's `at` kept as epoch ms (the summary object and its ISO time are made when read). */
  startedAt: number;
  replayOf: string | undefined;
  /** The request body as text, values included ('' for zero-knowledge); redacted when read unless `values`. */
  text: string;
  values: boolean;
  zk: boolean;
  /** The parsed response, or undefined: parsed from `body` (its text: no Buffer kept per entry) when read. */
  response: unknown;
  body: string | undefined;
  contentType: string | undefined;
  cutRequest: boolean;
  cutResponse: boolean;
  children: ExchangeChild[];
  headers: Record<string, string>;
}

const NO_CHILDREN: ExchangeChild[] = [];

const summaryOf = (h: Held): ExchangeSummary => ({
  id: h.id,
  at: new Date(h.startedAt).toISOString(),
  caller: h.caller,
  method: h.method,
  name: h.name,
  upstream: h.upstream,
  status: h.status,
  durationMs: h.durationMs,
  requestBytes: h.requestBytes,
  responseBytes: h.responseBytes,
  ...(h.replayOf !== undefined && { replayOf: h.replayOf }),
});

interface Scope {
  ring: BoundedRing<Held>;
  stats: ToolStats;
  stars: Set<string>;
  listeners: Set<(s: ExchangeSummary) => void>;
  watchers: Set<() => void>;
  /** Client answers to server→client requests, by `<session> <id>`, until their call is recorded. */
  answers: Map<string, unknown>;
}

const requestOfHeld = (h: Held): unknown => {
  const kept = (h.cutRequest ? undefined : requestOf(h.text)) ?? (h.values && h.text ? h.text : null);
  return h.values || kept === null ? kept : redactMessage(kept);
};

const responseOfHeld = (h: Held): unknown => {
  if (h.body === undefined) return h.response;
  const text = h.body;
  const id = h.cutRequest ? undefined : (requestOf(h.text)?.['id'] ?? undefined);
  return responseOf(text, h.contentType, id) ?? (text || null);
};

/**
 * The relay's capture of exchanges (issue 19 item 2, D2, D3), per tunnel: {@link tap} tees a forwarded exchange
 * without parsing it; after the response is sent, the bytes are parsed, classified, redacted and kept in a ring
 * bounded by count and bytes, counted in the per-tool stats and handed to Live subscribers.
 *
 * @example
 * ```ts
 * const capture = new ExchangeCapture({ maxExchanges: 500 });
 * capture.tap('laptop--alice', { req, res }, { caller: 'ci key', zeroKnowledge: false });
 * registry.forward(tunnel, { req, res });
 * capture.list('laptop--alice', { status: 'error' });
 * ```
 */
export class ExchangeCapture {
  readonly #scopes = new Map<string, Scope>();
  readonly #prefix = randomBytes(4).toString('hex');
  readonly #maxExchanges: number;
  readonly #maxBytes: number;
  readonly #cap: number;
  readonly #now: () => number;
  readonly #shared: SharedWriter<Held> | undefined;
  #seq = 0;

  /**
   * @param options - ring bounds, body cap, clock
   * @throws McpPipeError `MCPP_CAPTURE_INVALID_OPTIONS` when a bound is not a positive integer or the cap negative
   */
  constructor(options: ExchangeCaptureOptions = {}) {
    this.#maxExchanges = options.maxExchanges ?? DEFAULT_RING_MAX_EXCHANGES;
    this.#maxBytes = options.maxBytes ?? DEFAULT_RING_MAX_BYTES;
    this.#cap = options.bodyCapBytes ?? DEFAULT_BODY_CAP_BYTES;
    this.#now = options.now ?? Date.now;
    new BoundedRing(this.#maxExchanges, this.#maxBytes); // validates the bounds now
    if (!Number.isInteger(this.#cap) || this.#cap < 0)
      throw invalidOptionsError('bodyCapBytes', this.#cap, 'a non-negative integer');
    this.#shared = options.shared && new SharedWriter(options.shared, detailOf, options.sharedWrites);
  }

  #scope(tunnel: string): Scope {
    let s = this.#scopes.get(tunnel);
    if (s === undefined)
      this.#scopes.set(
        tunnel,
        (s = {
          ring: new BoundedRing(this.#maxExchanges, this.#maxBytes),
          stats: new ToolStats(),
          stars: new Set(),
          listeners: new Set(),
          watchers: new Set(),
          answers: new Map(),
        }),
      );
    return s;
  }

  /**
   * Tees one forwarded exchange of a tunnel; it is recorded once the response has closed (see `tapExchange`).
   *
   * @param tunnel - the tunnel id (`<subdomain>--<account>`)
   * @param exchange - `req`: the public request, not yet read; `res`: the public response, nothing written yet
   * @param context - caller, zero-knowledge, capture of values
   */
  tap(
    tunnel: string,
    exchange: { req: IncomingMessage; res: ServerResponse },
    context: ExchangeContext,
  ): void {
    tapExchange(exchange, this.#tapOptions(context), (raw) => this.#record(tunnel, raw));
  }

  /**
   * Opens the record of one exchange of a tunnel whose forwarder feeds the bodies itself (see `teeExchange`); it is
   * recorded once the response has closed.
   *
   * @param tunnel - the tunnel id (`<subdomain>--<account>`)
   * @param exchange - `req`: the public request; `res`: the public response, nothing written yet
   * @param context - caller, zero-knowledge, capture of values
   * @returns the request and response collectors to feed with each chunk as it passes
   */
  tee(
    tunnel: string,
    exchange: { req: IncomingMessage; res: ServerResponse },
    context: ExchangeContext,
  ): ExchangeTee {
    return teeExchange(exchange, this.#tapOptions(context), (raw) => this.#record(tunnel, raw));
  }

  #tapOptions(context: ExchangeContext): TapOptions {
    const options: TapOptions = {
      caller: context.caller,
      zeroKnowledge: context.zeroKnowledge,
      capBytes: this.#cap,
      now: this.#now,
    }; // built field by field: a spread of the caller's object per exchange costs a generic clone
    if (context.captureValues !== undefined) options.captureValues = context.captureValues;
    if (context.replayOf !== undefined) options.replayOf = context.replayOf;
    return options;
  }

  /**
   * Records one exchange (parsing happens here, off the forwarding path). A POST that only carries a client's answer
   * to a server→client request is not an exchange of its own: it is attached to its call as a child.
   *
   * @param tunnel - the tunnel id
   * @param raw - the tee's result
   * @returns the summary, or undefined when it was a child answer
   */
  record(tunnel: string, raw: RawExchange): ExchangeSummary | undefined {
    const held = this.#record(tunnel, raw);
    return held && summaryOf(held);
  }

  #record(tunnel: string, raw: RawExchange): Held | undefined {
    const scope = this.#scope(tunnel);
    const zk = raw.zeroKnowledge;
    const parsed = zk ? undefined : parseExchange(raw, { lazyResponse: true });
    const values = raw.captureValues === true;
    if (parsed && parsed.method === null && parsed.answers.length > 0) {
      for (const a of parsed.answers) {
        scope.answers.set(`${raw.sessionId} ${JSON.stringify(a['id'])}`, values ? a : redactMessage(a));
        if (scope.answers.size > MAX_PENDING_CHILD_RESPONSES)
          scope.answers.delete(scope.answers.keys().next().value!);
      }
      return undefined;
    }
    const children: ExchangeChild[] = parsed?.serverRequests.length ? [] : NO_CHILDREN;
    for (const m of parsed?.serverRequests ?? []) {
      const key = `${raw.sessionId} ${JSON.stringify(m['id'])}`;
      const response = scope.answers.get(key) ?? null;
      scope.answers.delete(key);
      children.push({ method: m['method'] as string, request: values ? m : redactMessage(m), response });
    }
    const requestText = zk ? '' : (parsed?.requestText ?? textOf(raw.request));
    const status =
      parsed?.status ?? (raw.httpStatus >= 200 && raw.httpStatus < 300 ? 'ok' : `http_${raw.httpStatus}`);
    const seq = ++this.#seq;
    const id = `ex_${this.#prefix}${seq.toString(36).padStart(7, '0')}`;
    const deferred = parsed?.responseDeferred === true;
    const held: Held = {
      id,
      seq,
      startedAt: raw.startedAt,
      caller: raw.caller,
      method: parsed?.method ?? null,
      name: parsed?.name ?? null,
      upstream: parsed?.upstream ?? null,
      status,
      durationMs: Math.round(raw.durationMs * 100) / 100,
      requestBytes: raw.request.bytes,
      responseBytes: raw.response.bytes,
      replayOf: raw.replayOf,
      text: requestText,
      values,
      zk,
      response: deferred ? undefined : (parsed?.response ?? (zk ? null : parsed?.responseText || null)),
      body: deferred ? parsed.responseText : undefined,
      contentType: raw.contentType,
      cutRequest: raw.request.truncated,
      cutResponse: raw.response.truncated,
      children,
      headers: raw.replayHeaders,
      sizeBytes:
        RECORD_OVERHEAD_BYTES +
        (zk ? 0 : 2 * Math.min(raw.request.bytes, this.#cap)) +
        Math.min(raw.response.bytes, this.#cap),
    };
    scope.ring.push(held);
    this.#shared?.add(tunnel, held);
    // a call to a name mcppipe does not know reached no upstream and is no tool: Live shows it, Tools does not
    if (held.method === 'tools/call' && held.name !== null && parsed?.unknownName !== true)
      scope.stats.record({
        name: held.name,
        upstream: held.upstream,
        at: raw.startedAt,
        durationMs: raw.durationMs,
        error: status !== 'ok',
      });
    for (const fn of scope.watchers) {
      try {
        fn();
      } catch {
        // a failing watcher never stops the others
      }
    }
    if (scope.listeners.size === 0) return held;
    const summary = summaryOf(held); // one object for every subscriber
    for (const fn of scope.listeners) {
      try {
        fn(summary);
      } catch {
        // a failing subscriber never stops the others
      }
    }
    return held;
  }

  /**
   * A tunnel's exchanges, newest first.
   *
   * @param tunnel - the tunnel id
   * @param filter - upstream, method, status, caller, limit
   * @returns the summaries
   */
  list(tunnel: string, filter: ExchangeFilter = {}): ExchangeSummary[] {
    const out: ExchangeSummary[] = [];
    const limit = filter.limit ?? 100;
    const scope = this.#scopes.get(tunnel);
    if (scope === undefined || limit <= 0) return out;
    for (const h of scope.ring.newestFirst()) {
      if (matches(h, filter)) out.push(summaryOf(h));
      if (out.length >= limit) break;
    }
    return out;
  }

  /**
   * One exchange with its bodies and children.
   *
   * @param tunnel - the tunnel id
   * @param id - the exchange id
   * @returns the detail, or undefined when unknown or evicted
   */
  get(tunnel: string, id: string): ExchangeDetail | undefined {
    const h = this.#scopes.get(tunnel)?.ring.get(id);
    return h && detailOf(h);
  }

  /** Whether exchanges are also written to a ring shared by the nodes (`shared` option). */
  get isShared(): boolean {
    return this.#shared !== undefined;
  }

  /** Writes the exchanges not yet in the shared ring (a no-op without one). Never rejects. */
  flushShared(): Promise<void> {
    return this.#shared?.flush() ?? Promise.resolve();
  }

  /**
   * A tunnel's exchanges from the ring shared by the nodes (whichever node holds the tunnel), newest first, after
   * this node's pending writes; without a shared ring, or while the store is away on the node holding the tunnel,
   * {@link list}.
   *
   * @param tunnel - the tunnel id
   * @param filter - upstream, method, status, caller, limit
   * @returns the summaries
   * @throws McpPipeError `MCPP_STORE_UNAVAILABLE` (or another store error) when the shared ring cannot be read
   */
  async listShared(tunnel: string, filter: ExchangeFilter = {}): Promise<ExchangeSummary[]> {
    if (this.#shared === undefined) return this.list(tunnel, filter);
    await this.#shared.flush();
    const limit = filter.limit ?? 100;
    if (limit <= 0) return [];
    let all: ExchangeDetail[];
    try {
      all = await this.#shared.ring.list(tunnel, isUnfiltered(filter) ? limit : undefined);
    } catch (err) {
      if (this.#scopes.has(tunnel)) return this.list(tunnel, filter); // the store is away: this node's own ring
      throw err;
    }
    const out: ExchangeSummary[] = [];
    for (const d of all) {
      if (!matches(d, filter)) continue;
      const { request: _q, response: _r, truncated: _t, children: _c, ...summary } = d;
      out.push(summary);
      if (out.length >= limit) break;
    }
    return out;
  }

  /**
   * One exchange from the ring shared by the nodes; without a shared ring, {@link get}.
   *
   * @param tunnel - the tunnel id
   * @param id - the exchange id
   * @returns the detail, or undefined when unknown or evicted
   * @throws McpPipeError a store error when the shared ring cannot be read
   */
  async getShared(tunnel: string, id: string): Promise<ExchangeDetail | undefined> {
    if (this.#shared === undefined) return this.get(tunnel, id);
    const local = this.get(tunnel, id);
    if (local !== undefined) return local;
    await this.#shared.flush();
    return this.#shared.ring.get(tunnel, id);
  }

  /**
   * What a replay of an exchange sends (the original request, values included).
   *
   * @param tunnel - the tunnel id
   * @param id - the exchange id
   * @returns the source, or undefined when unknown or evicted
   */
  replaySource(tunnel: string, id: string): ReplaySource | undefined {
    const h = this.#scopes.get(tunnel)?.ring.get(id);
    if (h === undefined) return undefined;
    return { body: h.cutRequest || h.zk ? undefined : h.text, headers: h.headers };
  }

  /**
   * Replays an exchange through `send` (the same tunnel as the original, as its owner) and records the answer as a
   * new exchange with `replayOf` set.
   *
   * @param tunnel - the tunnel id
   * @param id - the exchange to replay
   * @param options - `send`; `request`: the edited JSON-RPC request (default the original); the API `caller`;
   *   the tunnel's mode; `timeoutMs` to read the answer (default 60 000)
   * @returns the new exchange's summary; `undefined` when `id` is unknown; `'not_replayable'` when there is no body
   *   to send (the original was cut at the cap or the tunnel is zero-knowledge) and no `request` was given
   * @throws McpPipeError `MCPP_CAPTURE_INVALID_REQUEST` when `request` is not an object or a non-empty batch;
   *   whatever `send` rejects with (e.g. `MCPP_TUNNEL_OFFLINE`)
   */
  async replay(
    tunnel: string,
    id: string,
    options: {
      send: (body: string) => Promise<ReplayAnswer>;
      request?: unknown;
      caller: string | null;
      zeroKnowledge: boolean;
      captureValues?: boolean;
      timeoutMs?: number;
    },
  ): Promise<ExchangeSummary | 'not_replayable' | undefined> {
    const edited = options.request;
    if (edited !== undefined && (edited === null || typeof edited !== 'object' || isEmptyBatch(edited)))
      throw invalidRequestError(edited);
    const source = this.replaySource(tunnel, id);
    if (source === undefined) return undefined;
    const body = edited !== undefined ? JSON.stringify(this.#unredacted(tunnel, id, edited)) : source.body;
    if (body === undefined) return 'not_replayable';
    const raw = await runReplay({
      body,
      send: options.send,
      caller: options.caller,
      replayOf: id,
      zeroKnowledge: options.zeroKnowledge,
      ...(options.captureValues !== undefined && { captureValues: options.captureValues }),
      replayHeaders: source.headers,
      capBytes: this.#cap,
      timeoutMs: options.timeoutMs ?? 60_000,
      now: this.#now,
    });
    return this.record(tunnel, raw);
  }

  /** An edited copy of an exchange recorded with values off, its placeholders given their original values back. */
  #unredacted(tunnel: string, id: string, edited: unknown): unknown {
    const h = this.#scopes.get(tunnel)?.ring.get(id);
    if (h === undefined || h.values || h.cutRequest || h.zk) return edited;
    const original = requestOf(h.text);
    return Array.isArray(edited) || original === undefined ? edited : restoreRedacted(edited, original);
  }

  /** Exchanges kept per tunnel (the ring's count bound): more than this between two {@link newer} reads are lost. */
  get maxExchanges(): number {
    return this.#maxExchanges;
  }

  /**
   * Tells `fn` that a tunnel recorded an exchange, and nothing more: no summary is made (Live reads what is new
   * with {@link newer}, in batches, so an exchange costs a call of `fn` until then; R10).
   *
   * @param tunnel - the tunnel id
   * @param fn - called synchronously after each exchange of the tunnel was recorded
   * @returns the function that stops the calls
   */
  watch(tunnel: string, fn: () => void): () => void {
    const watchers = this.#scope(tunnel).watchers;
    watchers.add(fn);
    return () => watchers.delete(fn);
  }

  /**
   * The exchanges a tunnel recorded after a cursor, oldest first, and the cursor to pass next time. The ring is the
   * only buffer: of more than {@link maxExchanges} exchanges (or the ring's bytes) since the last read, only those
   * still held are returned.
   *
   * @param tunnel - the tunnel id
   * @param after - the cursor of the previous read; undefined: start now (no exchanges, only the cursor)
   * @returns `{ exchanges, cursor }` (the summaries, oldest first; the cursor for the next read)
   */
  newer(tunnel: string, after?: number): { exchanges: ExchangeSummary[]; cursor: number } {
    const cursor = this.#seq; // record numbers are capture-wide: every later exchange of any tunnel is above it
    const ring = this.#scopes.get(tunnel)?.ring;
    if (after === undefined || ring === undefined || after >= cursor) return { exchanges: [], cursor };
    const fresh: Held[] = [];
    for (const h of ring.newestFirst()) {
      if (h.seq <= after) break;
      fresh.push(h);
    }
    const exchanges = new Array<ExchangeSummary>(fresh.length);
    for (let i = 0; i < fresh.length; i++) exchanges[i] = summaryOf(fresh[fresh.length - 1 - i]!);
    return { exchanges, cursor };
  }

  /**
   * Live exchanges of a tunnel (the Live tab's SSE).
   *
   * @param tunnel - the tunnel id
   * @param fn - called with each new summary, synchronously after it was recorded
   * @returns the unsubscribe function
   */
  subscribe(tunnel: string, fn: (summary: ExchangeSummary) => void): () => void {
    const listeners = this.#scope(tunnel).listeners;
    listeners.add(fn);
    return () => listeners.delete(fn);
  }

  /**
   * Per-tool stats of a tunnel over a window ending now (pre-aggregated: O(minutes × bins) per tool).
   *
   * @param tunnel - the tunnel id
   * @param windowMs - 3 600 000 (1 h) or 86 400 000 (24 h)
   * @returns one row per tool with calls in the window
   */
  stats(tunnel: string, windowMs: number): ToolStatsRow[] {
    return this.#scopes.get(tunnel)?.stats.query(windowMs, this.#now()) ?? [];
  }

  /**
   * Stars (the Tools tab's pins) of a tunnel.
   *
   * @param tunnel - the tunnel id
   * @returns the starred exposed names
   */
  stars(tunnel: string): ReadonlySet<string> {
    return this.#scopes.get(tunnel)?.stars ?? new Set();
  }

  /**
   * Stars or unstars a tool.
   *
   * @param tunnel - the tunnel id
   * @param name - the exposed tool name
   * @param on - star (true) or unstar (false)
   */
  setStar(tunnel: string, name: string, on: boolean): void {
    const stars = this.#scope(tunnel).stars;
    if (on) stars.add(name);
    else stars.delete(name);
  }
}

const isEmptyBatch = (v: object): boolean => Array.isArray(v) && v.length === 0;

const isUnfiltered = (f: ExchangeFilter): boolean =>
  f.upstream === undefined && f.method === undefined && f.status === undefined && f.caller === undefined;

/** The detail of a held exchange: what the Inspector shows, and what the shared ring keeps. */
function detailOf(h: Held): ExchangeDetail {
  return {
    ...summaryOf(h),
    request: requestOfHeld(h),
    response: responseOfHeld(h),
    truncated: { request: h.cutRequest, response: h.cutResponse },
    children: h.children,
  };
}

function matches(
  h: Pick<ExchangeSummary, 'upstream' | 'method' | 'caller' | 'status'>,
  f: ExchangeFilter,
): boolean {
  if (f.upstream !== undefined && h.upstream !== f.upstream) return false;
  if (f.method !== undefined && h.method !== f.method) return false;
  if (f.caller !== undefined && h.caller !== f.caller) return false;
  if (f.status === 'ok' || f.status === 'isError') return h.status === f.status;
  if (f.status === 'error') return h.status !== 'ok' && h.status !== 'isError';
  return true;
}
