// Inspector (D2): one exchange — request and response JSON with folding (a call's arguments and result content
// start open), timing, the nested server→client requests (sampling, elicitation) under their call, and replay of
// an editable copy, shown as a new exchange.
import { api } from '../api.js';
import { bytes, clock, ms, statusClass, statusLabel } from '../format.js';
import { href, useLoad } from '../hooks.js';
import type { TunnelInfo } from '../types.js';
import { Json } from '../ui/Json.js';
import { Replay } from '../ui/Replay.js';

export function Inspector({ tunnel, exchange }: { tunnel: TunnelInfo; exchange: string | undefined }) {
  const { value: x, error } = useLoad(
    () => (exchange ? api.exchange(tunnel.id, exchange) : Promise.resolve(undefined)),
    [tunnel.id, exchange],
  );
  if (!exchange) return <p class="muted">Pick an exchange in the Live tab to inspect it.</p>;
  if (error) return <p class="error">{error}</p>;
  if (!x) return <p class="muted">Loading…</p>;
  return (
    <section aria-label="Inspector" class="inspector">
      <h2 class="mono">
        {x.method ?? 'request'} {x.name && <span>{x.name}</span>}{' '}
        <span class={`status ${statusClass(x.status)}`}>{statusLabel(x.status)}</span>
      </h2>
      <dl class="facts">
        <dt>Exchange</dt>
        <dd class="mono">{x.id}</dd>
        <dt>At</dt>
        <dd>
          {clock(x.at)} <span class="muted small">{x.at}</span>
        </dd>
        <dt>Caller</dt>
        <dd>{x.caller ?? '–'}</dd>
        <dt>Upstream</dt>
        <dd>{x.upstream ?? '–'}</dd>
        <dt>Duration</dt>
        <dd class="timing">{ms(x.durationMs)}</dd>
        <dt>Bytes</dt>
        <dd>
          {bytes(x.requestBytes)} in / {bytes(x.responseBytes)} out
        </dd>
        {x.replayOf && (
          <>
            <dt>Replay of</dt>
            <dd>
              <a href={href({ tunnel: tunnel.id, tab: 'inspector', exchange: x.replayOf })}>{x.replayOf}</a>
            </dd>
          </>
        )}
      </dl>
      <p class="muted small">
        Unless capture of values is on for this tunnel (Settings), argument values, sampling messages and
        answers from the client are redacted; results are kept as the server sent them.
      </p>
      <div class="split">
        <div>
          <h3>Request{x.truncated.request && <span class="tag">truncated</span>}</h3>
          <Json value={x.request} unfold={['params', 'arguments']} />
        </div>
        <div>
          <h3>Response{x.truncated.response && <span class="tag">truncated</span>}</h3>
          <Json value={x.response} unfold={['result', 'content']} />
        </div>
      </div>
      {x.children.length > 0 && (
        <div class="children">
          <h3>Server → client requests during this call</h3>
          {x.children.map((c, i) => (
            <div key={i} class="child card">
              <strong class="mono">{c.method}</strong>
              <div class="split">
                <Json value={c.request} depth={2} />
                <Json value={c.response} depth={2} />
              </div>
            </div>
          ))}
        </div>
      )}
      {x.request !== undefined && x.request !== null && <Replay key={x.id} tunnel={tunnel} exchange={x} />}
    </section>
  );
}
