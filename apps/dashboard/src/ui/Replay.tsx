// Replay (D2): an editable copy of the request, sent through the same tunnel as the owner
// (`POST …/exchanges/:eid/replay`); the answer is the new exchange, which the Inspector then shows.
import { useState } from 'preact/hooks';
import { api, describeError } from '../api.js';
import { go } from '../hooks.js';
import type { ExchangeDetail, TunnelInfo } from '../types.js';

export function Replay({ tunnel, exchange }: { tunnel: TunnelInfo; exchange: ExchangeDetail }) {
  const original = JSON.stringify(exchange.request, null, 2);
  const [text, setText] = useState(original);
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const send = async () => {
    let request: unknown; // unedited: none, so the relay replays the original (its values were redacted here)
    try {
      request = text === original ? undefined : JSON.parse(text);
    } catch (err) {
      return setError(`The copy is not valid JSON: ${(err as Error).message}`);
    }
    setBusy(true);
    try {
      const created = await api.replay(tunnel.id, exchange.id, request);
      go({ tunnel: tunnel.id, tab: 'inspector', exchange: created.id });
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="replay card">
      <h3>Replay</h3>
      <p class="muted small">
        Edit the copy and send it through this tunnel as you; it is recorded as a new exchange.
        {' Redacted arguments you leave as shown are sent with their original values.'}
      </p>
      <textarea
        name="replay"
        class="mono"
        rows={10}
        spellcheck={false}
        value={text}
        onInput={(ev) => setText(ev.currentTarget.value)}
      />
      {error && <p class="error">{error}</p>}
      {!tunnel.connected && (
        <p class="muted small offline">The tunnel is offline: replay needs it connected.</p>
      )}
      <button onClick={() => void send()} disabled={busy || !tunnel.connected}>
        Replay
      </button>
    </div>
  );
}
