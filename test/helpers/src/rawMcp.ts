/**
 * A 2025-era MCP client's first steps as raw HTTP POSTs, for tests that look at the Streamable HTTP layer itself
 * (status, `mcp-session-id`, what reaches the upstream) rather than through an SDK client: the `initialize`
 * request and a whole session opening (`initialize`, then `notifications/initialized`).
 *
 * @module
 */

/** The headers of a Streamable HTTP POST: a JSON body, a JSON or SSE answer. */
export const MCP_POST_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
} as const;

/** The headers of a request on a session that {@link openRawSession} opened. */
export type RawSessionHeaders = typeof MCP_POST_HEADERS & {
  'mcp-session-id': string;
  'mcp-protocol-version': string;
};

/** The protocol version the raw client speaks (the 2025 era's last). */
export const RAW_PROTOCOL_VERSION = '2025-11-25';

/** Options of {@link postInitialize} and {@link openRawSession}. */
export interface RawInitializeOptions {
  /** `clientInfo.name`. Default `e2e`. */
  clientName?: string;
  /**
   * The `protocolVersion` asked for (and, on a session, sent as `mcp-protocol-version`).
   * Default {@link RAW_PROTOCOL_VERSION}.
   */
  protocolVersion?: string;
  /** The client's `capabilities`. Default none (`{}`). */
  capabilities?: Record<string, unknown>;
}

/**
 * POSTs a 2025-era client's `initialize` (JSON-RPC id 1, `options.protocolVersion`, `options.capabilities`,
 * `clientInfo: { name, version: '1' }`) with {@link MCP_POST_HEADERS}.
 *
 * @param url - the MCP endpoint
 * @returns the response, its body unread (read or cancel it); rejects as `fetch` does when nothing answers
 */
export function postInitialize(url: string | URL, options: RawInitializeOptions = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: MCP_POST_HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: options.protocolVersion ?? RAW_PROTOCOL_VERSION,
        capabilities: options.capabilities ?? {},
        clientInfo: { name: options.clientName ?? 'e2e', version: '1' },
      },
    }),
  });
}

/**
 * Opens a 2025-era session: {@link postInitialize}, then `notifications/initialized` on the session it got (both
 * bodies read to the end).
 *
 * @param url - the MCP endpoint
 * @returns the headers of a request on that session: {@link MCP_POST_HEADERS}, `mcp-session-id` and
 *   `mcp-protocol-version`
 * @throws Error when the `initialize` answer carries no `mcp-session-id` (a stateless server)
 */
export async function openRawSession(
  url: string | URL,
  options: RawInitializeOptions = {},
): Promise<RawSessionHeaders> {
  const init = await postInitialize(url, options);
  await init.text();
  const id = init.headers.get('mcp-session-id');
  if (id === null)
    throw new Error(`initialize at ${String(url)} answered ${init.status} without mcp-session-id`);
  const version = options.protocolVersion ?? RAW_PROTOCOL_VERSION;
  const headers = { ...MCP_POST_HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': version };
  const body = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await (await fetch(url, { method: 'POST', headers, body })).text();
  return headers;
}
