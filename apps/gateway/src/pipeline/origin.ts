/**
 * Host and Origin validation (MCP transports "Security Warning"; SECURITY-REFERENCE A10). Bound to a
 * loopback address, every request's `Host` must name loopback or the public URL's host, so a DNS-rebinding
 * page cannot reach the gateway. On MCP endpoints a browser `Origin`, when sent, must be the public URL's
 * origin, a loopback origin (loopback binds only) or one of the configured extra origins.
 *
 * @module
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PipelineObserver } from '../types.js';
import { RPC, refuse } from './rpcError.js';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);
/** Most distinct `Host` values whose verdict is remembered. */
const MAX_DECIDED_HOSTS = 256;

/**
 * Whether a bind address is loopback.
 *
 * @param host - a bind address such as `127.0.0.1`, `::1` or `localhost`
 */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_NAMES.has(host) || /^127(\.\d{1,3}){3}$/.test(host);
}

function hostnameOf(value: string): string | undefined {
  try {
    return new URL(value.includes('://') ? value : `http://${value}`).hostname;
  } catch {
    return undefined;
  }
}

/** Options of {@link createHostGuard} and {@link createOriginGuard}. */
export interface GuardOptions {
  publicUrl: string;
  loopback: boolean;
  allowedOrigins?: readonly string[];
  observer?: PipelineObserver;
}

/**
 * The `Host` check for loopback binds (a root `onRequest` hook).
 *
 * @param options - the public URL and the bind kind
 */
export function createHostGuard(options: GuardOptions) {
  const allowed = new Set([...LOOPBACK_NAMES, new URL(options.publicUrl).hostname]);
  // `Host` value → allowed? Agents send the same few values; bounded anyway (cleared when full).
  const decided = new Map<string, boolean>();
  const isAllowed = (value: string): boolean => {
    let ok = decided.get(value);
    if (ok === undefined) {
      const host = hostnameOf(value);
      ok = host !== undefined && (allowed.has(host) || isLoopbackHost(host));
      if (decided.size >= MAX_DECIDED_HOSTS) decided.clear();
      decided.set(value, ok);
    }
    return ok;
  };
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
  const extra = new Set(options.allowedOrigins ?? []);
  const own = new URL(options.publicUrl).origin;
  const any = extra.has('*');
  return (origin) => {
    if (origin === own || any || extra.has(origin)) return true;
    if (!options.loopback) return false;
    const name = hostnameOf(origin);
    return name !== undefined && LOOPBACK_NAMES.has(name);
  };
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
