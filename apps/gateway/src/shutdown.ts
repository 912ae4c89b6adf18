/**
 * The gateway's graceful shutdown (STYLE.md §9): the order in which a running gateway lets go of what it holds.
 *
 * @module
 */
import type { FastifyInstance } from 'fastify';
import { DEFAULT_SHUTDOWN_GRACE_MS } from './defaults.js';
import type { Logger } from './types.js';

/** Something closed at shutdown; its failure is ignored (the shutdown goes on). */
interface Closable {
  close(): Promise<unknown>;
}

/** What a running gateway holds, as {@link gatewayShutdown} closes it. */
export interface GatewayHoldings {
  /** The `mcp.json` watcher. */
  watcher: Closable;
  /** The tunnel relay (`--tunnel-zone`); undefined without one. */
  relay: Closable | undefined;
  /** The listening app. */
  app: FastifyInstance;
  /** The hub and the aggregate (their MCP sessions). */
  endpoints: readonly Closable[];
  /** The events of the servers and tunnels (E1–E4). */
  events: { close(): void };
  /** The supervisor of the upstream processes. */
  supervisor: { stop(): Promise<unknown> };
  /** The OAuth provider. */
  oauth: Closable;
  /** The state shared by every node (S1/S2); undefined on one node. */
  shared: Closable | undefined;
}

/**
 * Builds the gateway's `close()`: stop watching the config, close the relay (its tunnels), stop accepting and let
 * requests in flight finish for {@link DEFAULT_SHUTDOWN_GRACE_MS} (then drop the connections left), close the hub
 * and the aggregate, the events, stop the upstream processes, close the OAuth provider and the shared state, and
 * flush the log. A step's failure never stops the next one.
 *
 * @param holdings - what the gateway holds
 * @param logger - logs `shutting down` and `stopped`
 * @returns the shutdown; idempotent (every call returns the one shutdown's promise)
 */
export function gatewayShutdown(
  holdings: GatewayHoldings,
  logger: Logger & { flush(): void },
): () => Promise<void> {
  const { watcher, relay, app, endpoints, events, supervisor, oauth, shared } = holdings;
  let closing: Promise<void> | undefined;
  return () =>
    (closing ??= (async () => {
      logger.info({}, 'shutting down');
      await watcher.close().catch(() => {});
      await relay?.close().catch(() => {});
      const grace = setTimeout(() => app.server.closeAllConnections(), DEFAULT_SHUTDOWN_GRACE_MS);
      await app.close().catch(() => {});
      clearTimeout(grace);
      await Promise.allSettled(endpoints.map((e) => e.close()));
      events.close();
      await supervisor.stop().catch(() => {});
      await oauth.close().catch(() => {});
      await shared?.close().catch(() => {});
      logger.info({}, 'stopped');
      logger.flush();
    })());
}
