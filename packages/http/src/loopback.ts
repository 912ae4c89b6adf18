/**
 * Host and Origin validation against DNS rebinding (MCP transports "Security Warning"; SECURITY-REFERENCE A10),
 * with one loopback rule for every host of this repository (the CLI's `mcppipe up` server and the gateway).
 *
 * @module
 */

/** The loopback names: `localhost`, `127.0.0.1`, `::1` (and its bracketed URL form). */
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);
/** An IPv4 address of the loopback net 127.0.0.0/8. */
const LOOPBACK_V4 = /^127(\.\d{1,3}){3}$/;
/** Most distinct `Host` or `Origin` values whose verdict is remembered (cleared when full). */
const MAX_REMEMBERED = 256;

/**
 * Whether a bind address or a host name is loopback: `localhost`, `::1` (`[::1]`), or an IPv4 address of
 * 127.0.0.0/8. The one loopback rule of the `Host` and `Origin` checks (SECURITY-REFERENCE A10).
 *
 * @param host - a bind address or a URL host name, e.g. `127.0.0.1`, `::1`, `[::1]`, `localhost`
 * @returns true for a loopback name or address
 * @example
 * ```ts
 * isLoopbackHost('127.0.0.2'); // true
 * isLoopbackHost('0.0.0.0'); // false
 * ```
 */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_NAMES.has(host) || LOOPBACK_V4.test(host);
}

function hostnameOf(value: string): string | undefined {
  try {
    return new URL(value.includes('://') ? value : `http://${value}`).hostname;
  } catch {
    return undefined;
  }
}

/** A bounded memo of a string predicate: `Host` and `Origin` values repeat on every request of a client. */
function remembered(decide: (value: string) => boolean): (value: string) => boolean {
  const verdicts = new Map<string, boolean>();
  return (value) => {
    let ok = verdicts.get(value);
    if (ok === undefined) {
      ok = decide(value);
      if (verdicts.size >= MAX_REMEMBERED) verdicts.clear();
      verdicts.set(value, ok);
    }
    return ok;
  };
}

/** Options of {@link createHostOriginPolicy}. */
export interface HostOriginPolicyOptions {
  /** Host names a `Host` header may name besides loopback ones, e.g. the public URL's host (`--allowed-hosts`). */
  allowedHosts?: readonly string[];
  /** Browser origins allowed besides loopback ones (`*` allows any), e.g. the public URL's origin. */
  allowedOrigins?: readonly string[];
  /** Whether a loopback `Origin` (`http://localhost:5173`) is allowed. */
  loopbackOrigins: boolean;
}

/** The two predicates of {@link createHostOriginPolicy}; each remembers its verdict per value. */
export interface HostOriginPolicy {
  /** Whether a `Host` header value (`127.0.0.1:8808`) names a loopback host or an allowed one. */
  host(value: string): boolean;
  /** Whether an `Origin` header value is allowed: listed, `*` listed, or loopback when those are allowed. */
  origin(value: string): boolean;
}

/**
 * Builds the `Host`/`Origin` predicates of a server bound to loopback (DNS-rebinding protection, SECURITY-REFERENCE
 * A10): a `Host` must name loopback ({@link isLoopbackHost}) or an allowed host; an `Origin` must be listed (or `*`
 * listed), or loopback when `loopbackOrigins` is set. Verdicts are remembered per header value (bounded), so a
 * request costs a map lookup.
 *
 * @param options - allowed hosts and origins, and whether loopback origins are allowed
 * @returns the two predicates
 * @example
 * ```ts
 * const policy = createHostOriginPolicy({ allowedHosts: ['mcp.internal'], loopbackOrigins: true });
 * policy.host('localhost:8808'); // true
 * policy.origin('http://evil.example'); // false
 * ```
 */
export function createHostOriginPolicy(options: HostOriginPolicyOptions): HostOriginPolicy {
  const hosts = new Set(options.allowedHosts ?? []);
  const origins = new Set(options.allowedOrigins ?? []);
  const anyOrigin = origins.has('*');
  return {
    host: remembered((value) => {
      const name = hostnameOf(value);
      return name !== undefined && (isLoopbackHost(name) || hosts.has(name));
    }),
    origin: remembered((value) => {
      if (anyOrigin || origins.has(value)) return true;
      if (!options.loopbackOrigins) return false;
      const name = hostnameOf(value);
      return name !== undefined && isLoopbackHost(name);
    }),
  };
}
