/**
 * `GET|POST /api/keys`, `DELETE /api/keys/:id` (the contract's Keys): an account's API keys, through the same
 * `AccountStore` calls as `mcppipe-gateway keys create|list|revoke`. A revoked key's live tunnels are closed at
 * once (the accounts watcher would within a second). Another account's key answers 404.
 *
 * @module
 */
import { isMcpPipeError } from '@mcppipe/errors';
import type { AccountStore } from '@mcppipe/oauth';
import type { TunnelRegistry } from '@mcppipe/tunnel';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiCaller } from './caller.js';
import { accountCaller } from './session.js';

/** What the key routes need. */
export interface KeysDeps {
  accounts: Pick<AccountStore, 'createKey' | 'listKeys' | 'revokeKey'>;
  registry: Pick<TunnelRegistry, 'closeByKey'>;
  resolveCaller: (req: FastifyRequest) => ApiCaller | undefined;
}

/** The longest key name. */
export const MAX_KEY_NAME = 64;
const NAME = /^[\p{L}\p{N} ._@-]+$/u;

/**
 * Registers the key routes.
 *
 * @param app - the API plugin instance
 * @param deps - the accounts, the relay's registry and the caller resolver
 */
export function keysRoutes(app: FastifyInstance, deps: KeysDeps): void {
  const { accounts, registry, resolveCaller } = deps;
  const view = (k: { id: string; name?: string; createdAt: number }) => ({
    id: k.id,
    name: k.name ?? null,
    createdAt: new Date(k.createdAt).toISOString(),
  });

  app.get('/api/keys', async (req, reply) => {
    const caller = accountCaller(req, reply, resolveCaller);
    if (caller === undefined) return reply;
    return { keys: accounts.listKeys(caller.account).map(view) };
  });

  app.post('/api/keys', async (req, reply) => {
    const caller = accountCaller(req, reply, resolveCaller);
    if (caller === undefined) return reply;
    const name = ((req.body ?? {}) as { name?: unknown }).name;
    if (typeof name !== 'string' || name.length === 0 || name.length > MAX_KEY_NAME || !NAME.test(name))
      return reply.code(400).send({
        error: 'invalid_request',
        message: `name: send {"name": "..."}: 1 to ${MAX_KEY_NAME} letters, digits, spaces, ".", "_", "@" or "-"`,
      });
    try {
      const { id, key } = await accounts.createKey(caller.account, name);
      return await reply.code(201).send({ id, name, key });
    } catch (err) {
      if (!isMcpPipeError(err, 'MCPP_OAUTH_ACCOUNT_INVALID')) throw err;
      return reply.code(409).send({ error: 'conflict', message: err.message });
    }
  });

  app.delete<{ Params: { id: string } }>('/api/keys/:id', async (req, reply) => {
    const caller = accountCaller(req, reply, resolveCaller);
    if (caller === undefined) return reply;
    const { id } = req.params;
    if (!accounts.listKeys(caller.account).some((k) => k.id === id))
      return reply.code(404).send({ error: 'not_found', message: `no key ${JSON.stringify(id)}` });
    await accounts.revokeKey(id);
    registry.closeByKey(id);
    return reply.code(204).send();
  });
}
