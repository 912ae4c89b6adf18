/**
 * Host and Origin validation (MCP transports "Security Warning"; SECURITY-REFERENCE A10). Bound to a
 * loopback address, every request's `Host` must name loopback or the public URL's host, so a DNS-rebinding
 * page cannot reach the gateway. On MCP endpoints a browser `Origin`, when sent, must be the public URL's
 * origin, a loopback origin (loopback binds only) or one of the configured extra origins.
 *
 * @module
 */
import { createHostOriginPolicy } from '@mcppipe/http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PipelineObserver } from '../types.js';
import { RPC, refuse } from './rpcError.js';

/** Options of {@link createHostGuard} and {@link createOriginGuard}. */
export interface GuardOptions {
  publicUrl: string;
  loopback: boolean;
  allowedOrigins?: readonly string[];
  /** Extra `Host` names allowed on a loopback bind (the tunnel zone's apex, which serves the dashboard). */
  hosts?: readonly string[];
  observer?: PipelineObserver;
}

/**
 * The `Host` check for loopback binds (a root `onRequest` hook).
 *
 * @param options - the public URL and the bind kind
 */
export function createHostGuard(options: GuardOptions) {
  // `Host` value → allowed? Agents send the same few values; remembered per value (bounded) by the policy.
  const isAllowed = createHostOriginPolicy({
    allowedHosts: [new URL(options.publicUrl).hostname, ...(options.hosts ?? [])],
    loopbackOrigins: false,
  }).host;
  return async (req: FastifyRequest, reply: FastifyReply) => {
    if (isAllowed(req.headers.host ?? '')) return;
    return refuse(reply, 403, { code: RPC.serverError, message: 'Forbidden: Host header is not allowed' });
  };
}

/**
 * The browser-origin rule shared by the `Origin` guard and CORS (the CLI's `--allowed-origins` semantics):
 * the public URL's origin, any configured extra origin (`*` = any), and loopback origins on loopback binds.
 *
 * @param options - the public URL, the bind kind and extra origins
 * @returns whether an `Origin` value is allowed
 */
export function createOriginPolicy(options: GuardOptions): (origin: string) => boolean {
  return createHostOriginPolicy({
    allowedOrigins: [new URL(options.publicUrl).origin, ...(options.allowedOrigins ?? [])],
    loopbackOrigins: options.loopback,
  }).origin;
}

/**
 * The `Origin` check for MCP endpoints (an `onRequest` hook before auth).
 *
 * @param options - the public URL, the bind kind and extra origins
 */
export function createOriginGuard(options: GuardOptions) {
  const allowed = createOriginPolicy(options);
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const origin = req.headers.origin;
    if (origin === undefined || allowed(origin)) {
      options.observer?.('origin', 'pass');
      return;
    }
    options.observer?.('origin', 'reject');
    return refuse(reply, 403, { code: RPC.serverError, message: 'Forbidden: Origin is not allowed' });
  };
}
