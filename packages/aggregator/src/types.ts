import type { UpstreamRegistry } from '@mcppipe/supervisor';
import type { Phase } from '@mcppipe/upstream-state';
import type { Server, ServerCapabilities } from '@modelcontextprotocol/server';
import type { PolicyGate } from './policyGate.js';

/** A pino-compatible logger: `logger.warn({ upstream }, 'message')`. */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** The four merged list methods, by the key their items live under. */
export type ListKind = 'tools' | 'prompts' | 'resources' | 'resourceTemplates';

/** What a `list_changed` event is about (templates change together with resources). */
export type ChangedKind = 'tools' | 'prompts' | 'resources';

/** Options of {@link createAggregator}. */
export interface AggregatorOptions {
  /** The upstreams: a `Supervisor` from `@mcppipe/supervisor`, or anything implementing its interface. */
  registry: UpstreamRegistry;
  /**
   * `aggregate` (default): namespaced tools and prompts, wrapped resource URIs (DESIGN.md A1–A5).
   * `single`: the registry holds exactly one upstream, forwarded verbatim (no prefixes, no wrapping; A7).
   */
  mode?: 'aggregate' | 'single';
  /** The `serverInfo` agents see. Default `{ name: 'mcppipe', version: <package version> }`. */
  serverInfo?: { name: string; version: string; title?: string };
  /** Logger for dropped items, rewritten names and upstream trouble. Default: silent. */
  logger?: Logger;
  /**
   * Longest exposed tool or prompt name, in characters; longer ones, and names with characters outside
   * `[A-Za-z0-9_-]`, are rewritten with a hash (DESIGN.md A15). Default 64.
   */
  maxNameLength?: number;
  /** Items per page of a merged list; shorter lists are answered in one page. Default 1000. */
  pageSize?: number;
  /** Most pages read from one upstream for one list; more stops the walk and flags the upstream. Default 100. */
  maxPagesPerUpstream?: number;
  /** Timeout of one upstream list page, in ms. Default 30 000. */
  listTimeoutMs?: number;
  /** Timeout of a routed call (`tools/call`, …) in ms, reset by progress. Default 300 000 (5 min). */
  callTimeoutMs?: number;
  /** How long a 2026-07-28 `input_required` flow waits for the agent's retry, in ms. Default 600 000. */
  inputRequiredTtlMs?: number;
  /**
   * Tool policies and rate limits (DESIGN.md P1–P3, `createPolicyGate`): lists are filtered per caller, a denied
   * name is answered like an unknown one, a `tools/call` over a limit is refused with -31429. Default: none.
   */
  policy?: PolicyGate;
}

/** Serving context of {@link Aggregator.createServer}; `McpRequestContext` from the SDK fits. */
export interface CreateServerContext {
  /** `modern` for a 2026-07-28 per-request instance; `legacy` (default) for a 2025-era session. */
  era?: 'legacy' | 'modern';
  /**
   * A 2025-era server that answers one request without a session (a stateless host, seed 001 "Stateless
   * transport"): nothing can reach the agent after the response, so `listChanged` and `resources.subscribe`
   * are not advertised. Ignored for `modern` instances (2026-07-28 agents get changes on listen streams).
   */
  sessionless?: boolean;
  /**
   * The host's own in-process session, not an agent's (e.g. a warm-up filling the list caches before the first agent):
   * its handshake is not an agent's fresh handshake, so failed upstreams are not retried for it (DESIGN.md A12).
   * Default `false`.
   */
  internal?: boolean;
}

/** Why an upstream's list walk stopped early. */
export type ListStopReason = 'repeating_cursor' | 'no_new_items' | 'page_cap';

/** One list of one upstream, as last fetched. */
export interface UpstreamListReport {
  /** Items served from this upstream. */
  count: number;
  /** Pages read. */
  pages: number;
  /** Epoch ms of the fetch. */
  fetchedAt: number;
  /** Set when the walk stopped before the upstream's last page (the upstream is flagged). */
  stopped?: ListStopReason;
  /** The upstream advertised the capability but answered -32601: served as an empty list. */
  methodNotFound?: true;
  /** The last fetch failed with this message (a previous list, if any, is still served). */
  error?: string;
  /**
   * Items of `count` the tool policy (P1) hides from a caller with no identity (`anonymous`, a local agent); set by
   * {@link Aggregator.diagnostics} only when a policy hides some. `count - hidden` is what such an agent lists.
   */
  hidden?: number;
}

/** An item of an upstream list that is not served, and why. */
export interface DroppedItem {
  kind: ListKind;
  /** The item's name (or URI), when it had one. */
  name?: string;
  /** Its position in the upstream's list. */
  index: number;
  reason: string;
}

/**
 * A tool or prompt exposed under another name than `<upstream>__<original>` (DESIGN.md A15): calls and
 * `prompts/get` by `exposed` reach `original` upstream.
 */
export interface RenamedItem {
  kind: 'tools' | 'prompts';
  original: string;
  exposed: string;
  /**
   * `shortened`: only over the length budget. `characters`: the original holds characters outside
   * `[A-Za-z0-9_-]`, which model APIs reject (it may be over the budget too).
   */
  reason: 'shortened' | 'characters';
}

/** The per-upstream part of {@link AggregatorDiagnostics}. */
export interface UpstreamDiagnostics {
  upstream: string;
  phase: Phase;
  /** The connection generation the lists were fetched from. */
  generation: number;
  lists: Partial<Record<ListKind, UpstreamListReport>>;
  dropped: DroppedItem[];
  renamed: RenamedItem[];
}

/** What the aggregator changed about the upstreams' lists and why (for logs and dashboards). */
export interface AggregatorDiagnostics {
  mode: 'aggregate' | 'single';
  upstreams: UpstreamDiagnostics[];
}

/** The events an aggregator emits, for hosts that notify 2026-07-28 `subscriptions/listen` streams. */
export interface AggregatorEvents {
  /** A merged list changed (after an upstream's `list_changed`, a reconnect or a layout change). */
  list_changed: [kind: ChangedKind];
  /** A subscribed resource changed; `uri` is the URI agents see (wrapped in aggregate mode). */
  resource_updated: [uri: string];
}

/**
 * A namespaced MCP server over a registry of upstreams. Build it with {@link createAggregator}, serve it
 * with one `Server` per 2025-era session or per 2026-07-28 request from {@link Aggregator.createServer}.
 */
export interface Aggregator {
  /**
   * Builds a low-level SDK `Server` wired to the shared state (caches, routing, subscriptions). Bound: pass
   * it as the factory of `createMcpHandler` or call it per 2025-era session.
   */
  readonly createServer: (ctx?: CreateServerContext) => Server;
  /** Subscribes to an event; returns `this`. Listener errors are caught and logged. */
  on<E extends keyof AggregatorEvents>(event: E, listener: (...args: AggregatorEvents[E]) => void): this;
  /** Removes a listener added with {@link Aggregator.on}. */
  off<E extends keyof AggregatorEvents>(event: E, listener: (...args: AggregatorEvents[E]) => void): this;
  /** The merged capabilities agents are offered right now (only what is served). */
  capabilities(): ServerCapabilities;
  /** Per-upstream report of dropped, renamed and shortened items, and of list walks that stopped early. */
  diagnostics(): AggregatorDiagnostics;
  /**
   * Holds an upstream `resources/subscribe` for a URI agents see, for hosts serving 2026-07-28
   * `subscriptions/listen` streams; the returned function releases it. Counted: the upstream is
   * unsubscribed when the last holder releases.
   */
  subscribeResource(uri: string): Promise<() => Promise<void>>;
  /** Closes every tracked session `Server`, drops caches and pending flows, detaches from the registry. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}
