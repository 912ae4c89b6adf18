/**
 * The tunnels' OAuth resources and their owners (DESIGN.md T5): each live tunnel is two resources, its host form and
 * its path form (`https://<subdomain>--<account>.<zone>/mcp`, `<public URL>/t/<subdomain>--<account>/mcp`), owned by
 * its account. With many nodes (S2) the tunnels other nodes hold count too, so an OAuth-mode tunnel works through any
 * node. Read at each authorization (the list changes as tunnels come and go), never on the relay's request path.
 *
 * @module
 */
import type { TunnelCluster, TunnelRegistry } from '@mcppipe/tunnel';
import type { ZoneConfig } from './address.js';
import { tunnelBases } from './address.js';
import { tunnelId } from '../api/settingsRelay.js';

/**
 * Builds the reader of the tunnels' resources.
 *
 * @param zone - the tunnel zone
 * @param registry - this node's tunnels
 * @param cluster - the other nodes' tunnels (S2); undefined on one node
 * @returns a function that answers, at each call, resource URL → owner account of every tunnel live now
 */
export function tunnelResources(
  zone: ZoneConfig,
  registry: Pick<TunnelRegistry, 'list'>,
  cluster: Pick<TunnelCluster, 'remoteTunnels'> | undefined,
): () => Map<string, string> {
  return () => {
    const map = new Map<string, string>();
    for (const t of [...(cluster?.remoteTunnels() ?? []), ...registry.list()]) {
      const bases = tunnelBases(zone, tunnelId(t));
      map.set(`${bases.host}/mcp`, t.account).set(`${bases.path}/mcp`, t.account);
    }
    return map;
  };
}
