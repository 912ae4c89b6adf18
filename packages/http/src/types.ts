import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo, McpServerFactory, ServerNotifier } from '@modelcontextprotocol/server';

/** Minimal pino-compatible logger. */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Options of {@link createMcpHttpHost}. */
export interface McpHttpHostOptions {
  /**
   * Serve every request statelessly (seed 001 "Stateless transport"): no session ids, nothing kept after the
   * response closes; 2025-era clients lose cancellation, `list_changed` and server→client requests.
   * Default false: 2025-era clients get sessions from a bounded table.
   */
  stateless?: boolean;
  /** Maximum live 2025-era sessions; the least recently used is evicted beyond it. Default 1000. */
  maxSessions?: number;
  /** A 2025-era session with no request for this long is closed, in ms. Default 1 800 000 (30 min). */
  sessionIdleTimeoutMs?: number;
  /** Upper bound on a request body the host reads itself, in bytes. Default 4 MiB. */
  maxRequestBodySize?: number;
  /** SSE keep-alive comment interval in ms (0 disables). Default 15 000. */
  keepAliveMs?: number;
  /** Logger (default: silent). */
  logger?: Logger;
  /**
   * Called when a 2026-07-28 client opens a `subscriptions/listen` stream asking for resource updates
   * (`notifications.resourceSubscriptions`), with those URIs. The SDK filters `resource_updated` events per
   * stream but does not tell the server which URIs a stream wants, so a host that must subscribe upstream (an
   * aggregator) does it here. The returned function runs once, when the stream closes.
   */
  onResourceSubscriptions?: (uris: string[]) => Promise<ReleaseSubscriptions> | ReleaseSubscriptions;
}

/** Ends what {@link McpHttpHostOptions.onResourceSubscriptions} started. */
export type ReleaseSubscriptions = () => Promise<void> | void;

/** A Node request that may carry verified auth info from a preceding middleware. */
export type HostRequest = IncomingMessage & { auth?: AuthInfo };

/** The host: one handler for every HTTP method on the MCP endpoint path. */
export interface McpHttpHost {
  /**
   * Serves one HTTP request on the MCP endpoint (POST, GET, DELETE).
   *
   * @param req - the Node request (its body already parsed when `parsedBody` is given)
   * @param res - the Node response
   * @param parsedBody - the parsed JSON body, when a framework has read it
   */
  handle(req: HostRequest, res: ServerResponse, parsedBody?: unknown): Promise<void>;
  /** Publishes change events to 2026-07-28 `subscriptions/listen` streams. */
  readonly notify: ServerNotifier;
  /** Number of live 2025-era sessions. */
  sessionCount(): number;
  /** Closes every session and the modern leg. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export type { McpServerFactory };
