// Live (D2): the tunnel's exchanges as they happen over SSE, newest first; filters by upstream, method, status and
// caller (sent to the API for the backlog, applied to the stream the same way); pause holds new rows back.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, describeError } from '../api.js';
import { filterQuery, matches } from '../format.js';
import type { LiveFilters } from '../format.js';
import { useEventStream } from '../hooks.js';
import type { ExchangeSummary, TunnelInfo } from '../types.js';
import { ExchangeTable } from '../ui/ExchangeTable.js';
import { LiveFilterBar } from '../ui/LiveFilterBar.js';

const KEEP = 500;
const NONE: LiveFilters = { upstream: '', method: '', status: '', caller: '' };

export function Live({ tunnel }: { tunnel: TunnelInfo }) {
  const [filters, setFilters] = useState(NONE);
  const [rows, setRows] = useState<ExchangeSummary[]>([]);
  const [held, setHeld] = useState<ExchangeSummary[]>([]);
  const [paused, setPaused] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const seen = useRef(new Set<string>());
  const pausedRef = useRef(paused);
  pausedRef.current = paused;
  const filtersRef = useRef(filters);
  filtersRef.current = filters;

  const load = () =>
    api.exchanges(tunnel.id, filterQuery(filters, 100)).then(
      (r) => {
        seen.current = new Set(r.exchanges.map((x) => x.id));
        setRows(r.exchanges);
        setError(undefined);
      },
      (err: unknown) => setError(describeError(err)),
    );
  useEffect(() => void load(), [tunnel.id, filters]);

  const connected = useEventStream(api.exchangeStreamUrl(tunnel.id), ['exchange'], {
    onEvent: (_type, data) => {
      const x = data as ExchangeSummary;
      if (seen.current.has(x.id) || !matches(x, filtersRef.current)) return;
      seen.current.add(x.id);
      if (pausedRef.current) setHeld((h) => [x, ...h]);
      else setRows((r) => [x, ...r].slice(0, KEEP));
    },
  });
  const resume = () => {
    setRows((r) => [...held, ...r].slice(0, KEEP));
    setHeld([]);
    setPaused(false);
  };

  return (
    <section aria-label="Live">
      <div class="toolbar">
        <LiveFilterBar tunnel={tunnel} rows={rows} filters={filters} onChange={setFilters} />
        <span class="spacer" />
        <span class={connected ? 'dot on' : 'dot'} title={connected ? 'streaming' : 'connecting'} />
        {paused ? (
          <button onClick={resume}>Resume{held.length > 0 && ` (${held.length} new)`}</button>
        ) : (
          <button onClick={() => setPaused(true)}>Pause</button>
        )}
      </div>
      {error && <p class="error">{error}</p>}
      <ExchangeTable tunnel={tunnel} rows={rows} />
      {rows.length === 0 && !error && <p class="muted">No exchanges yet: make a call through the tunnel.</p>}
    </section>
  );
}
