// Settings (D2): the Upstreams section (live), access and policies, webhooks with their delivery log, API keys.
import type { TunnelInfo } from '../types.js';
import { Access } from '../settings/Access.js';
import { Keys } from '../settings/Keys.js';
import { Upstreams } from '../settings/Upstreams.js';
import { Webhooks } from '../settings/Webhooks.js';

export function Settings({ tunnel, onSaved }: { tunnel: TunnelInfo; onSaved: () => void }) {
  return (
    <section aria-label="Settings" class="settings">
      <Upstreams tunnel={tunnel} />
      <Access tunnel={tunnel} onSaved={onSaved} />
      <Webhooks tunnel={tunnel} />
      <Keys />
    </section>
  );
}
