/**
 * Revoked API keys close their tunnels (DESIGN.md T1: keys are revocable): the relay watches the accounts file, so
 * a key revoked by `mcppipe-gateway keys revoke` in another process closes its live tunnels within a second.
 *
 * @module
 */
import type { AccountStore } from '@mcppipe/oauth';
import type { TunnelRegistry } from '@mcppipe/tunnel';
import type { Logger } from '../types.js';

/**
 * Watches the accounts and closes every live tunnel whose API key is gone (logged at info, with account and
 * subdomain; a reload that fails is logged at error and changes nothing).
 *
 * @param accounts - the relay's accounts and keys
 * @param registry - the live tunnels
 * @param logger - where closes and reload failures are logged
 * @returns stops watching
 */
export function closeRevokedTunnels(
  accounts: Pick<AccountStore, 'watch' | 'keyIds'>,
  registry: Pick<TunnelRegistry, 'list' | 'closeByKey'>,
  logger: Logger,
): () => void {
  return accounts.watch(
    () => {
      const ids = accounts.keyIds();
      for (const t of registry.list()) {
        if (!ids.has(t.keyId) && registry.closeByKey(t.keyId) > 0)
          logger.info({ account: t.account, subdomain: t.subdomain }, 'API key revoked: tunnel closed');
      }
    },
    {
      onError: (err) =>
        logger.error({ err: (err as Error).message }, 'could not reload the accounts and keys'),
    },
  );
}
