/**
 * Stage 1 (DESIGN.md G5): the pre-auth rate limit per client IP, the first `onRequest` hook of the app, so
 * it runs before anything is parsed or verified. `@fastify/rate-limit`'s local store is an LRU of at most
 * `cacheSize` IPs: a flood from many addresses evicts old entries and never grows memory.
 * `/livez` is exempt (liveness must answer under a flood; it does no work).
 *
 * @module
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import {
  DEFAULT_RATE_LIMIT_CACHE_SIZE,
  DEFAULT_RATE_LIMIT_MAX,
  DEFAULT_RATE_LIMIT_WINDOW_MS,
} from '../defaults.js';
import type { PipelineObserver, RateLimitOptions } from '../types.js';
import { RPC, refuse } from './rpcError.js';

/**
 * Registers the limiter and its hook on the root instance (call before any other hook or route).
 *
 * @param app - the root Fastify instance
 * @param options - limits
 * @param observer - stage observer
 */
export async function registerRateLimit(
  app: FastifyInstance,
  options: RateLimitOptions = {},
  observer?: PipelineObserver,
): Promise<void> {
  await app.register(rateLimit, {
    global: false,
    cache: options.cacheSize ?? DEFAULT_RATE_LIMIT_CACHE_SIZE,
  });
  const limiter = app.createRateLimit({
    max: options.max ?? DEFAULT_RATE_LIMIT_MAX,
    timeWindow: options.timeWindowMs ?? DEFAULT_RATE_LIMIT_WINDOW_MS,
  });
  app.addHook('onRequest', async (req, reply) => {
    if (req.url === '/livez') return;
    const result = await limiter(req);
    if (result.isAllowed || !result.isExceeded) {
      observer?.('rateLimit', 'pass');
      return;
    }
    observer?.('rateLimit', 'reject');
    reply.header('retry-after', String(Math.max(1, result.ttlInSeconds)));
    return refuse(reply, 429, { code: RPC.serverError, message: 'Too many requests: rate limit exceeded' });
  });
}
