/**
 * The caller of the capture routes by name (issue 19 API contract; the caller is resolved once by the `/api`
 * plugin's hook). Their owner scope is `ownedTunnel` of `owned.ts`, shared with the other tunnel routes.
 *
 * @module
 */
import type { ApiCaller } from './caller.js';

/**
 * A display name of the API caller (an exchange's `caller` for a replay): the key's name, like tunnel traffic.
 *
 * @param caller - the caller
 * @param keyName - the name of an API key by id
 * @returns `admin`, the key's name, or `<account> (dashboard)`
 */
export function callerName(caller: ApiCaller | undefined, keyName: (keyId: string) => string): string | null {
  if (caller === undefined) return null;
  if (caller.kind === 'admin') return 'admin';
  return caller.via === 'key' ? keyName(caller.keyId) : `${caller.account} (dashboard)`;
}
