/**
 * Translation between Fastify and the framework-free endpoints of `@mcppipe/oauth` (no logic here).
 *
 * @module
 */
import type { OAuthHttpRequest, OAuthHttpResponse } from '@mcppipe/oauth';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';

/** Methods and headers a browser-based client may use on the CORS-enabled endpoints. */
const CORS_PREFLIGHT = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'Authorization, Content-Type, MCP-Protocol-Version',
  'access-control-max-age': '600',
};

/**
 * Builds the endpoint request from a Fastify request. The body counts as a form only when it was sent
 * as `application/x-www-form-urlencoded`, and as JSON only when sent as `application/json`.
 *
 * @param req - the Fastify request
 * @returns the framework-free request
 */
export function toOAuthRequest(req: FastifyRequest): OAuthHttpRequest {
  const type = req.headers['content-type'] ?? '';
  const isForm = /^application\/x-www-form-urlencoded\s*(;|$)/i.test(type);
  const isJson = /^application\/json\s*(;|$)/i.test(type);
  const body = req.body;
  return {
    query: (req.query ?? {}) as Record<string, unknown>,
    ...(isForm && typeof body === 'object' && body !== null && { form: body as Record<string, unknown> }),
    ...(isJson && { json: body }),
    headers: req.headers,
    ip: req.ip,
  };
}

/**
 * Sends an endpoint response.
 *
 * @param reply - the Fastify reply
 * @param res - the response
 * @param cors - whether this endpoint allows cross-origin reads (metadata, token, registration, revocation)
 * @returns the reply
 */
export function sendOAuthResponse(reply: FastifyReply, res: OAuthHttpResponse, cors = false): FastifyReply {
  reply.code(res.status).headers(res.headers);
  if (res.cookies && res.cookies.length > 0) reply.header('set-cookie', res.cookies);
  if (cors) reply.header('access-control-allow-origin', '*');
  return reply.send(res.body ?? '');
}

/**
 * Answers a CORS preflight (`OPTIONS`) for a CORS-enabled endpoint.
 *
 * @param _req - the request
 * @param reply - the reply
 * @returns the reply
 */
export function preflight(_req: FastifyRequest, reply: FastifyReply): FastifyReply {
  return reply.code(204).headers(CORS_PREFLIGHT).send();
}

/**
 * The error handler of the OAuth routes: framework errors (unparsable or oversized bodies, unsupported
 * media types, rate limits) become RFC 6749 style JSON errors, never stack traces.
 *
 * @param err - the error
 * @param req - the request
 * @param reply - the reply
 * @returns the reply
 */
export function oauthErrorHandler(err: FastifyError, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  const status =
    err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
  if (status >= 500) req.log.error({ err }, 'OAuth endpoint failed');
  const error = status === 429 ? 'rate_limited' : status >= 500 ? 'server_error' : 'invalid_request';
  const description = status >= 500 ? 'internal error' : err.message;
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .type('application/json; charset=utf-8')
    .send({ error, error_description: description });
}
