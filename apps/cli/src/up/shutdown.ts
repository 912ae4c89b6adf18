import type { Server } from 'node:http';
import type { Aggregator } from '@mcppipe/aggregator';
import type { McpHttpHost } from '@mcppipe/http';
import type { Supervisor } from '@mcppipe/supervisor';
import type { McpHttpServer } from '../httpServer.js';
import type { Logger } from 'pino';

/** What the graceful shutdown closes once the serving side is up. */
export interface Serving {
  /** The HTTP front door (absent with `--transport stdio`). */
  app: McpHttpServer | undefined;
  endpoints: Record<string, McpHttpHost>;
  /** The stdio front door (`--transport stdio`): closes the session and its transport. */
  closeStdio?: () => Promise<void>;
  aggregator: Aggregator;
  metricsServer: { server: Server } | undefined;
  closeHub: (() => Promise<void>) | undefined;
  /**
   * The tunnel to the relay, drained with the HTTP side (T2, T6): no new public request, in-flight ones get the
   * same 3 s, then it closes and the relay frees the subdomain at once.
   */
  tunnel?: { close(graceMs?: number): Promise<void> } | undefined;
}

/** Longest a stop may take before the process exits anyway (a stuck child or connection cannot keep us alive). */
const STOP_DEADLINE_MS = 15_000;
/** Longest in-flight calls get to finish once no new connections are accepted. */
const INFLIGHT_GRACE_MS = 3_000;

/**
 * SIGINT/SIGTERM handling of `mcppipe up` (and, with `--transport stdio`, the end of stdin). A signal before the serving side is up stops the upstreams (their own
 * process groups would outlive us); once {@link Shutdown.serving} was called, it is the graceful shutdown: no new
 * connections (the tunnel drains: no new public request), in-flight calls get up to 3 s, then the tunnel, sessions,
 * hub, aggregator and upstreams close. Either way the
 * process exits (0).
 */
export class Shutdown {
  #stopping = false;
  #serving: Serving | undefined;
  readonly #supervisor: Supervisor;
  readonly #logger: Logger;

  /**
   * @param supervisor - the upstreams to stop
   * @param logger - the CLI's logger
   */
  constructor(supervisor: Supervisor, logger: Logger) {
    this.#supervisor = supervisor;
    this.#logger = logger;
  }

  /** Whether a signal came and the stop is under way. */
  get stopping(): boolean {
    return this.#stopping;
  }

  /** Installs the SIGINT/SIGTERM handlers (once each). */
  install(): void {
    const onSignal = (signal: string) => this.stop(signal);
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }

  /**
   * Stops as a signal does (once): with `--transport stdio`, the end of stdin calls this (the client has gone).
   *
   * @param reason - logged: a signal name or `stdin closed`
   */
  stop(reason: string): void {
    if (this.#stopping) return;
    this.#stopping = true;
    setTimeout(() => process.exit(1), STOP_DEADLINE_MS).unref();
    void (this.#serving ? this.#graceful(reason, this.#serving) : this.#early());
  }

  /**
   * From now on a signal stops gracefully.
   *
   * @param serving - the listening server, its endpoints and what they use
   */
  serving(serving: Serving): void {
    this.#serving = serving;
  }

  async #early(): Promise<void> {
    await this.#supervisor.stop().catch(() => {});
    process.exit(0);
  }

  async #closeHttp(signal: string, app: McpHttpServer, endpoints: Serving['endpoints']): Promise<void> {
    this.#logger.info({ signal }, 'stopping: no new connections; in-flight calls get up to 3 s');
    const closing = app.close(); // stops accepting; resolves once every connection has ended
    for (let waited = 0; app.inflight() > 0 && waited < INFLIGHT_GRACE_MS; waited += 50)
      await new Promise((r) => setTimeout(r, 50));
    await Promise.allSettled(Object.values(endpoints).map((h) => h.close())); // ends sessions and their SSE streams
    app.server.closeAllConnections();
    await closing.catch(() => {});
  }

  async #graceful(signal: string, s: Serving): Promise<void> {
    const logger = this.#logger;
    try {
      // the tunnel drains with the local listener: a GOAWAY now (the relay answers new public requests 503
      // tunnel_offline), its in-flight calls (served by the listener's handler, so counted there) get the same 3 s
      const tunnelClosed = s.tunnel?.close(INFLIGHT_GRACE_MS).catch(() => {});
      if (s.app) await this.#closeHttp(signal, s.app, s.endpoints);
      else logger.info({ reason: signal }, 'stopping');
      await tunnelClosed; // once its streams ended (the sessions' listen streams did above), or after the 3 s
      await s.closeStdio?.().catch(() => {});
      s.metricsServer?.server.close();
      await s.closeHub?.().catch(() => {});
      await s.aggregator.close().catch(() => {});
      await this.#supervisor.stop();
      logger.info({}, 'stopped');
      await new Promise<void>((resolve) => logger.flush(() => resolve()));
    } finally {
      process.exit(0);
    }
  }
}
