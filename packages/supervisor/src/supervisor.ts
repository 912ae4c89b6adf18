import type { Clock, LifecyclePolicy, Scheduler, StateChangedEvent } from '@mcppipe/upstream-state';
import { aggregatorPolicy, systemClock, validatePolicy } from '@mcppipe/upstream-state';
import type { ConnectContext } from './connection.js';
import { loadStdio } from './connection.js';
import {
  DEFAULT_CLIENT_INFO,
  DEFAULT_KILL_GRACE_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_START_TIMEOUT_MS,
  DEFAULT_STDERR_TAIL_BYTES,
} from './defaults.js';
import { Emitter, silentLogger } from './emitter.js';
import { describeError, stoppedError, unknownUpstream } from './errors.js';
import { redactSpec } from './redact.js';
import { canonical, checkSpec, duplicate } from './specs.js';
import type {
  ForwardedRequest,
  LayoutChange,
  Logger,
  SupervisorEvents,
  SupervisorOptions,
  UpstreamRegistry,
  UpstreamRequestHandler,
  UpstreamRequestOptions,
  UpstreamSnapshot,
  UpstreamSpec,
} from './types.js';
import type { UpstreamHost } from './upstream.js';
import { SupervisedUpstream } from './upstream.js';

/**
 * Keeps one long-lived MCP client per upstream alive (DESIGN.md G3, A12–A14, G8): spawns stdio servers in their own
 * process group, connects HTTP servers (Streamable HTTP, legacy SSE fallback), restarts them with backoff, probes
 * liveness, and routes calls with a phase check first. One failing upstream never affects the others.
 *
 * @example Embedding
 * ```ts
 * await using sup = new Supervisor({ upstreams: [{ name: 'memory', transport: 'stdio', command: 'npx -y @modelcontextprotocol/server-memory' }] });
 * sup.on('state_changed', (e) => console.log(`${e.upstream}: ${e.from} → ${e.to}`));
 * await sup.start();
 * const result = await sup.request('memory', { method: 'tools/list' });
 * ```
 */
export class Supervisor implements UpstreamRegistry, AsyncDisposable {
  /** This instance's id, written into its children's environment (`MCPPIPE_SUPERVISOR_ID`). */
  readonly id: string;
  readonly #options: SupervisorOptions;
  readonly #policy: LifecyclePolicy;
  readonly #logger: Logger;
  readonly #clock: Clock & Scheduler;
  readonly #emitter: Emitter;
  readonly #upstreams = new Map<string, SupervisedUpstream>();
  readonly #host: UpstreamHost;
  #requestHandler: UpstreamRequestHandler | undefined;
  #starting: Promise<void> | undefined;
  #reaping: Promise<void> | undefined;
  #stopping: Promise<void> | undefined;

  /**
   * @param options - see {@link SupervisorOptions}; validated here
   * @throws TypeError for a malformed option; McpPipeError `MCPP_NS_DUPLICATE_NAME` for two upstreams with one name;
   *   `MCPP_STATE_INVALID_POLICY` for an invalid policy or `MCPPIPE_UPSTREAM_*` variable
   */
  constructor(options: SupervisorOptions) {
    if (!options || !Array.isArray(options.upstreams)) throw new TypeError('upstreams: must be an array');
    for (const [key, value] of [
      ['requestTimeoutMs', options.requestTimeoutMs],
      ['stderrTailBytes', options.stderrTailBytes],
    ] as const) {
      if (value !== undefined && !(Number.isFinite(value) && value > 0))
        throw new TypeError(`${key}: must be a positive number`);
    }
    if (
      options.killGraceMs !== undefined &&
      !(Number.isFinite(options.killGraceMs) && options.killGraceMs >= 0)
    ) {
      throw new TypeError('killGraceMs: must be a number ≥ 0');
    }
    this.id = options.id ?? globalThis.crypto.randomUUID();
    this.#options = options;
    this.#policy = validatePolicy(options.policy ?? aggregatorPolicy());
    this.#logger = options.logger ?? silentLogger;
    const clock = options.clock ?? systemClock;
    const scheduler =
      options.scheduler ??
      (typeof (clock as Partial<Scheduler>).setTimeout === 'function'
        ? (clock as Clock & Scheduler)
        : systemClock);
    this.#clock = {
      now: () => clock.now(),
      setTimeout: (cb, ms) => scheduler.setTimeout(cb, ms),
      clearTimeout: (h) => scheduler.clearTimeout(h),
    };
    this.#emitter = new Emitter(this.#logger);
    this.#host = {
      policy: this.#policy,
      clock: this.#clock,
      seed: options.seed,
      logger: this.#logger,
      requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      context: (spec, attempt) => this.#context(spec, attempt),
      onStateChanged: (event) => this.#stateChanged(event),
    };
    for (const spec of options.upstreams) {
      checkSpec(spec);
      if (this.#upstreams.has(spec.name)) throw duplicate(spec.name);
      this.#upstreams.set(spec.name, new SupervisedUpstream(spec, this.#host));
    }
  }

  /** The lifecycle policy in force. */
  get policy(): LifecyclePolicy {
    return this.#policy;
  }

  /**
   * Reaps orphans of a crashed previous run (stdio), then starts every upstream. Resolves when each has connected or
   * failed its first attempt; never rejects because an upstream failed (late upstreams join via `state_changed`).
   *
   * @throws McpPipeError `MCPP_SUP_STOPPED` after {@link Supervisor.stop}
   */
  start(): Promise<void> {
    if (this.#stopping) return Promise.reject(stoppedError());
    this.#starting ??= (async () => {
      await this.#reapOnce();
      await Promise.all([...this.#upstreams.values()].map((u) => u.start()));
    })();
    return this.#starting;
  }

  /** @returns a snapshot of every upstream, in name order */
  list(): UpstreamSnapshot[] {
    return [...this.#upstreams.values()].sort((a, b) => (a.name < b.name ? -1 : 1)).map((u) => u.snapshot());
  }

  /** @returns a snapshot of one upstream, or undefined for an unknown name */
  get(name: string): UpstreamSnapshot | undefined {
    return this.#upstreams.get(name)?.snapshot();
  }

  /**
   * Sends a request to one upstream and returns its result raw (unknown fields kept).
   *
   * @throws McpPipeError `MCPP_SUP_UNAVAILABLE` at once when the upstream is not `available` (`data: { upstream,
   *   phase, retryAfterMs }`), `MCPP_SUP_UNKNOWN_UPSTREAM`, `MCPP_SUP_STOPPED`; the SDK's `ProtocolError`
   *   unchanged for a JSON-RPC error response; the SDK's `SdkError` for timeouts and transport failures
   */
  request(
    name: string,
    request: ForwardedRequest,
    options?: UpstreamRequestOptions,
  ): Promise<Record<string, unknown>> {
    const upstream = this.#upstreams.get(name);
    if (upstream === undefined)
      return Promise.reject(this.#stopping ? stoppedError() : unknownUpstream(name));
    return upstream.request(request, options);
  }

  /**
   * Sends a notification to one upstream (e.g. `notifications/roots/list_changed`).
   *
   * @throws McpPipeError `MCPP_SUP_UNAVAILABLE`, `MCPP_SUP_UNKNOWN_UPSTREAM`, `MCPP_SUP_STOPPED`
   */
  notify(name: string, notification: ForwardedRequest): Promise<void> {
    const upstream = this.#upstreams.get(name);
    if (upstream === undefined)
      return Promise.reject(this.#stopping ? stoppedError() : unknownUpstream(name));
    return upstream.notify(notification);
  }

  /**
   * An agent's fresh handshake: moves a `failed` upstream to `connecting` and resolves when that attempt has
   * connected or failed. A no-op in other phases.
   *
   * @throws McpPipeError `MCPP_SUP_UNKNOWN_UPSTREAM`
   */
  async reinitialize(name: string): Promise<void> {
    return this.#require(name).reinitialize();
  }

  /**
   * Closes and reconnects one upstream (its process tree is ended first); resolves when the new attempt settled.
   *
   * @throws McpPipeError `MCPP_SUP_UNKNOWN_UPSTREAM`, `MCPP_SUP_STOPPED`
   */
  async restart(name: string): Promise<void> {
    return this.#require(name).restart();
  }

  /**
   * Supervises one more upstream (hot reload); starts it at once if the supervisor is started, and resolves when its
   * first attempt settled. Emits `layout_changed`.
   *
   * @throws McpPipeError `MCPP_NS_DUPLICATE_NAME`, `MCPP_SUP_STOPPED`; TypeError for a malformed spec
   */
  async add(spec: UpstreamSpec): Promise<void> {
    if (this.#stopping) throw stoppedError();
    checkSpec(spec);
    if (this.#upstreams.has(spec.name)) throw duplicate(spec.name);
    const upstream = new SupervisedUpstream(spec, this.#host);
    this.#upstreams.set(spec.name, upstream);
    this.#emitter.emit('layout_changed', { added: [spec.name], removed: [], replaced: [] });
    if (this.#starting) {
      await this.#reapOnce();
      await upstream.start();
    }
  }

  /**
   * Stops and forgets one upstream (its process tree is ended). Emits `layout_changed`.
   *
   * @throws McpPipeError `MCPP_SUP_UNKNOWN_UPSTREAM`
   */
  async remove(name: string): Promise<void> {
    const upstream = this.#require(name);
    this.#upstreams.delete(name);
    this.#emitter.emit('layout_changed', { added: [], removed: [name], replaced: [] });
    await upstream.stop();
  }

  /**
   * Replaces one upstream's spec (same name): the old one is stopped, the new one started; others are untouched.
   * Emits `layout_changed`.
   *
   * @throws McpPipeError `MCPP_SUP_UNKNOWN_UPSTREAM`, `MCPP_SUP_STOPPED`
   */
  async replace(spec: UpstreamSpec): Promise<void> {
    if (this.#stopping) throw stoppedError();
    checkSpec(spec);
    const old = this.#require(spec.name);
    const upstream = new SupervisedUpstream(spec, this.#host);
    this.#upstreams.set(spec.name, upstream);
    this.#emitter.emit('layout_changed', { added: [], removed: [], replaced: [spec.name] });
    await old.stop();
    if (this.#starting) await upstream.start();
  }

  /**
   * Applies a whole new layout (config hot reload, G10): added upstreams start, removed ones stop, changed ones are
   * replaced, untouched ones keep their connections. Emits one `layout_changed` when anything changed.
   *
   * @param specs - the complete new layout
   * @returns what changed
   * @throws McpPipeError `MCPP_NS_DUPLICATE_NAME`, `MCPP_SUP_STOPPED`; TypeError for a malformed spec
   */
  async reconcile(specs: readonly UpstreamSpec[]): Promise<LayoutChange> {
    if (this.#stopping) throw stoppedError();
    const next = new Map<string, UpstreamSpec>();
    for (const spec of specs) {
      checkSpec(spec);
      if (next.has(spec.name)) throw duplicate(spec.name);
      next.set(spec.name, spec);
    }
    const change: LayoutChange = { added: [], removed: [], replaced: [] };
    const stopping: Promise<void>[] = [];
    const starting: SupervisedUpstream[] = [];
    for (const [name, upstream] of this.#upstreams) {
      if (!next.has(name)) {
        change.removed.push(name);
        this.#upstreams.delete(name);
        stopping.push(upstream.stop());
      }
    }
    for (const [name, spec] of next) {
      const current = this.#upstreams.get(name);
      if (current && canonical(current.spec) === canonical(spec)) continue;
      (current ? change.replaced : change.added).push(name);
      if (current) stopping.push(current.stop());
      const upstream = new SupervisedUpstream(spec, this.#host);
      this.#upstreams.set(name, upstream);
      starting.push(upstream);
    }
    if (change.added.length + change.removed.length + change.replaced.length > 0) {
      this.#emitter.emit('layout_changed', change);
    }
    await Promise.all(stopping);
    if (this.#starting && starting.length > 0) {
      await this.#reapOnce();
      await Promise.all(starting.map((u) => u.start()));
    }
    return change;
  }

  /**
   * Installs the handler for server→client requests (sampling, elicitation, roots) from every upstream; `undefined`
   * removes it (requests are then answered "method not found"). Declare the matching `clientCapabilities`.
   */
  setUpstreamRequestHandler(handler: UpstreamRequestHandler | undefined): void {
    this.#requestHandler = handler;
  }

  /** Subscribes to `state_changed`, `notification` or `layout_changed`. @returns this */
  on<E extends keyof SupervisorEvents>(event: E, listener: (...args: SupervisorEvents[E]) => void): this {
    this.#emitter.on(event, listener);
    return this;
  }

  /** Unsubscribes. @returns this */
  off<E extends keyof SupervisorEvents>(event: E, listener: (...args: SupervisorEvents[E]) => void): this {
    this.#emitter.off(event, listener);
    return this;
  }

  /** Stops every upstream and ends every process tree; later calls reject with `MCPP_SUP_STOPPED`. Idempotent. */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      const all = [...this.#upstreams.values()];
      this.#upstreams.clear();
      await Promise.all(all.map((u) => u.stop()));
    })();
    return this.#stopping;
  }

  /** Same as {@link Supervisor.stop}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  #require(name: string): SupervisedUpstream {
    const upstream = this.#upstreams.get(name);
    if (upstream === undefined) throw this.#stopping ? stoppedError() : unknownUpstream(name);
    return upstream;
  }

  #reapOnce(): Promise<void> {
    if (this.#options.reapOrphans === false) return Promise.resolve();
    if (![...this.#upstreams.values()].some((u) => u.spec.transport === 'stdio')) return Promise.resolve();
    this.#reaping ??= (async () => {
      try {
        const stdio = await loadStdio();
        const reaped = await stdio.reapOrphans(this.#options.killGraceMs ?? 1_000);
        if (reaped.length > 0) {
          this.#logger.warn({ pids: reaped }, 'reaped processes left by a previous supervisor that is gone');
        }
      } catch (err) {
        this.#logger.warn({ err: describeError(err) }, 'orphan reaping failed');
      }
    })();
    return this.#reaping;
  }

  #context(spec: UpstreamSpec, attempt: { signal: AbortSignal; spawnToken: string }): ConnectContext {
    const name = spec.name;
    return {
      upstream: name,
      spec,
      clientInfo: this.#options.clientInfo ?? { ...DEFAULT_CLIENT_INFO },
      clientCapabilities: this.#options.clientCapabilities ?? {},
      requestHandler: () => this.#requestHandler,
      onNotification: (method, params) =>
        this.#emitter.emit(
          'notification',
          params === undefined ? { upstream: name, method } : { upstream: name, method, params },
        ),
      onSkippedLine: () => {},
      logger: this.#logger,
      vars: this.#options.env ?? process.env,
      startTimeoutMs: spec.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
      killGraceMs: this.#options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
      stderrTailBytes: this.#options.stderrTailBytes ?? DEFAULT_STDERR_TAIL_BYTES,
      supervisorId: this.id,
      spawnToken: attempt.spawnToken,
      spawn: this.#options.spawn,
      fetch: this.#options.fetch,
      signal: attempt.signal,
    };
  }

  #stateChanged(event: StateChangedEvent): void {
    const fields = { ...event, spec: redactSpec(this.#upstreams.get(event.upstream)?.spec) };
    if (event.to === 'available') this.#logger.info(fields, 'upstream available');
    else if (event.to === 'connecting') this.#logger.info(fields, 'upstream connecting');
    else this.#logger.warn(fields, `upstream ${event.to}`);
    this.#emitter.emit('state_changed', event);
  }
}
