/**
 * Stage 5 (DESIGN.md G5): body parsing, only for verified requests and capped at `MCP_BODY_LIMIT`.
 * The MCP endpoints accept `application/json` only (anything else is 415), refuse compressed bodies
 * (never inflated), reject nesting deeper than the limit before `JSON.parse` runs (`@mcppipe/http`'s
 * `exceedsDepth`, the pre-scan `mcppipe up` runs too: a deeply nested body costs a linear byte scan, not a parse;
 * SECURITY-REFERENCE C4), require valid UTF-8, and parse with
 * Fastify's secure parser (`__proto__` / `constructor.prototype` → 400).
 *
 * @module
 */
import { depthMessage, exceedsDepth } from '@mcppipe/http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PipelineObserver } from '../types.js';
import type { AuthedRaw } from './auth.js';
import { RPC } from './rpcError.js';

/** An error the MCP error handler turns into a JSON-RPC error body. */
export interface PipelineError extends Error {
  statusCode: number;
  rpcCode: number;
}

/**
 * Creates a {@link PipelineError}.
 *
 * @param statusCode - HTTP status
 * @param rpcCode - JSON-RPC code
 * @param message - message
 */
export function pipelineError(statusCode: number, rpcCode: number, message: string): PipelineError {
  return Object.assign(new Error(message), { statusCode, rpcCode });
}

/** Options of {@link registerBodyParser}. */
export interface BodyParserOptions {
  bodyLimit: number;
  maxDepth: number;
  observer?: PipelineObserver;
}

/**
 * Replaces the content-type parsers of an (encapsulated) instance with the guarded JSON parser.
 *
 * @param instance - the MCP routes' instance
 * @param options - the cap, the depth limit and the observer
 */
export function registerBodyParser(instance: FastifyInstance, options: BodyParserOptions): void {
  const { bodyLimit, maxDepth, observer } = options;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const parse = instance.getDefaultJsonParser('error', 'error');
  instance.removeAllContentTypeParsers();
  instance.addHook('preParsing', async (req: FastifyRequest, _reply: FastifyReply, payload) => {
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
      throw pipelineError(
        415,
        RPC.serverError,
        `Unsupported Content-Encoding "${encoding}": send an uncompressed body`,
      );
    }
    return payload;
  });
  instance.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit }, (req, body, done) => {
    if ((req.raw as AuthedRaw).auth === undefined) {
      done(pipelineError(401, RPC.serverError, 'Unauthorized'), undefined);
      return;
    }
    const bytes = body as Buffer;
    if (exceedsDepth(bytes, maxDepth)) {
      observer?.('body', 'reject');
      done(pipelineError(400, RPC.parseError, depthMessage(maxDepth)), undefined);
      return;
    }
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      observer?.('body', 'reject');
      done(pipelineError(400, RPC.parseError, 'Parse error: the body is not valid UTF-8'), undefined);
      return;
    }
    parse(req, text, (err, value) => {
      observer?.('body', err ? 'reject' : 'pass');
      if (err) done(pipelineError(400, RPC.parseError, 'Parse error: invalid JSON'), undefined);
      else done(null, value);
    });
  });
}
