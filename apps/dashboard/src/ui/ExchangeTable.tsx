// The exchange list of the Live tab: time, caller, method, `upstream__tool`, status, duration, bytes (D2).
import { bytes, clock, ms, statusClass, statusLabel } from '../format.js';
import { href } from '../hooks.js';
import type { ExchangeSummary, TunnelInfo } from '../types.js';

export function ExchangeTable({ tunnel, rows }: { tunnel: TunnelInfo; rows: ExchangeSummary[] }) {
  return (
    <table class="grid exchanges">
      <thead>
        <tr>
          <th>Time</th>
          <th>Caller</th>
          <th>Method</th>
          <th>Name</th>
          <th>Upstream</th>
          <th>Status</th>
          <th class="num">Duration</th>
          <th class="num">Bytes in / out</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((x) => (
          <tr key={x.id} data-exchange={x.id} data-upstream={x.upstream ?? ''}>
            <td>
              <a href={href({ tunnel: tunnel.id, tab: 'inspector', exchange: x.id })}>{clock(x.at)}</a>
            </td>
            <td>{x.caller ?? '–'}</td>
            <td>{x.method ?? '–'}</td>
            <td class="mono">
              {x.name ?? ''}
              {x.replayOf && <span class="tag">replay</span>}
            </td>
            <td>{x.upstream ?? ''}</td>
            <td>
              <span class={`status ${statusClass(x.status)}`}>{statusLabel(x.status)}</span>
            </td>
            <td class="num">{ms(x.durationMs)}</td>
            <td class="num">
              {bytes(x.requestBytes)} / {bytes(x.responseBytes)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
