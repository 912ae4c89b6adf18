/**
 * `GET|PUT /api/tunnels/:id/settings` (the contract's Settings): a tunnel's auth mode, allowlist, tool policies,
 * call limit, capture of values and hold of changed tools. `PUT` takes a partial body, validates it (400 with a
 * message naming the field) and stores it per tunnel id; the relay applies it from the next request
 * (`settingsRelay.ts`). A tunnel of another account, or one the relay does not know, answers 404.
 *
 * @module
 */
import type { Tunnel, TunnelOwner, TunnelRegistry } from '@mcppipe/tunnel';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ownedTunnel } from './owned.js';
import { effectiveSettings, mergeSettings } from './settingsBody.js';
import type { TunnelSettingsStore } from './settingsStore.js';

/** What the settings routes need. */
export interface SettingsDeps {
  registry: Pick<TunnelRegistry, 'lookup'>;
  store: TunnelSettingsStore;
  /** Many nodes (S2): the tunnels other nodes hold (`TunnelCluster.remoteTunnels`), settable from any node. */
  remote?: () => readonly TunnelOwner[];
  /** What this node last saw of a tunnel that is not connected now (its connect metadata), by tunnel id. */
  lastConnect?: (id: string) => Pick<Tunnel, 'metadata' | 'zeroKnowledge'> | undefined;
}

type Id = { Params: { id: string } };

/**
 * Registers the settings routes.
 *
 * @param app - the API plugin instance
 * @param deps - the relay's registry and the settings store
 */
export function settingsRoutes(app: FastifyInstance, deps: SettingsDeps): void {
  const { registry, store } = deps;
  /**
   * The caller's tunnel `id` (held here, held by another node, seen here before, or with stored settings), or
   * undefined when the 404 was sent; `live` is what is known of its connection (its metadata and zero-knowledge
   * mode; for a tunnel not connected now, its last connection's as this node saw it).
   */
  const owned = (req: FastifyRequest, reply: FastifyReply) =>
    ownedTunnel(req, reply, ({ id, subdomain, account }) => {
      const live: Pick<Tunnel, 'metadata' | 'zeroKnowledge'> | undefined =
        registry.lookup(subdomain, account) ?? remoteOf(subdomain, account) ?? deps.lastConnect?.(id);
      return live !== undefined || store.has(id) ? { id, live } : undefined;
    });
  const remoteOf = (subdomain: string, account: string) => {
    const o = deps.remote?.().find((r) => r.subdomain === subdomain && r.account === account);
    return o && { metadata: o.metadata, zeroKnowledge: o.zeroKnowledge === true };
  };

  app.get<Id>('/api/tunnels/:id/settings', async (req, reply) => {
    const t = owned(req, reply);
    if (t === undefined) return reply;
    return effectiveSettings(t.live?.metadata ?? {}, store.get(t.id));
  });

  app.put<Id>('/api/tunnels/:id/settings', async (req, reply) => {
    const t = owned(req, reply);
    if (t === undefined) return reply;
    const next = mergeSettings(req.body, store.get(t.id) ?? {}, t.live?.zeroKnowledge ?? false);
    if (typeof next === 'string') return reply.code(400).send({ error: 'invalid_settings', message: next });
    await store.put(t.id, next);
    return effectiveSettings(t.live?.metadata ?? {}, next);
  });
}
