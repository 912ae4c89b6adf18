/**
 * The `/api` answers shared by its route files: typed errors of `@mcppipe/events` to HTTP, and the owner-scoped 404.
 *
 * @module
 */
import { isMcpPipeError } from '@mcppipe/errors';
import type { NodeCallAnswer } from '@mcppipe/tunnel';
import type { FastifyReply } from 'fastify';

/**
 * Maps the package's typed errors to HTTP answers (`MCPP_EVENTS_UNKNOWN_*` → 404, other codes → 400); anything
 * else is a 500 without internals.
 *
 * @param reply - the reply
 * @param err - what was thrown
 */
export function fail(reply: FastifyReply, err: unknown): FastifyReply {
  const { status, body } = failure(err);
  return reply.code(status).send(body);
}

/**
 * The answer {@link fail} sends, as a value (a route answered on the node holding a tunnel returns it over the
 * node link).
 *
 * @param err - what was thrown
 * @returns `MCPP_EVENTS_UNKNOWN_*` → 404, other codes → 400, anything else 500 without internals
 */
export function failure(err: unknown): NodeCallAnswer {
  if (isMcpPipeError(err)) {
    const status = err.code.startsWith('MCPP_EVENTS_UNKNOWN') ? 404 : 400;
    return { status, body: { error: err.code, message: err.message } };
  }
  return { status: 500, body: { error: 'internal', message: 'internal error' } };
}

/**
 * 404 `{ error: 'not_found', message }`: an unknown tunnel and another account's answer the same (E2).
 *
 * @param reply - the reply
 * @param message - what was not found
 */
export function notFound(reply: FastifyReply, message: string): FastifyReply {
  return reply.code(404).send({ error: 'not_found', message });
}
