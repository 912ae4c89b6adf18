/**
 * The exchange record and its API shapes (issue 19, DESIGN.md D2): the summary the Live tab lists and the detail the
 * Inspector shows.
 *
 * @module
 */

/**
 * How an exchange ended: `'ok'`; `'isError'` (a tool result with `isError: true`, which arrives as HTTP 200); a
 * JSON-RPC error code (a number, e.g. -32602); or `'http_<code>'` for a non-2xx HTTP answer without a JSON-RPC one.
 */
export type ExchangeStatus = 'ok' | 'isError' | number | `http_${number}`;

/** One exchange as the Live tab lists it (the contract's `Summary`). */
export interface ExchangeSummary {
  /** `ex_…`, unique per relay process. */
  id: string;
  /** ISO 8601 time the request arrived. */
  at: string;
  /** The API key's name or the OAuth client's name (or id); null when the tunnel has no auth. */
  caller: string | null;
  /** The JSON-RPC method; null for zero-knowledge tunnels and bodies that are not JSON-RPC requests. */
  method: string | null;
  /** The exposed tool or prompt name (`upstream__tool`), or null. */
  name: string | null;
  /** The upstream part of `name`, or null when the name is not namespaced. */
  upstream: string | null;
  status: ExchangeStatus;
  /** Milliseconds from the request's arrival to the end of the response. */
  durationMs: number;
  /** Request body bytes (all of them, not only the captured ones). */
  requestBytes: number;
  /** Response body bytes (all of them). */
  responseBytes: number;
  /** The exchange this one replayed. */
  replayOf?: string;
}

/** A server→client request (sampling, elicitation) made during a call, with the client's answer. */
export interface ExchangeChild {
  method: string;
  request: unknown;
  /** The client's JSON-RPC response, or null when it did not pass through the relay (yet). */
  response: unknown;
}

/** One exchange as the Inspector shows it (the contract's Summary + detail). */
export interface ExchangeDetail extends ExchangeSummary {
  /** The JSON-RPC request; argument values redacted unless capture of values is on; null when not kept. */
  request: unknown;
  /** The JSON-RPC response (an SSE response: its JSON-RPC response message); null when not kept. */
  response: unknown;
  /** Whether each body was longer than the cap (64 KiB by default). */
  truncated: { request: boolean; response: boolean };
  children: ExchangeChild[];
}

/** What a caller of the capture knows about one exchange when it starts. */
export interface ExchangeContext {
  /** The caller's name (see {@link ExchangeSummary.caller}). */
  caller: string | null;
  /** Zero-knowledge tunnel (T7): metadata only, no bodies, no method. */
  zeroKnowledge: boolean;
  /** Keep argument values (the owner turned capture of values on). Default false. */
  captureValues?: boolean;
  /** The exchange this one replays. */
  replayOf?: string;
}

/** The raw material of one exchange, handed to {@link ExchangeCapture.record} after the response was sent. */
export interface RawExchange extends ExchangeContext {
  /** Epoch ms the request arrived. */
  startedAt: number;
  durationMs: number;
  /** The HTTP status sent to the agent. */
  httpStatus: number;
  /** The response's `content-type`. */
  contentType: string | undefined;
  /** The 2025-era session (`mcp-session-id`), to match server→client requests with their answers. */
  sessionId: string | undefined;
  /** Request headers a replay needs (`mcp-session-id`, `mcp-protocol-version`); never credentials. */
  replayHeaders: Record<string, string>;
  request: CapturedBody;
  response: CapturedBody;
}

/** A body as the tee kept it: the first bytes (at most the cap), the total size, whether it was cut. */
export interface CapturedBody {
  bytes: number;
  truncated: boolean;
  /** The kept bytes; empty for zero-knowledge tunnels. */
  chunks: Buffer[];
}

/** One tool's row of the Tools tab (`GET /api/tunnels/:id/stats`). Durations in ms. */
export interface ToolStatsRow {
  upstream: string | null;
  name: string;
  calls: number;
  /** JSON-RPC errors, `isError` results and non-2xx answers. */
  errors: number;
  /** errors / calls, 0 when there were none. */
  errorRate: number;
  p50: number;
  p95: number;
  p99: number;
}
