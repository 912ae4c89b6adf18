/**
 * JSON-RPC error bodies for answers the gateway gives before any MCP server sees the request.
 *
 * @module
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DRAIN_LIMIT_BYTES } from '../defaults.js';

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
 * Whether a request refused before its body was read must close its connection. A body declared by a
 * `Content-Length` of at most {@link DRAIN_LIMIT_BYTES} is left to Node, which reads and discards it after the
 * answer (bounded by the request timeout) and keeps the connection alive, so an agent retrying after a 401 pays
 * no new TCP handshake. A chunked body (no length) or a larger one closes the connection: nobody can make the
 * gateway read megabytes it is about to refuse (G6).
 *
 * @param req - the request being refused, its body unread
 * @returns true when the answer must carry `Connection: close`
 */
export function mustCloseUnread(req: FastifyRequest): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  if (length === undefined || length === '0') return false;
  const bytes = length.length <= 7 && /^\d+$/.test(length) ? Number(length) : Infinity;
  return bytes > DRAIN_LIMIT_BYTES;
}

/**
 * Refuses a request with a JSON-RPC error. A request whose body is unread and not small (see
 * {@link mustCloseUnread}) gets `Connection: close`, so Node drops the socket instead of draining an
 * arbitrarily large body (G6); a small one is drained and the connection kept.
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
  if (reply.request.body === undefined && mustCloseUnread(reply.request)) reply.header('connection', 'close');
  return reply
    .code(status)
    .type('application/json')
    .send(rpcErrorBody(error.code, error.message, error.data));
}
