/**
 * Stage 1 (DESIGN.md G5): the pre-auth rate limit per client IP, the first `onRequest` hook of the app, so
 * it runs before anything is parsed or verified. `@fastify/rate-limit`'s local store is an LRU of at most
 * `cacheSize` IPs: a flood from many addresses evicts old entries and never grows memory.
 * `/livez` is exempt (liveness must answer under a flood; it does no work).
 *
 * @module
 */
import rateLimit from '@fastify/rate-limit';
import type { BucketStore, TakeOutcome } from '@mcppipe/policy';
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
  if (options.shared) return sharedRateLimit(app, { ...options, shared: options.shared }, observer);
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

/** The same limit over buckets shared by every node (S2); while the store is away requests get a clean 503. */
function sharedRateLimit(
  app: FastifyInstance,
  options: RateLimitOptions & { shared: BucketStore },
  observer?: PipelineObserver,
): void {
  const buckets = options.shared;
  const count = options.max ?? DEFAULT_RATE_LIMIT_MAX;
  const periodMs = options.timeWindowMs ?? DEFAULT_RATE_LIMIT_WINDOW_MS;
  app.addHook('onRequest', async (req, reply) => {
    if (req.url === '/livez') return;
    let outcome: TakeOutcome;
    try {
      outcome = await buckets.take([{ key: `ip:${req.ip}`, count, periodMs, burst: count }], Date.now());
    } catch {
      reply.header('retry-after', '1');
      return refuse(reply, 503, {
        code: RPC.serverError,
        message: 'Service unavailable: the shared rate-limit store (Redis) is unreachable; retry shortly',
      });
    }
    if (outcome.ok) {
      observer?.('rateLimit', 'pass');
      return;
    }
    observer?.('rateLimit', 'reject');
    reply.header('retry-after', String(Math.max(1, Math.ceil(outcome.retryAfterMs / 1000))));
    return refuse(reply, 429, { code: RPC.serverError, message: 'Too many requests: rate limit exceeded' });
  });
}
