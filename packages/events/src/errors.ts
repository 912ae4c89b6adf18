import { McpPipeError } from '@mcppipe/errors';

/** The error codes `@mcppipe/events` throws (documented in docs/errors.md). */
export type EventsErrorCode =
  | 'MCPP_EVENTS_INVALID_WEBHOOK'
  | 'MCPP_EVENTS_PRIVATE_TARGET'
  | 'MCPP_EVENTS_UNKNOWN_WEBHOOK'
  | 'MCPP_EVENTS_UNKNOWN_TOOL';

/** @returns `MCPP_EVENTS_INVALID_WEBHOOK` with `message` */
export function invalidWebhookError(message: string): McpPipeError<'MCPP_EVENTS_INVALID_WEBHOOK'> {
  return new McpPipeError('MCPP_EVENTS_INVALID_WEBHOOK', message);
}

/** @returns `MCPP_EVENTS_PRIVATE_TARGET` for `host` resolving to `address` */
export function privateTargetError(
  host: string,
  address: string,
): McpPipeError<'MCPP_EVENTS_PRIVATE_TARGET'> {
  const via = host === address ? '' : ` (resolves to ${address})`;
  return new McpPipeError(
    'MCPP_EVENTS_PRIVATE_TARGET',
    `webhook target ${host}${via} is a loopback, private or link-local address; use a public URL, or start the gateway with MCPPIPE_WEBHOOKS_ALLOW_PRIVATE=1`,
    { data: { host, address } },
  );
}

/** @returns `MCPP_EVENTS_UNKNOWN_WEBHOOK` for `id` */
export function unknownWebhookError(id: string): McpPipeError<'MCPP_EVENTS_UNKNOWN_WEBHOOK'> {
  return new McpPipeError('MCPP_EVENTS_UNKNOWN_WEBHOOK', `no webhook subscription ${JSON.stringify(id)}`, {
    data: { id },
  });
}

/** @returns `MCPP_EVENTS_UNKNOWN_TOOL` for `upstream`/`tool` */
export function unknownToolError(upstream: string, tool: string): McpPipeError<'MCPP_EVENTS_UNKNOWN_TOOL'> {
  return new McpPipeError(
    'MCPP_EVENTS_UNKNOWN_TOOL',
    `upstream ${JSON.stringify(upstream)} has no tool ${JSON.stringify(tool)}; list its tools first`,
    { data: { upstream, tool } },
  );
}
