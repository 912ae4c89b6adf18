/**
 * The error handler of the MCP routes: every refusal becomes a JSON-RPC error body with `id: null`
 * (body too large → 413, wrong media type → 415, unparsable → 400 -32700); anything unexpected is logged
 * and answered 500 -32603 without details.
 *
 * @module
 */
import { drainRefusedBody } from '@mcppipe/http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger, PipelineObserver } from '../types.js';
import { RPC, refuse, rpcErrorBody } from './rpcError.js';

/**
 * Builds the handler.
 *
 * @param bodyLimit - the body cap, for the 413 message
 * @param logger - where unexpected errors go
 * @param observer - stage observer (body-stage refusals)
 */
export function createMcpErrorHandler(bodyLimit: number, logger: Logger, observer?: PipelineObserver) {
  return (err: FastifyError & { rpcCode?: number }, req: FastifyRequest, reply: FastifyReply) => {
    if (typeof err.rpcCode === 'number') {
      return refuse(reply, err.statusCode ?? 400, { code: err.rpcCode, message: err.message });
    }
    switch (err.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        observer?.('body', 'reject');
        // the client may still be uploading: read the rest (bounded) so it sees the 413, not a reset (13.11)
        drainRefusedBody(req.raw);
        reply.removeHeader('connection'); // Fastify's close would drop the socket with the body unread
        return reply
          .code(413)
          .type('application/json')
          .send(rpcErrorBody(RPC.invalidRequest, `Request body exceeds ${bodyLimit} bytes`));
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        observer?.('body', 'reject');
        return refuse(reply, 415, {
          code: RPC.serverError,
          message: 'Unsupported Media Type: Content-Type must be application/json',
        });
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        observer?.('body', 'reject');
        return refuse(reply, 400, { code: RPC.parseError, message: `Parse error: ${err.message}` });
    }
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500)
      return refuse(reply, status, { code: RPC.invalidRequest, message: err.message });
    logger.error({ err: err.message, url: req.url }, 'unexpected error on an MCP route');
    return refuse(reply, 500, { code: RPC.internalError, message: 'Internal error' });
  };
}
