// The Upstreams section (seed 000, E2): one row per backend the CLI multiplexes — name, phase badge, last change,
// last error, Reconnect for `failed` — live over `…/upstreams/stream`, read again when the tunnel reconnects; hidden
// for single-upstream tunnels. While a multi-upstream tunnel is offline (the tunnel list keeps the upstream count
// of its last connection) the section stays, saying why it is empty.
import { useState } from 'preact/hooks';
import { api, describeError } from '../api.js';
import { clock } from '../format.js';
import { useEventStream, useLoad } from '../hooks.js';
import type { TunnelInfo, UpstreamRow } from '../types.js';

interface StateChanged {
  data?: { upstream?: string; to?: string; at?: number | string; error?: string | null };
}

export function Upstreams({ tunnel }: { tunnel: TunnelInfo }) {
  const { value, error, reload, setValue } = useLoad(
    () => api.upstreams(tunnel.id).then((r) => r.upstreams),
    [tunnel.id, tunnel.connected],
  );
  const [failed, setFailed] = useState<string | undefined>(undefined);
  const live = useEventStream(api.upstreamStreamUrl(tunnel.id), ['upstream.state_changed'], {
    onOpen: reload,
    onEvent: (_type, event) => {
      const d = (event as StateChanged).data;
      // an upstream not listed yet (the list read as the tunnel reconnected): read it again
      if (!d?.upstream || !d.to || !value?.some((u) => u.name === d.upstream)) return reload();
      const at = new Date(d.at ?? Date.now()).toISOString();
      const patch = (u: UpstreamRow): UpstreamRow =>
        u.name === d.upstream ? { ...u, phase: d.to!, lastChange: at, lastError: d.error ?? u.lastError } : u;
      setValue((rows) => rows?.map(patch));
    },
  });
  const reconnect = (name: string) =>
    api.reconnect(tunnel.id, name).then(
      () => (setFailed(undefined), reload()),
      (err: unknown) => setFailed(describeError(err)),
    );
  if (error) return <p class="error">{error}</p>;
  const offline = !tunnel.connected && tunnel.upstreams > 0;
  if (!offline && (!value || value.length === 0)) return null; // single-upstream tunnel: nothing to aggregate
  return (
    <div class="card" aria-label="Upstreams" data-section="upstreams">
      <h2>
        Upstreams{' '}
        <span
          class={live && !offline ? 'dot on' : 'dot'}
          title={offline ? 'tunnel offline' : live ? 'live' : 'connecting'}
        />
      </h2>
      {failed && <p class="error">{failed}</p>}
      {offline || !value ? (
        <p class="muted">The tunnel is offline: upstreams are shown when it reconnects.</p>
      ) : (
        <table class="grid">
          <thead>
            <tr>
              <th>Name</th>
              <th>Phase</th>
              <th>Last change</th>
              <th>Last error</th>
              <th class="num">Tools</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {value.map((u) => (
              <tr key={u.name} data-upstream={u.name}>
                <td class="mono">{u.name}</td>
                <td>
                  <span class={`badge phase-${u.phase}`} data-phase={u.phase}>
                    {u.phase}
                  </span>
                </td>
                <td>{clock(u.lastChange)}</td>
                <td class="small">{u.lastError ?? ''}</td>
                <td class="num">
                  {u.tools}
                  {u.changedTools > 0 && <span class="tag warn">{u.changedTools} changed</span>}
                </td>
                <td>
                  {u.phase === 'failed' && <button onClick={() => void reconnect(u.name)}>Reconnect</button>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
