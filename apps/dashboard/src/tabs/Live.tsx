// Live (D2): the tunnel's exchanges as they happen over SSE, newest first; filters by upstream, method, status and
// caller (sent to the API for the backlog, applied to the stream the same way); pause holds new rows back: every
// row that arrives while paused is held (whatever the filters), a reload while paused leaves the held ones out, and
// Resume shows those matching the filters in force then, each once.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, describeError } from '../api.js';
import { filterQuery, matches, resumeRows } from '../format.js';
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

  const heldRef = useRef(held);
  heldRef.current = held;

  const load = () =>
    api.exchanges(tunnel.id, filterQuery(filters, 100)).then(
      (r) => {
        // while paused, the rows that came in since stay held back (a filter change must not show them early)
        const hold = new Set(pausedRef.current ? heldRef.current.map((x) => x.id) : []);
        seen.current = new Set([...hold, ...r.exchanges.map((x) => x.id)]);
        setRows(r.exchanges.filter((x) => !hold.has(x.id)));
        setError(undefined);
      },
      (err: unknown) => setError(describeError(err)),
    );
  useEffect(() => void load(), [tunnel.id, filters]);

  const connected = useEventStream(api.exchangeStreamUrl(tunnel.id), ['exchange'], {
    onEvent: (_type, data) => {
      const x = data as ExchangeSummary;
      if (seen.current.has(x.id)) return;
      if (pausedRef.current) {
        seen.current.add(x.id);
        setHeld((h) => [x, ...h].slice(0, KEEP));
      } else if (matches(x, filtersRef.current)) {
        seen.current.add(x.id);
        setRows((r) => [x, ...r].slice(0, KEEP));
      }
    },
  });
  const resume = () => {
    setRows((r) => resumeRows(held, r, filters).slice(0, KEEP));
    setHeld([]);
    setPaused(false);
  };

  const waiting = held.filter((x) => matches(x, filters)).length;

  return (
    <section aria-label="Live">
      <div class="toolbar">
        <LiveFilterBar tunnel={tunnel} rows={rows} filters={filters} onChange={setFilters} />
        <span class="spacer" />
        <span
          class={connected && tunnel.connected ? 'dot on' : 'dot'}
          title={!tunnel.connected ? 'tunnel offline' : connected ? 'streaming' : 'connecting'}
        />
        {paused ? (
          <button onClick={resume}>Resume{waiting > 0 && ` (${waiting} new)`}</button>
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
