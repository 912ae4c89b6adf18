import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyError, drainRefusedBody, readJsonBody, sendJsonRpcError } from '@mcppipe/http';

/** What {@link readMcpBody} hands the endpoint: the parsed body, or `undefined` when the request had none. */
export type McpBody = { body: unknown };

/**
 * Whether a parsed JSON value carries a prototype-poisoning key: an own `__proto__`, or a `constructor` object with
 * its own `prototype` (what Fastify's secure JSON parser refused with `onProtoPoisoning`/`onConstructorPoisoning:
 * 'error'`). The nesting was bounded by the depth pre-scan (C4) before `JSON.parse`, so the walk is shallow.
 *
 * @param value - a value from `JSON.parse`
 */
export function isPoisoned(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(isPoisoned);
  if (Object.hasOwn(value, '__proto__')) return true;
  const ctor: unknown = Object.hasOwn(value, 'constructor')
    ? (value as { constructor: unknown }).constructor
    : null;
  if (typeof ctor === 'object' && ctor !== null && Object.hasOwn(ctor, 'prototype')) return true;
  return Object.values(value).some(isPoisoned);
}

const hasBody = (req: IncomingMessage) =>
  req.headers['transfer-encoding'] !== undefined ||
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

/**
 * Reads the JSON body of an MCP POST for the CLI's front door, answering a refused one itself: 415 for a body that
 * is not `application/json`; 413 past `bodyLimit`, the rest drained within bounds so a client still uploading reads
 * it (issue 13.11); 400 / -32700 for invalid JSON, a body nesting deeper than `maxDepth` (C4) or a
 * prototype-poisoning key. Bytes, depth and parsing are `@mcppipe/http`'s `readJsonBody`.
 *
 * @param req - the request
 * @param res - its response (answered when the body is refused)
 * @param limits - the byte bound and the deepest nesting accepted
 * @returns the body, or `undefined` when the request was answered here
 */
export async function readMcpBody(
  req: IncomingMessage,
  res: ServerResponse,
  limits: { bodyLimit: number; maxDepth: number },
): Promise<McpBody | undefined> {
  const type = req.headers['content-type'];
  if (type === undefined && !hasBody(req)) return { body: undefined };
  if ((type ?? '').split(';')[0]?.trim().toLowerCase() !== 'application/json') {
    sendJsonRpcError(res, 415, { code: -32000, message: `Unsupported Media Type: ${type ?? ''}` });
    return undefined;
  }
  try {
    const body = await readJsonBody(req, limits.bodyLimit, limits.maxDepth);
    if (!isPoisoned(body)) return { body };
    sendJsonRpcError(res, 400, { code: -32700, message: 'Parse error: invalid JSON' });
  } catch (err) {
    if (!(err instanceof BodyError)) {
      req.socket.destroy(); // the request stream failed (the client went away)
    } else if (err.status === 413) {
      drainRefusedBody(req);
      sendJsonRpcError(res, 413, { code: -32600, message: `Request body exceeds ${limits.bodyLimit} bytes` });
    } else sendJsonRpcError(res, err.status, { code: err.rpcCode, message: err.message });
  }
  return undefined;
}
