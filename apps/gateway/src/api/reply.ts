/**
 * The `/api` answers shared by its route files: typed errors of `@mcppipe/events` to HTTP, and the owner-scoped 404.
 *
 * @module
 */
import { isMcpPipeError } from '@mcppipe/errors';
import type { NodeCallAnswer } from '@mcppipe/tunnel';
import type { FastifyReply, FastifyRequest } from 'fastify';

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

/** Fastify's own refusals of a request body, as the `/api` error codes say them. */
const FASTIFY_CODES: Readonly<Record<string, string>> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_BODY_TOO_LARGE: 'body_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
};

/**
 * The `/api` plugin's error handler: what a route did not answer itself (Fastify's refusal of a malformed, empty or
 * too large body, a typed error thrown through) gets the documented `{ error, message }` shape, not Fastify's
 * `{ statusCode, code, error, message }`; a 5xx says nothing of internals and is logged.
 *
 * @param err - what was thrown
 * @param req - the request (its logger)
 * @param reply - the reply
 */
export function apiErrorHandler(
  err: Error & { statusCode?: number; code?: string },
  req: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const status = err.statusCode ?? 0;
  if (status >= 400 && status < 500) {
    const error = (err.code !== undefined && FASTIFY_CODES[err.code]) || 'bad_request';
    return reply.code(status).send({ error, message: err.message });
  }
  if (!isMcpPipeError(err)) req.log.error({ err: err.message }, '/api route failed');
  return fail(reply, err); // a typed error as the routes answer it; anything else a 500 without internals
}
