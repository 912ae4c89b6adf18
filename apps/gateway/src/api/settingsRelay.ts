/**
 * Stored tunnel settings at the relay (issue 19 Settings, DESIGN.md T5 and P3): the owner's auth mode and
 * allowlist win over the CLI's connect metadata, and policies and `limits.callsPerMinute` are enforced by a
 * `RelayGate` (the aggregator's `PolicyGate` over raw JSON-RPC). A tunnel without policies or limits (and every
 * zero-knowledge tunnel) is streamed untouched: nothing is parsed on that path.
 *
 * @module
 */
import { RelayGate, relayRulesActive } from '@mcppipe/aggregator';
import type { BucketStore } from '@mcppipe/policy';
import type { ForwardExchange, ForwardTee, Tunnel, TunnelRegistry } from '@mcppipe/tunnel';
import type { IncomingMessage } from 'node:http';
import type { TunnelPolicy } from '../tunnel/policy.js';
import { parsePolicy } from '../tunnel/policy.js';
import { effectiveSettings } from './settingsBody.js';
import type { StoredSettings } from './settingsBody.js';
import type { TunnelSettingsStore } from './settingsStore.js';

/** What the enforcer reads of a tunnel: held here (a `Tunnel`) or by another node (its `TunnelOwner` record). */
export type SettingsSubject = Pick<Tunnel, 'subdomain' | 'account' | 'metadata'> & {
  zeroKnowledge?: boolean;
};

/** What the relay hook asks of the stored settings. */
export interface SettingsEnforcer {
  /** The owner's access policy for the tunnel, or undefined when none is stored (the metadata's applies). */
  policy(tunnel: SettingsSubject): TunnelPolicy | string | undefined;
  /** The gate for the tunnel's policies and limits, or undefined when the tunnel needs none. */
  gate(tunnel: Tunnel): RelayGate | undefined;
  /** Whether the owner turned capture of argument values on for the tunnel id (default off: redacted). */
  captureValues(id: string): boolean;
}

interface Compiled {
  policy: TunnelPolicy | string | undefined;
  gate: RelayGate | undefined;
}

/** The tunnel id of the API: its address label. */
export const tunnelId = (t: Pick<Tunnel, 'subdomain' | 'account'>): string => `${t.subdomain}--${t.account}`;

/**
 * Builds the enforcer over the stored settings; compiled once per stored object (a `PUT` replaces it).
 *
 * @param store - the stored settings
 * @param buckets - where call-limit buckets live (default: one memory store per gate)
 * @returns the enforcer
 */
export function createSettingsEnforcer(store: TunnelSettingsStore, buckets?: BucketStore): SettingsEnforcer {
  const cache = new WeakMap<Readonly<StoredSettings>, Compiled>();
  const compiled = (t: SettingsSubject): Compiled | undefined => {
    const stored = store.get(tunnelId(t));
    if (stored === undefined) return undefined;
    let c = cache.get(stored);
    if (c !== undefined) return c;
    const s = effectiveSettings(t.metadata, stored);
    const rules = { ...s.policies, callsPerMinute: s.limits.callsPerMinute };
    c = {
      policy:
        stored.auth === undefined && stored.allow === undefined
          ? undefined
          : parsePolicy({ auth: s.auth, allow: s.allow.join(',') }),
      gate:
        t.zeroKnowledge === true || !relayRulesActive(rules)
          ? undefined
          : new RelayGate({
              rules,
              keyPrefix: `tunnel:${tunnelId(t)}:`,
              ...(buckets !== undefined && { store: buckets }),
            }),
    };
    cache.set(stored, c);
    return c;
  };
  return {
    policy: (t) => compiled(t)?.policy,
    gate: (t) => compiled(t)?.gate,
    captureValues: (id) => store.get(id)?.capture?.values === true,
  };
}

/** The most bytes of a request body the relay reads to check it against a tunnel's policies. */
export const GATED_BODY_LIMIT = 4 * 1024 * 1024;

/** Reads the body (each chunk also to the capture's `tee`); undefined past {@link GATED_BODY_LIMIT}. */
function readBody(req: IncomingMessage, tee: ForwardTee | undefined): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      tee?.request.push(c);
      size += c.length;
      if (size > GATED_BODY_LIMIT) {
        req.pause();
        resolve(undefined);
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * Forwards one request through a gated tunnel: reads the body, answers a refused `tools/call` itself (HTTP 200,
 * the JSON-RPC error), and filters `tools/list` answers on their way back.
 *
 * @param exchange - as for `registry.forward` (the body is read here from `exchange.req`)
 * @param target - the relay's registry, the tunnel and its gate
 * @returns when the answer is finished
 */
export async function forwardGated(
  exchange: ForwardExchange,
  target: { registry: TunnelRegistry; tunnel: Tunnel; gate: RelayGate },
): Promise<void> {
  const { registry, tunnel, gate } = target;
  const { req, res } = exchange;
  if (req.method !== 'POST') return registry.forward(tunnel, exchange);
  const body = await readBody(req, exchange.tee);
  if (body === undefined) {
    const text = JSON.stringify({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: `Payload too large: at most ${GATED_BODY_LIMIT} bytes` },
    });
    exchange.tee?.response.push(Buffer.from(text));
    res.writeHead(413, { 'content-type': 'application/json', connection: 'close' });
    res.end(text);
    return;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return registry.forward(tunnel, { ...exchange, body }); // the CLI answers the parse error
  }
  const verdict = await gate.inspect(parsed);
  if (verdict.refusal !== undefined) {
    const text = JSON.stringify(verdict.refusal);
    exchange.tee?.response.push(Buffer.from(text));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
    return;
  }
  return registry.forward(tunnel, {
    ...exchange,
    body,
    transform: (headers) => gate.filterResponse(String(headers['content-type'] ?? ''), verdict.lists),
  });
}
