// The Live filters: upstream, method, status, caller. Choices come from the tunnel's upstreams and every row seen
// (`withChoices`: the rows the filters hide too, so a filter never leaves only `all` to pick).
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import type { FilterChoices, LiveFilters, StatusFilter } from '../format.js';
import type { TunnelInfo } from '../types.js';

const uniq = (values: readonly (string | null)[]) =>
  [...new Set(values.filter((v): v is string => !!v))].sort();

interface Props {
  tunnel: TunnelInfo;
  choices: FilterChoices;
  filters: LiveFilters;
  onChange: (f: LiveFilters) => void;
}

export function LiveFilterBar({ tunnel, choices, filters, onChange }: Props) {
  const [known, setKnown] = useState<string[]>([]);
  useEffect(() => {
    api.upstreams(tunnel.id).then(
      (r) => setKnown(r.upstreams.map((u) => u.name)),
      () => setKnown([]),
    );
  }, [tunnel.id]);
  const choose = (field: keyof LiveFilters, all: readonly (string | null)[], label: string) => (
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
      {choose('upstream', [...known, ...choices.upstream], 'Upstream')}
      {choose('method', choices.method, 'Method')}
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
      {choose('caller', choices.caller, 'Caller')}
    </div>
  );
}
