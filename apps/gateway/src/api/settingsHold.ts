/**
 * The owner's `holdChangedTools` setting (issue 19 Settings, DESIGN.md E4), applied where it takes effect: in
 * `mcppipe up`, whose tool pins hide a changed tool from the lists and refuse its calls. The node holding a tunnel
 * tells the CLI over the tunnel's event scope (`POST /.mcppipe/tools/hold/on|off`) when the tunnel connects and
 * whenever the stored value changes (a `PUT` on this node or, with many nodes, one announced by another node). A
 * tunnel with no stored value keeps the CLI's own `--hold-changed-tools`.
 *
 * @module
 */
import type { TunnelScopes } from '@mcppipe/events';
import type { TunnelRegistry } from '@mcppipe/tunnel';
import { splitLabel } from '../tunnel/address.js';
import type { Logger } from '../types.js';
import type { TunnelSettingsStore } from './settingsStore.js';

/**
 * Follows the stored settings and tells each tunnel held here its stored hold.
 *
 * @param deps - the stored settings, the tunnels' scopes (how the CLI is reached), the relay's registry, the logger
 * @returns `apply(id)`: tells tunnel `id` its stored hold, if it is held here and has one (call on each connect)
 */
export function followHoldSetting(deps: {
  settings: TunnelSettingsStore;
  scopes: TunnelScopes;
  registry: () => TunnelRegistry;
  logger: Logger;
}): { apply(id: string): void } {
  const apply = (id: string) => {
    const on = deps.settings.get(id)?.holdChangedTools;
    if (on === undefined) return;
    const registry = deps.registry();
    const held = splitLabel(id).find((c) => registry.lookup(c.subdomain, c.account) !== undefined);
    const scope = held && deps.scopes.get(id, held.account);
    if (scope === undefined) return;
    scope.call('POST', `/tools/hold/${on ? 'on' : 'off'}`).then(
      (r) => {
        if (r.status !== 200)
          deps.logger.warn(
            { tunnel: id, status: r.status },
            'could not apply the hold-changed-tools setting: the CLI did not take it (mcppipe up older than the relay?)',
          );
      },
      () => undefined, // the tunnel went away: applied again at its next connect
    );
  };
  deps.settings.onChange(apply);
  return { apply };
}
