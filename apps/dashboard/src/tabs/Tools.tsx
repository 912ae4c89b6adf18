// Tools (D2): per tool, grouped by upstream — calls, error rate (JSON-RPC errors and isError results), p50/p95/p99
// over 1 h or 24 h (approximate, shown ≈: a histogram's), the `changed` marker of the tool pins (E4) with Accept, and stars (starred first).
import { useState } from 'preact/hooks';
import { api, describeError } from '../api.js';
import { approxMs, exposedName } from '../format.js';
import { useLoad } from '../hooks.js';
import type { ToolStats, TunnelInfo } from '../types.js';

const WINDOWS = ['1h', '24h'] as const;

function groups(tools: ToolStats[]): [string, ToolStats[]][] {
  const by = new Map<string, ToolStats[]>();
  for (const t of tools) by.set(t.upstream ?? '', [...(by.get(t.upstream ?? '') ?? []), t]);
  const order = (a: ToolStats, b: ToolStats) =>
    Number(b.pinned) - Number(a.pinned) || a.name.localeCompare(b.name);
  return [...by.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([u, ts]) => [u, ts.sort(order)]);
}

export function Tools({ tunnel }: { tunnel: TunnelInfo }) {
  const [win, setWin] = useState<(typeof WINDOWS)[number]>('1h');
  const { value, error, reload } = useLoad(() => api.stats(tunnel.id, win), [tunnel.id, win]);
  const [failed, setFailed] = useState<string | undefined>(undefined);
  const act = (p: Promise<unknown>) =>
    p.then(
      () => (setFailed(undefined), reload()),
      (err: unknown) => setFailed(describeError(err)),
    );
  return (
    <section aria-label="Tools">
      <div class="toolbar">
        <label>
          Window
          <select name="window" value={win} onChange={(ev) => setWin(ev.currentTarget.value as '1h' | '24h')}>
            {WINDOWS.map((w) => (
              <option key={w} value={w}>
                {w === '1h' ? 'last hour' : 'last 24 hours'}
              </option>
            ))}
          </select>
        </label>
        <button class="ghost" onClick={reload}>
          ↻ Refresh
        </button>
      </div>
      {(error ?? failed) && <p class="error">{error ?? failed}</p>}
      {value && value.tools.length === 0 && <p class="muted">No calls in this window yet.</p>}
      {value &&
        groups(value.tools).map(([upstream, tools]) => (
          <div key={upstream} class="group" data-upstream={upstream}>
            <h3>{upstream || '(single upstream)'}</h3>
            <table class="grid">
              <thead>
                <tr>
                  <th />
                  <th>Tool</th>
                  <th class="num">Calls</th>
                  <th class="num">Error rate</th>
                  <th class="num">p50</th>
                  <th class="num">p95</th>
                  <th class="num">p99</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {tools.map((t) => {
                  const name = exposedName(t.upstream, t.name);
                  return (
                    <tr key={name} data-tool={name}>
                      <td>
                        <button
                          class={t.pinned ? 'star on' : 'star'}
                          aria-pressed={t.pinned}
                          title={t.pinned ? 'Unstar' : 'Star (starred tools come first)'}
                          onClick={() => act(api.star(tunnel.id, name, !t.pinned))}
                        >
                          {t.pinned ? '★' : '☆'}
                        </button>
                      </td>
                      <td class="mono">{name}</td>
                      <td class="num">{t.calls}</td>
                      <td class="num">
                        {(t.errorRate * 100).toFixed(1)} % <span class="muted small">({t.errors})</span>
                      </td>
                      <td class="num">{approxMs(t.p50)}</td>
                      <td class="num">{approxMs(t.p95)}</td>
                      <td class="num">{approxMs(t.p99)}</td>
                      <td>
                        {t.changed && (
                          <>
                            <span
                              class="tag warn"
                              title="The definition differs from its pin: review, then Accept"
                            >
                              changed
                            </span>
                            <button class="ghost" onClick={() => act(api.accept(tunnel.id, name))}>
                              Accept
                            </button>
                          </>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        ))}
    </section>
  );
}
