// API keys of the account (T1): create with a name (the key is shown once), list, revoke (after a confirmation:
// the key is refused at once and the tunnels connected with it close, perhaps the one being viewed).
import { useState } from 'preact/hooks';
import { api, describeError } from '../api.js';
import { dateTime } from '../format.js';
import { useLoad } from '../hooks.js';

export function Keys() {
  const { value, error, reload } = useLoad(() => api.keys().then((r) => r.keys), []);
  const [name, setName] = useState('');
  const [shown, setShown] = useState<string | undefined>(undefined);
  const [failed, setFailed] = useState<string | undefined>(undefined);
  const [confirming, setConfirming] = useState<string | undefined>(undefined);
  const create = async (ev: Event) => {
    ev.preventDefault();
    try {
      setShown((await api.createKey(name.trim())).key);
      setName('');
      setFailed(undefined);
      reload();
    } catch (err) {
      setFailed(describeError(err));
    }
  };
  const revoke = (id: string) => {
    setConfirming(undefined);
    return api.revokeKey(id).then(reload, (err: unknown) => setFailed(describeError(err)));
  };
  return (
    <div class="card" aria-label="API keys">
      <h2>API keys</h2>
      {(error ?? failed) && <p class="error">{error ?? failed}</p>}
      {shown && (
        <p class="ok-note">
          New key (shown once, copy it now):{' '}
          <code class="mono secret" data-secret="key">
            {shown}
          </code>
        </p>
      )}
      <table class="grid">
        <thead>
          <tr>
            <th>Name</th>
            <th>Id</th>
            <th>Created</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(value ?? []).map((k) => (
            <tr key={k.id} data-key={k.id} data-name={k.name ?? ''}>
              <td>{k.name}</td>
              <td class="mono small">{k.id}</td>
              <td class="small" title={k.createdAt}>
                {dateTime(k.createdAt)}
              </td>
              <td>
                {confirming === k.id ? (
                  <span class="confirm">
                    <span class="small">Refused at once; tunnels connected with it close.</span>{' '}
                    <button class="danger" onClick={() => void revoke(k.id)}>
                      Confirm revoke
                    </button>{' '}
                    <button class="ghost" onClick={() => setConfirming(undefined)}>
                      Cancel
                    </button>
                  </span>
                ) : (
                  <button
                    class="danger"
                    aria-label={`Revoke ${k.name ?? k.id}`}
                    onClick={() => setConfirming(k.id)}
                  >
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form class="inline" onSubmit={(ev) => void create(ev)}>
        <input
          name="keyName"
          placeholder="name, e.g. laptop"
          value={name}
          onInput={(ev) => setName(ev.currentTarget.value)}
          required
        />
        <button type="submit">Create key</button>
      </form>
    </div>
  );
}
