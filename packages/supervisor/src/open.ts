import type { ConnectContext, Connection } from './connection.js';
import { openHttpConnection } from './httpConnection.js';
import { openStdioConnection } from './stdioConnection.js';

/**
 * Opens a connection for `ctx.spec`: a stdio child, or Streamable HTTP with the legacy SSE fallback. Rejects within
 * the start timeout, and at once when `ctx.signal` aborts, leaving no process behind.
 */
export function openConnection(ctx: ConnectContext): Promise<Connection> {
  const deadline = Date.now() + ctx.startTimeoutMs;
  return ctx.spec.transport === 'stdio'
    ? openStdioConnection(ctx, deadline)
    : openHttpConnection(ctx, deadline);
}
