/**
 * JSON-RPC error bodies for answers the gateway gives before any MCP server sees the request.
 *
 * @module
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

/** JSON-RPC codes used by the pipeline. */
export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  internalError: -32603,
  /** mcppipe's `upstream_unavailable` and other server-defined refusals (DESIGN.md "Errors"). */
  serverError: -32000,
} as const;

/**
 * The body of a JSON-RPC error response with `id: null`.
 *
 * @param code - the JSON-RPC error code
 * @param message - the message
 * @param data - optional `data`
 */
export function rpcErrorBody(code: number, message: string, data?: unknown) {
  return { jsonrpc: '2.0' as const, error: { code, message, ...(data !== undefined && { data }) }, id: null };
}

/** Whether a request announced a body (so refusing it without reading should also close the connection). */
export function hasBody(req: FastifyRequest): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Refuses a request with a JSON-RPC error. A request whose body is unread gets `Connection: close`, so
 * Node drops the socket instead of draining an arbitrarily large body (G6).
 *
 * @param reply - the Fastify reply
 * @param status - the HTTP status
 * @param error - JSON-RPC `code`, `message`, optional `data`
 * @returns the reply (return it from async hooks)
 */
export function refuse(
  reply: FastifyReply,
  status: number,
  error: { code: number; message: string; data?: unknown },
): FastifyReply {
  if (hasBody(reply.request) && reply.request.body === undefined) reply.header('connection', 'close');
  return reply
    .code(status)
    .type('application/json')
    .send(rpcErrorBody(error.code, error.message, error.data));
}
