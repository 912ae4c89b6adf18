// The Live filters: upstream, method, status, caller. Choices come from the tunnel's upstreams and the rows seen.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import type { LiveFilters, StatusFilter } from '../format.js';
import type { ExchangeSummary, TunnelInfo } from '../types.js';

const uniq = (values: (string | null)[]) => [...new Set(values.filter((v): v is string => !!v))].sort();

interface Props {
  tunnel: TunnelInfo;
  rows: ExchangeSummary[];
  filters: LiveFilters;
  onChange: (f: LiveFilters) => void;
}

export function LiveFilterBar({ tunnel, rows, filters, onChange }: Props) {
  const [known, setKnown] = useState<string[]>([]);
  useEffect(() => {
    api.upstreams(tunnel.id).then(
      (r) => setKnown(r.upstreams.map((u) => u.name)),
      () => setKnown([]),
    );
  }, [tunnel.id]);
  const choose = (field: keyof LiveFilters, all: (string | null)[], label: string) => (
    <label>
      {label}
      <select
        name={field}
        value={filters[field]}
        onChange={(ev) => onChange({ ...filters, [field]: ev.currentTarget.value })}
      >
        <option value="">all</option>
        {uniq([...all, filters[field]]).map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <div class="filters">
      {choose('upstream', [...known, ...rows.map((r) => r.upstream)], 'Upstream')}
      {choose(
        'method',
        rows.map((r) => r.method),
        'Method',
      )}
      <label>
        Status
        <select
          name="status"
          value={filters.status}
          onChange={(ev) => onChange({ ...filters, status: ev.currentTarget.value as StatusFilter })}
        >
          <option value="">all</option>
          <option value="ok">ok</option>
          <option value="error">error</option>
          <option value="isError">isError</option>
        </select>
      </label>
      {choose(
        'caller',
        rows.map((r) => r.caller),
        'Caller',
      )}
    </div>
  );
}
