/**
 * Which protected resource a request of the protected routes is for (DESIGN.md G5 stage 3, the audience):
 * `/hub`, `/mcp` or `/servers/<name>/mcp` under the base the client used (the public URL, or a loopback spelling of
 * it), each with its 401 challenges computed once and kept in a bounded table.
 *
 * @module
 */
import { isValidUpstreamName } from '@mcppipe/namespace';
import type { FastifyRequest } from 'fastify';
import { protectedTarget, type ProtectedTarget } from '../pipeline/auth.js';

/** Most protected resources whose challenges are kept precomputed (server names come from request paths). */
const MAX_CACHED_TARGETS = 1024;

/**
 * The resource path a request is protected by: `/health` shares `/hub`'s; undefined for a malformed
 * server name (no resource exists for it).
 *
 * @param req - the request (its route already matched)
 */
export function resourcePathOf(req: FastifyRequest): string | undefined {
  const route = req.routeOptions.url;
  if (route === '/hub' || route === '/health') return '/hub';
  if (route === '/mcp') return '/mcp';
  const name = (req.params as { name?: string }).name ?? '';
  return isValidUpstreamName(name) ? `/servers/${name}/mcp` : undefined;
}

/**
 * Builds the auth hook's `resourceOf`: the request's resource `<base><path>` with its metadata URL
 * `<base>/.well-known/oauth-protected-resource<path>`, from a table of at most {@link MAX_CACHED_TARGETS} entries
 * (cleared, not grown, when full: paths name servers that may not exist).
 *
 * @param publicUrl - the canonical public URL (its resources are keyed by path alone)
 * @param baseUrlOf - the base a `Host` header is answered as (the public URL, or the loopback spelling used)
 * @returns the mapping; undefined for a malformed server name
 */
export function createResourceOf(
  publicUrl: string,
  baseUrlOf: (host: string | undefined) => string,
): (req: FastifyRequest) => ProtectedTarget | undefined {
  // resource path → its precomputed challenges and canonical resource
  const targets = new Map<string, ProtectedTarget>();
  return (req) => {
    const path = resourcePathOf(req);
    if (path === undefined) return undefined;
    const base = baseUrlOf(req.headers.host); // the public URL, or the loopback spelling used
    const key = base === publicUrl ? path : `${base}${path}`;
    let target = targets.get(key);
    if (target === undefined) {
      // bounded: paths name servers that may not exist, so the table is cleared rather than grown
      if (targets.size >= MAX_CACHED_TARGETS) targets.clear();
      target = protectedTarget(`${base}${path}`, `${base}/.well-known/oauth-protected-resource${path}`);
      targets.set(key, target);
    }
    return target;
  };
}
