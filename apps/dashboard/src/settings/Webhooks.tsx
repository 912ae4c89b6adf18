// Webhooks of the tunnel (E3): add (URL and event types; the signing secret shown once), remove, delivery log
// (newest first by when each delivery was created, the time shown; refreshed every few seconds while shown, and on
// demand).
import { useEffect, useState } from 'preact/hooks';
import { api, describeError } from '../api.js';
import { clock } from '../format.js';
import { useLoad } from '../hooks.js';
import type { TunnelInfo, Webhook } from '../types.js';

const TYPES = ['upstream.state_changed', 'tunnel.connected', 'tunnel.disconnected', 'tool.changed'];
/** How often a shown delivery log is fetched again, ms (retries change it without an event to us). */
const DELIVERIES_REFRESH_MS = 3000;

function DeliveryLog({ tunnel, hook }: { tunnel: TunnelInfo; hook: Webhook }) {
  const { value, error, reload } = useLoad(
    () => api.deliveries(tunnel.id, hook.id).then((r) => r.deliveries),
    [hook.id],
  );
  useEffect(() => {
    const timer = setInterval(reload, DELIVERIES_REFRESH_MS);
    return () => clearInterval(timer);
  }, [reload]);
  if (error) return <p class="error">{error}</p>;
  return (
    <div class="deliveries" aria-label="Delivery log">
      <button class="ghost small" onClick={reload}>
        ↻ deliveries
      </button>
      {value && value.length === 0 && <span class="muted small"> none yet</span>}
      {value?.map((d) => (
        <div key={`${d.eventId}`} class="small mono" data-delivery={d.eventType} data-status={d.status}>
          <span title={`last attempt ${clock(d.updatedAt)}`}>{clock(d.createdAt)}</span> {d.eventType}{' '}
          <span class={d.status === 'delivered' ? 'status ok' : 'status bad'}>{d.status}</span> ×{d.attempts}{' '}
          {d.statusCode ?? ''} {d.error ?? ''}
        </div>
      ))}
    </div>
  );
}

export function Webhooks({ tunnel }: { tunnel: TunnelInfo }) {
  const { value, error, reload } = useLoad(
    () => api.webhooks(tunnel.id).then((r) => r.webhooks),
    [tunnel.id],
  );
  const [url, setUrl] = useState('');
  const [types, setTypes] = useState<string[]>(['upstream.state_changed']);
  const [secret, setSecret] = useState<string | undefined>(undefined);
  const [failed, setFailed] = useState<string | undefined>(undefined);
  const add = async (ev: Event) => {
    ev.preventDefault();
    try {
      setSecret((await api.addWebhook(tunnel.id, url.trim(), types)).secret);
      setUrl('');
      setFailed(undefined);
      reload();
    } catch (err) {
      setFailed(describeError(err));
    }
  };
  const remove = (id: string) =>
    api.removeWebhook(tunnel.id, id).then(reload, (err: unknown) => setFailed(describeError(err)));
  const toggle = (t: string) => setTypes(types.includes(t) ? types.filter((x) => x !== t) : [...types, t]);
  return (
    <div class="card" aria-label="Webhooks">
      <h2>Webhooks</h2>
      {(error ?? failed) && <p class="error">{error ?? failed}</p>}
      {secret && (
        <p class="ok-note">
          Signing secret (shown once):{' '}
          <code class="mono secret" data-secret="webhook">
            {secret}
          </code>
        </p>
      )}
      {(value ?? []).map((w) => (
        <div key={w.id} class="webhook" data-webhook={w.id}>
          <strong class="mono">{w.url}</strong> <span class="muted small">{w.events.join(', ')}</span>{' '}
          <button class="danger" onClick={() => void remove(w.id)}>
            Remove
          </button>
          <DeliveryLog tunnel={tunnel} hook={w} />
        </div>
      ))}
      <form class="inline" onSubmit={(ev) => void add(ev)}>
        <input
          name="webhookUrl"
          type="url"
          placeholder="e.g. https://example.com/hook"
          value={url}
          onInput={(ev) => setUrl(ev.currentTarget.value)}
          required
        />
        {TYPES.map((t) => (
          <label key={t} class="check small">
            <input
              type="checkbox"
              name="webhookEvent"
              value={t}
              checked={types.includes(t)}
              onChange={() => toggle(t)}
            />
            {t}
          </label>
        ))}
        <button type="submit">Add webhook</button>
      </form>
    </div>
  );
}
