/**
 * Where a tunnel request goes (DESIGN.md T4, S2): the tunnel held here, or the node that holds it, with the
 * policy that gates it (the owner's stored settings win over the connect metadata). Delivering into a tunnel held
 * here feeds the exchange capture's tee (issue 19) and passes the owner's gate, whichever node the call entered.
 *
 * @module
 */
import type { ExchangeCapture } from '@mcppipe/capture';
import type { ForwardExchange, Tunnel, TunnelCluster, TunnelRegistry } from '@mcppipe/tunnel';
import type { SettingsEnforcer } from '../api/settingsRelay.js';
import { forwardGated, tunnelId } from '../api/settingsRelay.js';
import type { TunnelAddress } from './address.js';
import type { TunnelPolicy } from './policy.js';
import { parsePolicy } from './policy.js';
import type { TunnelTarget } from './tunnelAuth.js';

/** What {@link createTargetFinder} needs. */
export interface TargetFinderDeps {
  registry: TunnelRegistry;
  /** The exchange capture (issue 19): POSTs are teed after auth (fed by the forwarder), recorded after the response. */
  capture?: {
    exchanges: ExchangeCapture;
    keyName: (keyId: string) => string;
    values?: (id: string) => boolean;
  };
  /** The owner's stored settings (issue 19): they win over the connect metadata. */
  settings?: SettingsEnforcer;
  /** Many nodes (S2): a tunnel held by another node is checked here and forwarded to its owner. */
  cluster?: TunnelCluster | undefined;
}

/**
 * Builds the lookup of a request's target, and registers the delivery of exchanges forwarded here by other nodes
 * (`cluster.onForwarded`). A tunnel's policy parsed from its connect metadata is cached per tunnel object.
 *
 * @param deps - the registry, and the capture, settings and cluster when configured
 * @returns the lookup: the first candidate (subdomain, account) of `address` held here, else the first held by
 *   another node, else `undefined`; it rejects only if the cluster's owner lookup does
 */
export function createTargetFinder(
  deps: TargetFinderDeps,
): (address: TunnelAddress) => Promise<TunnelTarget | undefined> {
  const { registry, settings, cluster } = deps;
  const policies = new WeakMap<Tunnel, TunnelPolicy | string>();
  const policyOf = (t: Tunnel): TunnelPolicy | string => {
    const stored = settings?.policy(t);
    if (stored !== undefined) return stored;
    let p = policies.get(t);
    if (p === undefined) policies.set(t, (p = parsePolicy(t.metadata)));
    return p;
  };
  /**
   * Delivers an exchange into a tunnel held here, whichever node it entered (S2: `cluster.onForwarded`): a POST
   * feeds the exchange capture's tee, and the owner's stored policies and limits gate it.
   */
  const deliver = (t: Tunnel | undefined, x: ForwardExchange, caller: string | null): Promise<void> => {
    if (t === undefined) return registry.forward(t, x); // rejects: tunnel_offline
    if (deps.capture && x.req.method === 'POST') {
      const id = tunnelId(t);
      const context = {
        caller,
        zeroKnowledge: t.zeroKnowledge,
        captureValues: deps.capture.values?.(id) ?? false,
      };
      x.tee = deps.capture.exchanges.tee(id, { req: x.req, res: x.res }, context);
    }
    const gate = t.zeroKnowledge ? undefined : settings?.gate(t);
    return gate ? forwardGated(x, { registry, tunnel: t, gate }) : registry.forward(t, x);
  };
  cluster?.onForwarded(deliver);
  const local = (t: Tunnel): TunnelTarget => ({
    policy: policyOf(t),
    account: t.account,
    tunnel: t,
    send: (x, caller) => deliver(t, x, caller),
  });
  return async (a: TunnelAddress): Promise<TunnelTarget | undefined> => {
    for (const c of a.candidates) {
      const t = registry.lookup(c.subdomain, c.account);
      if (t !== undefined) return local(t);
    }
    for (const c of cluster ? a.candidates : []) {
      const owner = await cluster!.remoteOwner(c.subdomain, c.account);
      if (owner !== undefined)
        return {
          // the owner's stored auth and allowlist (shared by every node) win over the connect metadata here too
          policy: settings?.policy(owner) ?? parsePolicy(owner.metadata),
          account: owner.account,
          send: (x, caller) => cluster!.forward(owner, x, caller),
        };
    }
    return undefined;
  };
}
