/**
 * `GET /api/tunnels` on any node (issue 20's scale-out gap): this node's tunnel scopes plus the account's tunnels
 * other nodes hold, asked of each holding node once ({@link SCOPE_CALLS.list}) and merged by {@link mergeTunnelLists}.
 *
 * @module
 */
import type { TunnelScopes, TunnelSummary } from '@mcppipe/events';
import type { NodeCallAnswer, TunnelCluster, TunnelOwner } from '@mcppipe/tunnel';
import { SCOPE_CALLS } from './scopeCall.js';
import { tunnelId } from './settingsRelay.js';

/**
 * Merges this node's tunnel list with the tunnels other nodes hold (the rule of `GET /api/tunnels` on many nodes):
 * a tunnel this node holds (`connected`) is listed as this node sees it; any other is listed as its holding node
 * sees it (a disconnected local entry of the same id is the stale record of an earlier connection here); each id
 * once, only `account`'s, sorted by id.
 *
 * @param account - the caller's account
 * @param local - this node's summaries (`TunnelScopes.list`)
 * @param remote - the summaries of the account's tunnels other nodes hold
 * @returns the merged list
 */
export function mergeTunnelLists(
  account: string,
  local: readonly TunnelSummary[],
  remote: readonly TunnelSummary[],
): TunnelSummary[] {
  const out = new Map<string, TunnelSummary>();
  for (const t of local) if (t.account === account) out.set(t.id, t);
  for (const t of remote)
    if (t.account === account && out.get(t.id)?.connected !== true) out.set(t.id, { ...t, connected: true });
  return [...out.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * The tunnels with their effective auth mode: the one the owner saved in the tunnel's settings, when saved, over the
 * one its CLI asked for when it connected (what the relay enforces, so what `GET /api/tunnels` reports).
 *
 * @param list - the summaries (auth from connect metadata)
 * @param savedAuth - the auth mode saved for a tunnel id, or undefined when none is saved
 * @returns the summaries with `auth` as enforced
 */
export function withSavedAuth(
  list: readonly TunnelSummary[],
  savedAuth: (id: string) => string | undefined,
): TunnelSummary[] {
  return list.map((t) => {
    const auth = savedAuth(t.id);
    return auth === undefined || auth === t.auth ? t : { ...t, auth };
  });
}

/**
 * The summary of a tunnel another node holds, from its owner record alone (when that node does not answer): its
 * connect time is the record's (the Unix epoch in a record of an older node) and its upstream count is unknown (0).
 *
 * @param o - the owner record
 * @param publicUrl - the tunnel's public URL (the relay's rule)
 * @returns the summary, `connected: true`
 */
export function summaryOfOwner(o: TunnelOwner, publicUrl: string): TunnelSummary {
  return {
    id: tunnelId(o),
    subdomain: o.subdomain,
    account: o.account,
    publicUrl,
    connected: true,
    connectedAt: new Date(o.connectedAt ?? 0).toISOString(),
    auth: o.metadata['auth'] ?? 'oauth',
    zeroKnowledge: o.zeroKnowledge ?? false,
    upstreams: 0,
  };
}

/** What {@link remoteSummaries} needs. */
export interface TunnelListDeps {
  cluster: TunnelCluster;
  /** A tunnel's public URL (`TunnelRelay.publicUrl`). */
  publicUrl: (subdomain: string, account: string) => string;
}

/**
 * The summaries of `account`'s tunnels other nodes hold (their owner records as of the last heartbeat or lookup):
 * one node call per holding node; a node that does not answer has its tunnels listed from their records
 * ({@link summaryOfOwner}).
 *
 * @param deps - the cluster and the public URL rule
 * @param account - the caller's account
 * @returns the summaries, unsorted
 */
export async function remoteSummaries(deps: TunnelListDeps, account: string): Promise<TunnelSummary[]> {
  const byNode = new Map<string, TunnelOwner[]>();
  for (const o of deps.cluster.remoteTunnels())
    if (o.account === account) byNode.set(o.node, [...(byNode.get(o.node) ?? []), o]);
  const lists = await Promise.all(
    [...byNode.values()].map(async (owners) => {
      const ids = owners.map(tunnelId);
      const answer = await deps.cluster
        .call(owners[0]!, SCOPE_CALLS.list, { account, ids })
        .catch((): NodeCallAnswer => ({ status: 503, body: null }));
      const listed = (answer.body as { tunnels?: TunnelSummary[] } | null)?.tunnels;
      if (answer.status === 200 && Array.isArray(listed)) return listed;
      return owners.map((o) => summaryOfOwner(o, deps.publicUrl(o.subdomain, o.account)));
    }),
  );
  return lists.flat();
}

/**
 * The holder's side of {@link SCOPE_CALLS.list}: the summaries of the named tunnels of `account` this node holds.
 *
 * @param scopes - this node's scopes
 * @param payload - `{ account, ids }` as a peer sent it
 * @returns 200 `{ tunnels }`, 400 for a payload that is not one
 */
export function heldSummaries(scopes: TunnelScopes, payload: unknown): NodeCallAnswer {
  const { account, ids } = (payload ?? {}) as Record<string, unknown>;
  if (typeof account !== 'string' || !Array.isArray(ids))
    return { status: 400, body: { error: 'bad_request', message: 'bad node call' } };
  const wanted = new Set(ids.filter((id): id is string => typeof id === 'string'));
  const tunnels = scopes.list(account).filter((t) => t.connected && wanted.has(t.id));
  return { status: 200, body: { tunnels } };
}
