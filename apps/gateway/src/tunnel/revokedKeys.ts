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
 * Watches the accounts and closes every live tunnel whose API key is gone, telling its client whether the key was
 * revoked or its account removed (logged at info, with account and subdomain; a reload that fails is logged at error
 * and changes nothing).
 *
 * @param accounts - the relay's accounts and keys
 * @param registry - the live tunnels
 * @param logger - where closes and reload failures are logged
 * @returns stops watching
 */
export function closeRevokedTunnels(
  accounts: Pick<AccountStore, 'watch' | 'keyIds' | 'hasAccount'>,
  registry: Pick<TunnelRegistry, 'list' | 'closeByKey'>,
  logger: Logger,
): () => void {
  return accounts.watch(
    () => {
      const ids = accounts.keyIds();
      for (const t of registry.list()) {
        if (ids.has(t.keyId)) continue;
        // an account removed with its keys says so: "the key was revoked" would send its user to make a new key
        const gone = !accounts.hasAccount(t.account);
        const reason = gone
          ? `the account "${t.account}" was removed from the relay`
          : 'the API key was revoked';
        if (registry.closeByKey(t.keyId, reason) > 0)
          logger.info(
            { account: t.account, subdomain: t.subdomain },
            `${gone ? 'account removed' : 'API key revoked'}: tunnel closed`,
          );
      }
    },
    {
      onError: (err) =>
        logger.error({ err: (err as Error).message }, 'could not reload the accounts and keys'),
    },
  );
}
