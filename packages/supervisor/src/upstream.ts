import type { McpPipeErrorCode } from '@mcppipe/errors';
import { isMcpPipeError } from '@mcppipe/errors';
import type {
  Clock,
  LifecyclePolicy,
  Phase,
  Scheduler,
  StateChangedEvent,
  TimerHandle,
} from '@mcppipe/upstream-state';
import { Lifecycle } from '@mcppipe/upstream-state';
import type { VariableSource } from '@mcppipe/config';
import type { RequestOptions } from '@modelcontextprotocol/client';
import type { ConnectContext, Connection } from './connection.js';
import { SKIPPED_LINE_LOG_INTERVAL_MS } from './defaults.js';
import {
  badRequest,
  describeError,
  isFatal,
  isLocalRequestError,
  isUpstreamFault,
  isProtocolError,
  isSessionExpired,
  isConnectionGone,
  isTransportFailure,
  stoppedError,
  unavailable,
} from './errors.js';
import { openConnection } from './open.js';
import { passthroughSchema } from './passthrough.js';
import { redactError } from './redact.js';
import type {
  ForwardedRequest,
  Logger,
  UpstreamRequestOptions,
  UpstreamSnapshot,
  UpstreamSpec,
} from './types.js';

/** What a supervised upstream needs from its supervisor. */
export interface UpstreamHost {
  policy: LifecyclePolicy;
  clock: Clock & Scheduler;
  seed: number | undefined;
  logger: Logger;
  requestTimeoutMs: number;
  /** Builds the connect context of one attempt (everything but the per-attempt fields). */
  context(spec: UpstreamSpec, attempt: { signal: AbortSignal; spawnToken: string }): ConnectContext;
  onStateChanged(event: StateChangedEvent): void;
}

/** One upstream under supervision: its lifecycle, its connection, its call path and its liveness probe. */
export class SupervisedUpstream {
  readonly name: string;
  readonly spec: UpstreamSpec;
  readonly #host: UpstreamHost;
  readonly #lifecycle: Lifecycle;
  readonly #defaultOptions: RequestOptions;
  #conn: Connection | undefined;
  #generation = 0;
  #spawns = 0;
  #pending: { abort: AbortController; done: Promise<void> } | undefined;
  #closing = new Set<Promise<unknown>>();
  #probeTimer: TimerHandle | undefined;
  #settleWaiters: Array<() => void> = [];
  #renewing: Promise<void> | undefined;
  #renewAbort: AbortController | undefined;
  #lastError: string | undefined;
  #lastErrorCode: McpPipeErrorCode | undefined;
  #lastChangeAt: number;
  #lastStderr: string[] = [];
  #skipped = { count: 0, loggedAt: -Infinity };
  #stopped = false;
  /** The connection whose death was reported last (its fuller reason may follow). */
  #diedConn: Connection | undefined;
  /** The variables of the last attempt's context: its URL after `${VAR}` expansion is redacted from errors too. */
  #vars: VariableSource | undefined;

  constructor(spec: UpstreamSpec, host: UpstreamHost) {
    this.name = spec.name;
    this.spec = spec;
    this.#host = host;
    this.#lastChangeAt = host.clock.now();
    this.#defaultOptions = { timeout: host.requestTimeoutMs };
    this.#lifecycle = new Lifecycle({
      upstream: spec.name,
      policy: host.policy,
      clock: host.clock,
      scheduler: host.clock,
      seed: host.seed,
      onConnect: () => this.#connect(),
      onDisconnect: () => this.#disconnect(),
      onStateChanged: (event) => {
        this.#lastChangeAt = event.at;
        if (event.error !== undefined && event.error !== this.#lastError) {
          this.#lastError = event.error;
          this.#lastErrorCode = undefined; // a trip by failed calls
        }
        if (event.to !== 'available') this.#stopProbe();
        this.#host.onStateChanged(event);
      },
    });
  }

  get phase(): Phase {
    return this.#lifecycle.phase;
  }

  /** Starts the first attempt; resolves when it has connected or failed. */
  start(): Promise<void> {
    const settled = this.#nextSettle();
    this.#lifecycle.start();
    return settled;
  }

  /** The routed call path: phase check, raw request, trip-rule bookkeeping, one retry on an expired session. */
  async request(
    request: ForwardedRequest,
    options?: UpstreamRequestOptions,
  ): Promise<Record<string, unknown>> {
    const conn = this.#conn;
    if (conn === undefined || this.#lifecycle.phase !== 'available') throw this.#unavailable();
    const sdkOptions = options === undefined ? this.#defaultOptions : this.#sdkOptions(options);
    try {
      const result = await conn.client.request(request, passthroughSchema, sdkOptions);
      this.#lifecycle.callSucceeded();
      return result;
    } catch (err) {
      return this.#failed(conn, err, { request, options });
    }
  }

  /** Sends a notification to the upstream. */
  async notify(notification: ForwardedRequest): Promise<void> {
    const conn = this.#conn;
    if (conn === undefined || this.#lifecycle.phase !== 'available') throw this.#unavailable();
    await conn.client.notification(notification);
  }

  /** Close and reconnect; resolves when the new attempt has connected or failed. */
  restart(): Promise<void> {
    if (this.#stopped) return Promise.reject(stoppedError());
    const settled = this.#nextSettle();
    this.#lifecycle.restart();
    return settled;
  }

  /** `failed` → `connecting`; resolves when that attempt has settled. A no-op in other phases. */
  reinitialize(): Promise<void> {
    if (this.#stopped || this.#lifecycle.phase !== 'failed') return Promise.resolve();
    const settled = this.#nextSettle();
    this.#lifecycle.reinitialize();
    return settled;
  }

  /** Stops for good: cancels timers and attempts, closes the connection, ends the process tree. */
  async stop(): Promise<void> {
    if (!this.#stopped) {
      this.#stopped = true;
      this.#lifecycle.dispose();
      this.#disconnect();
      this.#settle();
    }
    while (this.#closing.size > 0) await Promise.allSettled([...this.#closing]);
  }

  snapshot(): UpstreamSnapshot {
    const conn = this.#conn;
    const live = conn !== undefined && this.#lifecycle.phase === 'available';
    const lastStderr = this.#lastStderr;
    return {
      name: this.name,
      spec: this.spec,
      phase: this.#lifecycle.phase,
      client: live ? conn.client : undefined,
      capabilities: conn?.capabilities,
      serverInfo: conn?.serverInfo,
      instructions: conn?.instructions,
      protocolVersion: conn?.protocolVersion,
      era: conn?.era,
      lastError: this.#lastError,
      lastErrorCode: this.#lastErrorCode,
      lastChangeAt: this.#lastChangeAt,
      pid: conn?.pid,
      generation: this.#generation,
      connectedVia: conn?.via,
      retryAfterMs: this.#lifecycle.retryAfterMs(),
      // built only when read: snapshots are taken on the request path
      get stderrTail() {
        return conn ? conn.stderrLines(20) : [...lastStderr];
      },
    };
  }

  #sdkOptions(options: UpstreamRequestOptions): RequestOptions {
    const o: RequestOptions = { timeout: options.timeoutMs ?? this.#host.requestTimeoutMs };
    if (options.signal) o.signal = options.signal;
    if (options.onprogress) o.onprogress = options.onprogress;
    if (options.resetTimeoutOnProgress !== undefined)
      o.resetTimeoutOnProgress = options.resetTimeoutOnProgress;
    if (options.maxTotalTimeoutMs !== undefined) o.maxTotalTimeout = options.maxTotalTimeoutMs;
    return o;
  }

  async #failed(
    conn: Connection,
    err: unknown,
    call: { request: ForwardedRequest; options: UpstreamRequestOptions | undefined; retried?: boolean },
  ): Promise<Record<string, unknown>> {
    if (isProtocolError(err)) {
      if (isUpstreamFault(err) && conn === this.#conn) this.#lifecycle.callFailed(this.#describe(err));
      else this.#lifecycle.callSucceeded(); // it answered: alive
      throw err;
    }
    // the agent's request could not even be serialized: nothing reached the upstream, nothing to count
    if (isLocalRequestError(err)) throw badRequest(this.name, err);
    if (call.options?.signal?.aborted) throw err;
    if (conn !== this.#conn) {
      // the connection died under this call (the exit already moved the machine): say so with the phase
      if (isTransportFailure(err) && !this.#stopped) throw this.#unavailable();
      throw err;
    }
    if (conn.via === 'stdio' && isMcpPipeError(err, 'MCPP_SUP_EXITED')) {
      // the process is gone but its exit event is not delivered yet: the exit, not this call, is the failure
      this.#died(conn, 'the process is not running', 'MCPP_SUP_EXITED');
      throw this.#unavailable();
    }
    if (!isTransportFailure(err)) throw err;
    if (!call.retried && conn.via === 'streamable-http' && conn.era === 'legacy' && isSessionExpired(err)) {
      try {
        await this.#renewSession(conn);
      } catch (renewError) {
        this.#lifecycle.callFailed(`session expired and re-initialize failed: ${this.#describe(renewError)}`);
        throw renewError;
      }
      const fresh = this.#conn;
      if (fresh === undefined || this.#lifecycle.phase !== 'available') throw this.#unavailable();
      try {
        const result = await fresh.client.request(
          call.request,
          passthroughSchema,
          call.options ? this.#sdkOptions(call.options) : this.#defaultOptions,
        );
        this.#lifecycle.callSucceeded();
        return result;
      } catch (retryError) {
        return this.#failed(fresh, retryError, { ...call, retried: true });
      }
    }
    if (conn.via !== 'stdio' && isConnectionGone(err)) {
      // nothing listens there any more: the connection is dead now, not after three calls or the next probe
      this.#died(conn, `connection lost: ${this.#describe(err, conn)}`, 'MCPP_SUP_EXITED');
      throw this.#unavailable();
    }
    this.#lifecycle.callFailed(this.#describe(err, conn));
    throw err;
  }

  /** An expired HTTP session: open a fresh connection (new `initialize`) and swap it in; concurrent callers share it. */
  #renewSession(stale: Connection): Promise<void> {
    this.#renewing ??= (async () => {
      const abort = new AbortController();
      this.#renewAbort = abort;
      const fresh = await openConnection(this.#context(abort.signal));
      if (this.#stopped || this.#conn !== stale) {
        this.#track(fresh.close());
        return;
      }
      this.#adopt(fresh);
      this.#track(stale.close());
      this.#host.logger.info({ upstream: this.name }, 'upstream session expired; re-initialized');
    })().finally(() => {
      this.#renewing = undefined;
      this.#renewAbort = undefined;
    });
    this.#track(this.#renewing);
    return this.#renewing;
  }

  #context(signal: AbortSignal): ConnectContext {
    this.#spawns += 1;
    const ctx = this.#host.context(this.spec, { signal, spawnToken: `${this.name}/${this.#spawns}` });
    ctx.onSkippedLine = (line) => this.#skippedLine(line);
    this.#vars = ctx.vars;
    return ctx;
  }

  /**
   * An error as it is recorded (`lastError`, state events, logs): the one place texts about this upstream pass
   * through `redactError`, so no URL userinfo, query or fragment reaches the table, `/health` or the events.
   */
  #redact(text: string): string {
    return redactError(text, this.spec, this.#vars);
  }

  /** `conn.describe(err)` (network failures in words) or `describeError(err)`, redacted. */
  #describe(err: unknown, conn?: Connection): string {
    return this.#redact(conn ? conn.describe(err) : describeError(err));
  }

  #adopt(conn: Connection): void {
    this.#conn = conn;
    this.#generation += 1;
    conn.onDeath = (reason) => this.#died(conn, reason, 'MCPP_SUP_EXITED');
    conn.onDeathDetail = (reason) => {
      if (this.#diedConn === conn && this.#lastErrorCode === 'MCPP_SUP_EXITED')
        this.#lastError = this.#redact(reason);
    };
  }

  #connect(): void {
    this.#abandonPending();
    const abort = new AbortController();
    const done = (async () => {
      let conn: Connection;
      try {
        conn = await openConnection(this.#context(abort.signal));
      } catch (err) {
        if (abort.signal.aborted || this.#stopped) return;
        this.#pending = undefined;
        this.#lastError = this.#describe(err);
        this.#lastErrorCode = isMcpPipeError(err) ? err.code : 'MCPP_SUP_CONNECT_FAILED';
        this.#host.logger.warn(
          { upstream: this.name, err: this.#lastError },
          'upstream connection attempt failed',
        );
        this.#lifecycle.connectFailed(this.#lastError, isFatal(err));
        this.#settle();
        return;
      }
      if (abort.signal.aborted || this.#stopped) {
        await conn.close();
        return;
      }
      this.#pending = undefined;
      this.#adopt(conn);
      this.#lifecycle.connected();
      this.#scheduleProbe(conn);
      this.#settle();
    })();
    this.#pending = { abort, done };
    this.#track(done);
  }

  #disconnect(): void {
    this.#abandonPending();
    this.#stopProbe();
    const conn = this.#conn;
    this.#conn = undefined;
    if (conn) {
      this.#lastStderr = conn.stderrLines(20);
      this.#track(conn.close());
    }
  }

  #abandonPending(): void {
    this.#pending?.abort.abort();
    this.#pending = undefined;
    this.#renewAbort?.abort();
  }

  #died(conn: Connection, cause: string, code: McpPipeErrorCode): void {
    if (conn !== this.#conn || this.#stopped) return;
    const reason = this.#redact(cause);
    this.#diedConn = conn;
    this.#host.logger.warn({ upstream: this.name, reason }, 'upstream died');
    this.#lastError = reason;
    this.#lastErrorCode = code;
    this.#lifecycle.exited(reason);
  }

  #scheduleProbe(conn: Connection): void {
    const { probeIntervalMs, probeTimeoutMs } = this.#host.policy;
    if (probeIntervalMs <= 0) return;
    this.#stopProbe();
    this.#probeTimer = this.#host.clock.setTimeout(() => {
      this.#probeTimer = undefined;
      if (conn !== this.#conn) return;
      const probe =
        conn.era === 'modern'
          ? conn.client.discover({ timeout: probeTimeoutMs })
          : conn.client.ping({ timeout: probeTimeoutMs });
      probe.then(
        () => {
          if (conn === this.#conn) this.#scheduleProbe(conn);
        },
        (err: unknown) => {
          if (conn !== this.#conn) return;
          if (isProtocolError(err)) {
            this.#scheduleProbe(conn); // answered with an error: alive
            return;
          }
          this.#died(conn, `liveness probe failed: ${this.#describe(err, conn)}`, 'MCPP_SUP_PROBE_FAILED');
        },
      );
    }, probeIntervalMs);
  }

  #stopProbe(): void {
    if (this.#probeTimer !== undefined) {
      this.#host.clock.clearTimeout(this.#probeTimer);
      this.#probeTimer = undefined;
    }
  }

  #skippedLine(line: string): void {
    const s = this.#skipped;
    s.count += 1;
    const now = this.#host.clock.now();
    if (now - s.loggedAt < SKIPPED_LINE_LOG_INTERVAL_MS) return;
    this.#host.logger.warn(
      { upstream: this.name, skipped: s.count, line: line.slice(0, 200) },
      'skipped non-JSON-RPC lines on the upstream stdout',
    );
    s.count = 0;
    s.loggedAt = now;
  }

  #unavailable(): Error {
    if (this.#stopped) return stoppedError();
    return unavailable(this.name, this.#lifecycle.phase, this.#lifecycle.retryAfterMs());
  }

  #nextSettle(): Promise<void> {
    return new Promise((resolve) => this.#settleWaiters.push(resolve));
  }

  #settle(): void {
    const waiters = this.#settleWaiters;
    this.#settleWaiters = [];
    for (const w of waiters) w();
  }

  #track(p: Promise<unknown>): void {
    const tracked = p.catch(() => {}).finally(() => this.#closing.delete(tracked));
    this.#closing.add(tracked);
  }
}
