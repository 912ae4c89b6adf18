import type { HttpUpstreamConfig, StdioUpstreamConfig, UpstreamConfig } from '@mcppipe/config';
import type { McpPipeErrorCode } from '@mcppipe/errors';
import type { Client } from '@modelcontextprotocol/client';
import type { Clock, LifecyclePolicy, Phase, Scheduler, StateChangedEvent } from '@mcppipe/upstream-state';
import type { spawn } from 'node:child_process';

/**
 * The contract between the supervisor and its consumers (aggregator, hub, gateway, CLI).
 * Consumers depend on {@link UpstreamRegistry}, a narrow interface the `Supervisor` class implements,
 * so they can be tested with fakes and embedded in other hosts.
 */

// The upstream type is `@mcppipe/config`'s (one declaration; config ← supervisor, STYLE.md §1). At spawn/connect
// time the supervisor expands `${VAR}` in `url`, `headers` and `args`/`env`/`cwd` values (config's `expandUpstream`);
// a stdio `env` is the child's own environment on top of the few it inherits (`HOME`, `LOGNAME`, `PATH`, `SHELL`,
// `TERM`, `USER`; the SDK's `getDefaultEnvironment` set), nothing else is passed (SECURITY-REFERENCE §5 E8).
export type { ProtocolPreference } from '@mcppipe/config';

/** One upstream's configuration: `@mcppipe/config`'s `UpstreamConfig`. */
export type UpstreamSpec = UpstreamConfig;
/** A stdio upstream: `@mcppipe/config`'s `StdioUpstreamConfig`. */
export type StdioUpstreamSpec = StdioUpstreamConfig;
/** An HTTP upstream: `@mcppipe/config`'s `HttpUpstreamConfig`. */
export type HttpUpstreamSpec = HttpUpstreamConfig;

/** A point-in-time view of one upstream (what `sup.get(name)` returns). */
export interface UpstreamSnapshot {
  name: string;
  spec: UpstreamSpec;
  phase: Phase;
  /** The live client while connected; undefined while connecting/recovering without a connection. */
  client: Client | undefined;
  /** Server capabilities from the last successful handshake (raw, unknown fields kept). */
  capabilities: Record<string, unknown> | undefined;
  /** `serverInfo` from the last successful handshake. */
  serverInfo: { name: string; version: string; [key: string]: unknown } | undefined;
  /** `instructions` from the last successful handshake. */
  instructions: string | undefined;
  /** The negotiated protocol version (e.g. `2025-11-25`, `2026-07-28`). */
  protocolVersion: string | undefined;
  /** The negotiated era. */
  era: 'legacy' | 'modern' | undefined;
  /** The last error message (with the last stderr lines for stdio upstreams). */
  lastError: string | undefined;
  /**
   * The code of the last error, when it had one: `MCPP_SUP_CONNECT_FAILED`, `MCPP_SUP_SPAWN_FAILED`,
   * `MCPP_SUP_START_TIMEOUT`, `MCPP_SUP_EXITED`, `MCPP_SUP_PROBE_FAILED`, `MCPP_CFG_UNSET_VARIABLE`, …; undefined
   * after a trip by failed calls.
   */
  lastErrorCode?: McpPipeErrorCode | undefined;
  /** Epoch ms of the last phase change. */
  lastChangeAt: number;
  /** The child's pid for stdio upstreams while running. */
  pid: number | undefined;
  /** Connection generation: increments on every successful (re)connect. Caches keyed by it go stale on reconnect. */
  generation: number;
  /** How the live connection was made: `stdio`, `streamable-http`, or `sse` (legacy fallback). */
  connectedVia: 'stdio' | 'streamable-http' | 'sse' | undefined;
  /** Milliseconds until the next retry while recovering (0 while an attempt runs); undefined otherwise. */
  retryAfterMs: number | undefined;
  /** The last stderr lines of a stdio upstream (bounded), oldest first. */
  stderrTail: string[];
}

/** Options of one forwarded request. */
export interface UpstreamRequestOptions {
  /** Aborting sends `notifications/cancelled` upstream. */
  signal?: AbortSignal;
  /** Progress from the upstream for this request (the SDK mints the upstream token). */
  onprogress?: (progress: {
    progress: number;
    total?: number;
    message?: string;
    [key: string]: unknown;
  }) => void;
  /** Request timeout in ms. Default 60 000 (the SDK default). */
  timeoutMs?: number;
  /** Whether progress notifications reset the timeout. Default false. */
  resetTimeoutOnProgress?: boolean;
  /** Upper bound for the total time in ms regardless of progress. */
  maxTotalTimeoutMs?: number;
}

/** A JSON-RPC request as forwarded: method and raw params. */
export interface ForwardedRequest {
  method: string;
  params?: Record<string, unknown>;
}

/** A notification an upstream sent (other than progress, which goes to `onprogress`). */
export interface UpstreamNotificationEvent {
  upstream: string;
  method: string;
  params?: Record<string, unknown>;
}

/**
 * Handles a server→client request from an upstream (sampling, elicitation, roots), e.g. by bridging it
 * to the agent whose call is in flight. Return the raw result; throw to answer with an error.
 */
export type UpstreamRequestHandler = (
  upstream: string,
  request: ForwardedRequest,
  extra: { signal: AbortSignal },
) => Promise<Record<string, unknown>>;

/** The events a supervisor emits. */
export interface SupervisorEvents {
  state_changed: [event: StateChangedEvent];
  notification: [event: UpstreamNotificationEvent];
  /** A supervised upstream was added, removed or replaced at runtime (hot reload). */
  layout_changed: [event: { added: string[]; removed: string[]; replaced: string[] }];
}

/**
 * The narrow interface consumers use. `request` checks the phase first: an upstream that is not
 * `available` rejects at once with `McpPipeError('MCPP_SUP_UNAVAILABLE', …, { data: { upstream, phase, retryAfterMs } })`.
 * Results are raw (`client.request(req, passthrough)`), so unknown fields survive. JSON-RPC error
 * responses reject with the SDK's `ProtocolError` unchanged (code, message, data) and do not count
 * towards the trip rule; transport failures and timeouts do.
 */
export interface UpstreamRegistry {
  /** All supervised upstreams, in name order. */
  list(): UpstreamSnapshot[];
  get(name: string): UpstreamSnapshot | undefined;
  request(
    name: string,
    request: ForwardedRequest,
    options?: UpstreamRequestOptions,
  ): Promise<Record<string, unknown>>;
  /** Sends a notification to the upstream (e.g. `notifications/roots/list_changed`). */
  notify(name: string, notification: ForwardedRequest): Promise<void>;
  /** Moves a `failed` upstream back to `connecting` (an agent's fresh handshake); no-op in other phases. */
  reinitialize(name: string): Promise<void>;
  /** Installs the handler for server→client requests from every upstream (one at a time). */
  setUpstreamRequestHandler(handler: UpstreamRequestHandler | undefined): void;
  on<E extends keyof SupervisorEvents>(event: E, listener: (...args: SupervisorEvents[E]) => void): unknown;
  off<E extends keyof SupervisorEvents>(event: E, listener: (...args: SupervisorEvents[E]) => void): unknown;
}

/** A pino-compatible logger: `logger.warn({ upstream }, 'message')`. */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** What a runtime layout change did (the `layout_changed` event and the result of `reconcile`). */
export interface LayoutChange {
  added: string[];
  removed: string[];
  replaced: string[];
}

/** Options of `new Supervisor(options)`. Validated at construction. */
export interface SupervisorOptions {
  /** The upstreams to supervise; names must be unique. */
  upstreams: readonly UpstreamSpec[];
  /**
   * This instance's id (`MCPPIPE_SUPERVISOR_ID` in its children's environment). Default: a random UUID. Given by a
   * caller that spawned children ahead of the supervisor and hands them over through {@link SupervisorOptions.spawn}.
   */
  id?: string;
  /** The lifecycle policy. Default: `aggregatorPolicy()` (reads `MCPPIPE_UPSTREAM_*`). */
  policy?: LifecyclePolicy;
  /** Logger. Default: silent. Never logs per call at `info`. */
  logger?: Logger;
  /** `clientInfo` sent to upstreams. Default `{ name: 'mcppipe', version: <package version> }`. */
  clientInfo?: { name: string; version: string; [key: string]: unknown };
  /**
   * Client capabilities declared to upstreams. Declare `sampling`, `elicitation` or `roots` only when an
   * {@link UpstreamRequestHandler} will answer them. Default `{}`.
   */
  clientCapabilities?: Record<string, unknown>;
  /**
   * Environment for `${VAR}` expansion; stdio children inherit only its allow-listed variables (`HOME`, `PATH`, …,
   * see `INHERITED_ENV_VARS` in `@mcppipe/supervisor/stdio`) plus their configured `env`. Default `process.env`.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /** Default per-request timeout in ms (overridable per call). Default 60 000. */
  requestTimeoutMs?: number;
  /** Grace period between closing stdin, SIGTERM and SIGKILL of a stdio process group, in ms. Default 2 000. */
  killGraceMs?: number;
  /** Bytes of stderr kept per stdio upstream. Default 16 384. */
  stderrTailBytes?: number;
  /** Reap processes left by a previous supervisor process that crashed, at `start()`. Default true. */
  reapOrphans?: boolean;
  /** Time source for the lifecycle. Default: the system clock. */
  clock?: Clock;
  /** Timers for retries and probes. Default: `setTimeout` (unref'd). */
  scheduler?: Scheduler;
  /** Jitter seed, for reproducible backoff. Default: random. */
  seed?: number;
  /** Spawns stdio children (tests). Default: `child_process.spawn`. */
  spawn?: typeof spawn;
  /** Fetch for HTTP upstreams (tests, proxies). Default: global `fetch`. */
  fetch?: (input: string | URL, init?: RequestInit) => Promise<Response>;
}
