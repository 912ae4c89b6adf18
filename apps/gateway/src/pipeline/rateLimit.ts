/**
 * Stage 1 (DESIGN.md G5): the pre-auth rate limit per client IP, the first `onRequest` hook of the app, so it runs
 * before anything is parsed or verified. One token bucket per IP (`burst` = `max`, refilled at `max` per window) in
 * `@mcppipe/policy`'s bucket stores: the in-process `MemoryBucketStore` (bounded to `cacheSize` IPs: a flood from
 * many addresses evicts idle, then old buckets and never grows memory), or the store shared by every node (S2). The
 * in-process check is synchronous: no promise per request on the relay's hot path. `/livez` and `/readyz` are exempt
 * (liveness must answer under a flood, it does no work; readiness must say "not ready" while the shared buckets'
 * Redis is away, one `PING`).
 *
 * @module
 */
import type { BucketRequest, BucketStore, TakeOutcome } from '@mcppipe/policy';
import { MemoryBucketStore } from '@mcppipe/policy';
import type { FastifyInstance, FastifyReply } from 'fastify';
import {
  DEFAULT_RATE_LIMIT_CACHE_SIZE,
  DEFAULT_RATE_LIMIT_MAX,
  DEFAULT_RATE_LIMIT_WINDOW_MS,
} from '../defaults.js';
import type { PipelineObserver, RateLimitOptions } from '../types.js';
import { RPC, refuse } from './rpcError.js';

/** The refusals as `/api` names them and their message (the same message in the JSON-RPC error elsewhere). */
const UNAVAILABLE = [
  'store_unavailable',
  'Service unavailable: the shared rate-limit store (Redis) is unreachable; retry shortly',
] as const;
const RATE_LIMITED = ['rate_limited', 'Too many requests: rate limit exceeded'] as const;

/**
 * Registers the limiter's hook on the root instance (call before any other hook or route).
 *
 * @param app - the root Fastify instance
 * @param options - limits; `shared`: the buckets of every node (while that store is away requests get a clean 503)
 * @param observer - stage observer
 */
export function registerRateLimit(
  app: FastifyInstance,
  options: RateLimitOptions = {},
  observer?: PipelineObserver,
): void {
  const buckets: BucketStore =
    options.shared ??
    new MemoryBucketStore({ maxBuckets: options.cacheSize ?? DEFAULT_RATE_LIMIT_CACHE_SIZE });
  const count = options.max ?? DEFAULT_RATE_LIMIT_MAX;
  const periodMs = options.timeWindowMs ?? DEFAULT_RATE_LIMIT_WINDOW_MS;
  const bucketOf = (ip: string): BucketRequest[] => [{ key: `ip:${ip}`, count, periodMs, burst: count }];
  // `/api` answers in its own `{ error, message }` shape (docs/api.md); everything else is JSON-RPC
  const answer = (reply: FastifyReply, status: 429 | 503, [error, message]: readonly [string, string]) => {
    if (reply.request.url.startsWith('/api/')) reply.code(status).send({ error, message });
    else refuse(reply, status, { code: RPC.serverError, message });
  };
  const unavailable = (reply: FastifyReply) => {
    reply.header('retry-after', '1');
    answer(reply, 503, UNAVAILABLE);
    options.onRefused?.(reply.request, 503);
  };
  // true: the request goes on; false: the 429 was sent
  const decide = (outcome: TakeOutcome, reply: FastifyReply): boolean => {
    if (outcome.ok) {
      observer?.('rateLimit', 'pass');
      return true;
    }
    observer?.('rateLimit', 'reject');
    reply.header('retry-after', String(Math.max(1, Math.ceil(outcome.retryAfterMs / 1000))));
    answer(reply, 429, RATE_LIMITED);
    options.onRefused?.(reply.request, 429);
    return false;
  };
  // callback style: a refusal is sent without calling `done` (Fastify's way to answer from a hook)
  app.addHook('onRequest', (req, reply, done) => {
    if (req.url === '/livez' || req.url === '/readyz') return done();
    let taken: TakeOutcome | Promise<TakeOutcome>;
    try {
      taken = buckets.take(bucketOf(req.ip), Date.now());
    } catch {
      return unavailable(reply);
    }
    if (!(taken instanceof Promise)) {
      if (decide(taken, reply)) done();
      return;
    }
    taken.then(
      (outcome) => {
        if (decide(outcome, reply)) done();
      },
      () => unavailable(reply),
    );
  });
}
