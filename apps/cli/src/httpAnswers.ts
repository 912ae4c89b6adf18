/**
 * The front door's own answers besides JSON-RPC errors (httpServer.ts): the not-found and the stopping ones.
 *
 * Not part of the public API.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Fastify's not-found answer, which clients of earlier versions saw. */
export function notFound(req: IncomingMessage, res: ServerResponse, path: string): void {
  const body = JSON.stringify({
    message: `Route ${req.method}:${path} not found`,
    error: 'Not Found',
    statusCode: 404,
  });
  res.writeHead(404, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** A request on a kept-alive connection once the stop began: 503 and the connection closed (as Fastify answered). */
export function unavailable(res: ServerResponse): void {
  const body = JSON.stringify({
    error: 'Service Unavailable',
    message: 'Service Unavailable',
    statusCode: 503,
  });
  res.writeHead(503, { 'content-type': 'application/json', connection: 'close' }).end(body);
}
