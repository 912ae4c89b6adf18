// Live (D2): the tunnel's exchanges as they happen over SSE, newest first; filters by upstream, method, status and
// caller (sent to the API for the backlog, applied to the stream the same way; their choices come from every row
// seen); pause holds new rows back: every row that arrives while paused is held (whatever the filters), the newest
// KEEP of them (memory) and a count of the older ones, which the button and, after Resume, a line report; a reload
// while paused leaves the held ones out, and Resume shows those matching the filters in force then, each once.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, describeError } from '../api.js';
import {
  NOTHING_HELD,
  NO_CHOICES,
  count,
  droppedMatching,
  filterQuery,
  hold,
  matches,
  resumeRows,
  withChoices,
} from '../format.js';
import type { LiveFilters } from '../format.js';
import { useEventStream } from '../hooks.js';
import type { ExchangeSummary, TunnelInfo } from '../types.js';
import { ExchangeTable } from '../ui/ExchangeTable.js';
import { LiveFilterBar } from '../ui/LiveFilterBar.js';

/** The most rows shown, and the most held back while paused. */
const KEEP = 500;
const NONE: LiveFilters = { upstream: '', method: '', status: '', caller: '' };

export function Live({ tunnel }: { tunnel: TunnelInfo }) {
  const [filters, setFilters] = useState(NONE);
  const [rows, setRows] = useState<ExchangeSummary[]>([]);
  const [held, setHeld] = useState(NOTHING_HELD);
  const [paused, setPaused] = useState(false);
  const [notListed, setNotListed] = useState(0);
  const [choices, setChoices] = useState(NO_CHOICES);
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
        const hold = new Set(pausedRef.current ? heldRef.current.rows.map((x) => x.id) : []);
        seen.current = new Set([...hold, ...r.exchanges.map((x) => x.id)]);
        setRows(r.exchanges.filter((x) => !hold.has(x.id)));
        setChoices((c) => withChoices(c, r.exchanges));
        setError(undefined);
      },
      (err: unknown) => setError(describeError(err)),
    );
  useEffect(() => void load(), [tunnel.id, filters]);

  const connected = useEventStream(api.exchangeStreamUrl(tunnel.id), ['exchange'], {
    onEvent: (_type, data) => {
      const x = data as ExchangeSummary;
      if (seen.current.has(x.id)) return;
      setChoices((c) => withChoices(c, [x]));
      if (pausedRef.current) {
        seen.current.add(x.id);
        setHeld((h) => hold(h, x, KEEP));
      } else if (matches(x, filtersRef.current)) {
        seen.current.add(x.id);
        setRows((r) => [x, ...r].slice(0, KEEP));
      }
    },
  });
  const pause = () => (setPaused(true), setNotListed(0));
  const resume = () => {
    setRows((r) => resumeRows(held.rows, r, filters).slice(0, KEEP));
    setNotListed(droppedMatching(held, filters));
    setHeld(NOTHING_HELD);
    setPaused(false);
  };

  const waiting = held.rows.filter((x) => matches(x, filters)).length;
  const older = droppedMatching(held, filters);
  const filtered = Object.values(filters).some(Boolean);

  return (
    <section aria-label="Live">
      <div class="toolbar">
        <LiveFilterBar tunnel={tunnel} choices={choices} filters={filters} onChange={setFilters} />
        <span class="spacer" />
        <span
          class={connected && tunnel.connected ? 'dot on' : 'dot'}
          title={!tunnel.connected ? 'tunnel offline' : connected ? 'streaming' : 'connecting'}
        />
        {paused ? (
          <button onClick={resume}>
            Resume
            {older > 0
              ? ` (${count(waiting)} newest of ${count(waiting + older)} new)`
              : waiting > 0 && ` (${count(waiting)} new)`}
          </button>
        ) : (
          <button onClick={pause}>Pause</button>
        )}
      </div>
      {error && <p class="error">{error}</p>}
      {notListed > 0 && (
        <p class="muted small" data-note="not-listed">
          {count(notListed)} older exchanges from the pause are not listed here; the tunnel's history keeps
          the most recent (<code>GET /api/tunnels/{tunnel.id}/exchanges</code>).
        </p>
      )}
      <ExchangeTable tunnel={tunnel} rows={rows} />
      {rows.length === 0 &&
        !error &&
        (filtered ? (
          <p class="muted">
            No exchanges match these filters.{' '}
            <button class="ghost" onClick={() => setFilters(NONE)}>
              Clear filters
            </button>
          </p>
        ) : (
          <p class="muted">No exchanges yet: make a call through the tunnel.</p>
        ))}
    </section>
  );
}
