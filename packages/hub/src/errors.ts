/**
 * The errors of `@mcppipe/hub`. Each code is listed, with its meaning, in `@mcppipe/errors`
 * (`packages/errors/src/codes.ts`) and `docs/errors.md`:
 *
 * - `MCPP_HUB_UNKNOWN_SERVER`: `server` names no visible server (unknown, or `"hub": false`).
 * - `MCPP_HUB_UNKNOWN_TOOL`: `tool` names no tool of that server.
 * - `MCPP_HUB_UNAVAILABLE`: the server is not `available`; the message names its phase.
 * - `MCPP_HUB_TIMEOUT`: `call_tool` saw neither a result nor progress within its timeout.
 * - `MCPP_HUB_INVALID_ARGUMENTS`: a meta-tool's arguments break its input schema.
 * - `MCPP_HUB_UPSTREAM_ERROR`: the server answered with a JSON-RPC error, or its connection failed mid-request.
 * - `MCPP_HUB_CLOSED`: the hub was closed.
 *
 * Meta-tool failures reach the agent as `isError: true` tool results (MCP: tool-execution errors are results
 * the model can read), built by {@link toErrorResult}; only an unknown meta-tool name is a JSON-RPC error.
 */
import { McpPipeError } from '@mcppipe/errors';
import type { Phase } from '@mcppipe/upstream-state';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { MAX_LISTED_NAMES } from './defaults.js';
import type { HubErrorInfo } from './types.js';

/** The codes this package produces. */
export type HubErrorCode =
  | 'MCPP_HUB_UNKNOWN_SERVER'
  | 'MCPP_HUB_UNKNOWN_TOOL'
  | 'MCPP_HUB_UNAVAILABLE'
  | 'MCPP_HUB_TIMEOUT'
  | 'MCPP_HUB_INVALID_ARGUMENTS'
  | 'MCPP_HUB_UPSTREAM_ERROR'
  | 'MCPP_HUB_CLOSED';

/** An error of this package; `data` becomes `structuredContent.error` (minus `code`/`message`). */
export type HubError = McpPipeError<HubErrorCode, Record<string, unknown>>;

const q = (s: string): string => JSON.stringify(s.length > 200 ? `${s.slice(0, 200)}…` : s);

const PHASE_TEXT: Record<Phase, string> = {
  connecting: 'is still starting',
  available: 'is available',
  recovering: 'is restarting after errors',
  failed: 'has stopped retrying after repeated failures',
};

function didYouMean(suggestions: readonly string[]): string {
  return suggestions.length ? ` Did you mean ${suggestions.map(q).join(', ')}?` : '';
}

/** `MCPP_HUB_UNKNOWN_SERVER`. Built only from visible names, so a hidden server's error equals an unknown one's. */
export function unknownServerError(
  server: string,
  suggestions: string[],
  visible: readonly string[],
): HubError {
  const list =
    suggestions.length > 0
      ? didYouMean(suggestions)
      : visible.length === 0
        ? ' No servers are visible.'
        : visible.length <= MAX_LISTED_NAMES
          ? ` Servers: ${visible.join(', ')}.`
          : ' Call list_servers to see the servers.';
  return new McpPipeError('MCPP_HUB_UNKNOWN_SERVER', `Unknown server ${q(server)}.${list}`, {
    data: { server, suggestions },
  });
}

/** `MCPP_HUB_UNKNOWN_TOOL`. */
export function unknownToolError(missing: {
  server: string;
  tool: string;
  suggestions: string[];
  toolCount: number;
}): HubError {
  const { server, tool, suggestions, toolCount } = missing;
  return new McpPipeError(
    'MCPP_HUB_UNKNOWN_TOOL',
    `Server ${q(server)} has no tool ${q(tool)}.${didYouMean(suggestions)} Call list_tools with {"server":${q(server)}} to see its ${toolCount} tools.`,
    { data: { server, tool, suggestions } },
  );
}

/** `MCPP_HUB_UNAVAILABLE`, naming the phase. */
export function unavailableError(server: string, phase: Phase, retryAfterMs?: number): HubError {
  const retry =
    retryAfterMs !== undefined && retryAfterMs > 0
      ? ` Retry in about ${Math.ceil(retryAfterMs / 1000)} s.`
      : ' Try again later.';
  return new McpPipeError(
    'MCPP_HUB_UNAVAILABLE',
    `Server ${q(server)} is not available: it ${PHASE_TEXT[phase]} (phase: ${phase}).${retry}`,
    { data: { server, phase, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) } },
  );
}

/** `MCPP_HUB_TIMEOUT`. */
export function timeoutError(server: string, tool: string, timeoutMs: number): HubError {
  return new McpPipeError(
    'MCPP_HUB_TIMEOUT',
    `Tool ${q(tool)} on server ${q(server)} sent neither a result nor progress for ${timeoutMs} ms; the call was cancelled.`,
    { data: { server, tool, timeoutMs } },
  );
}

/** `MCPP_HUB_INVALID_ARGUMENTS`. */
export function invalidArgumentsError(metaTool: string, problem: string): HubError {
  return new McpPipeError('MCPP_HUB_INVALID_ARGUMENTS', `Invalid arguments for ${metaTool}: ${problem}`, {
    data: { metaTool },
  });
}

/** `MCPP_HUB_UPSTREAM_ERROR` for a JSON-RPC error or a failed connection (`upstreamError.code` absent then). */
export function upstreamError(
  server: string,
  what: string,
  failure: { code?: number; message: string; data?: unknown; phase?: Phase },
): HubError {
  const { phase, ...upstream } = failure;
  const how =
    upstream.code !== undefined
      ? `answered with JSON-RPC error ${upstream.code}`
      : 'failed (connection problem)';
  const now =
    phase !== undefined && phase !== 'available' ? ` The server ${PHASE_TEXT[phase]} (phase: ${phase}).` : '';
  return new McpPipeError(
    'MCPP_HUB_UPSTREAM_ERROR',
    `Server ${q(server)} ${how} to ${what}: ${upstream.message}${now}`,
    {
      data: { server, upstreamError: upstream, ...(phase !== undefined ? { phase } : {}) },
    },
  );
}

/** `MCPP_HUB_CLOSED`. */
export function closedError(): HubError {
  return new McpPipeError('MCPP_HUB_CLOSED', 'The hub is closed.', { data: {} });
}

/**
 * The `isError: true` tool result for a hub error: the message as text (for the model) and
 * `structuredContent.error` = `{ code, message, ...data }` (for programs).
 *
 * @param err - a hub error
 * @returns the tool result
 */
export function toErrorResult(err: HubError): CallToolResult {
  const error: HubErrorInfo = { code: err.code, message: err.message, ...err.data };
  return { content: [{ type: 'text', text: err.message }], structuredContent: { error }, isError: true };
}
