import type { PolicyGate } from '@mcppipe/aggregator';
import type { McpPipeErrorCode } from '@mcppipe/errors';
import type { Phase } from '@mcppipe/upstream-state';
import type { UpstreamRegistry, UpstreamSnapshot } from '@mcppipe/supervisor';
import type { Server } from '@modelcontextprotocol/server';

/** A pino-compatible logger: `logger.warn({ upstream }, 'message')`. */
export interface HubLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Options of {@link createHub}. */
export interface HubOptions {
  /** The upstreams, usually the supervisor (`@mcppipe/supervisor`). The hub never closes it. */
  registry: UpstreamRegistry;
  /** Logger for cache refresh failures and similar background events. Default: silent. */
  logger?: HubLogger;
  /**
   * `call_tool` timeout in ms: a call with neither a result nor a progress notification for this long is
   * cancelled upstream and answered with `MCPP_HUB_TIMEOUT`. Every progress notification restarts it.
   * Default 300 000 (5 min).
   */
  callTimeoutMs?: number;
  /** Timeout in ms of each upstream `tools/list` page request that fills the tool cache. Default 30 000. */
  listTimeoutMs?: number;
  /**
   * Which upstreams the hub shows. Invisible ones are absent from `list_servers` and refused by the other
   * meta-tools with the unknown-server error. Default: `snapshot.spec.hub !== false`.
   */
  isVisible?: (snapshot: UpstreamSnapshot) => boolean;
  /** `serverInfo` of the hub's MCP server. Default `{ name: 'mcppipe-hub', version: <package version> }`. */
  serverInfo?: { name: string; version: string; title?: string; description?: string };
  /** `instructions` sent to agents. Default: one sentence naming the four meta-tools in order. */
  instructions?: string;
  /**
   * Tool policies and rate limits (DESIGN.md P3), the gate the host's `/mcp` uses, so `/hub` and `/mcp` share
   * rules and buckets: rules name tools `<server>__<tool>`. `list_tools`, `get_tool` and `list_servers`' counts
   * show only what the caller may see; `call_tool` of a denied tool answers `MCPP_HUB_UNKNOWN_TOOL`, a call over a
   * limit `MCPP_POLICY_RATE_LIMITED` with `retryAfterMs`. Default: none.
   */
  policy?: PolicyGate;
}

/**
 * Context for {@link Hub.createServer}; the SDK's `McpRequestContext` (what `createMcpHandler` and
 * `serveStdio` pass a factory) is assignable to it.
 */
export interface HubServerContext {
  /** The protocol era the instance will serve. The hub serves both the same way. */
  era?: 'legacy' | 'modern';
}

/** The hub: a factory of MCP servers exposing the four meta-tools over one registry. */
export interface Hub {
  /**
   * Builds a new low-level MCP `Server` exposing the four meta-tools. Cheap (no upstream I/O), so it serves as
   * the per-request factory of `createMcpHandler(hub.createServer, { legacy: 'reject' })` and as the
   * per-session factory of a 2025-era Streamable HTTP transport. All servers share the hub's tool cache.
   *
   * @throws McpPipeError `MCPP_HUB_CLOSED` after {@link Hub.close}
   */
  createServer(ctx?: HubServerContext): Server;
  /** Detaches from the registry, cancels calls in flight (they answer `MCPP_HUB_CLOSED`) and drops the cache. Idempotent. */
  close(): Promise<void>;
  /** Same as {@link Hub.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** One entry of `list_servers`. */
export interface ServerSummary {
  /** The upstream name; pass it as `server` to the other meta-tools. */
  name: string;
  /** Lifecycle phase: `connecting`, `available`, `recovering` or `failed`. */
  phase: Phase;
  /** `serverInfo.title`, when the server gave one. */
  title?: string;
  /** One line: `serverInfo.description`, else the first line of the server's `instructions`; at most 200 characters. */
  description?: string;
  /** Number of tools, or `null` when unknown (the server has not answered `tools/list`). */
  toolCount: number | null;
}

/** `structuredContent` of `list_servers`. */
export interface ListServersResult {
  servers: ServerSummary[];
}

/** One entry of `list_tools`. */
export interface ToolSummary {
  name: string;
  /** The first line of the tool's description, at most 200 characters; absent when it has none. */
  description?: string;
}

/** `structuredContent` of `list_tools`. */
export interface ListToolsResult {
  server: string;
  /** The server's phase; tools of a server that is not `available` come from the cache of its last connection. */
  phase: Phase;
  tools: ToolSummary[];
}

/** `structuredContent` of `get_tool`. */
export interface GetToolResult {
  server: string;
  /** The tool definition exactly as the server listed it (unknown fields included). */
  tool: Record<string, unknown> & { name: string };
}

/** `structuredContent.error` of a meta-tool's `isError` result. */
export interface HubErrorInfo {
  code: McpPipeErrorCode;
  message: string;
  /** Further details: `server`, `tool`, `phase`, `suggestions`, `upstreamError`, … depending on `code`. */
  [key: string]: unknown;
}
