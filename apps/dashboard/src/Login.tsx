// The login page: the account's password (T1) → `POST /api/session` → an HttpOnly session cookie and a CSRF token.
import { useState } from 'preact/hooks';
import { api, describeError } from './api.js';
import type { Session } from './types.js';

export function Login({
  onSession,
  notice,
}: {
  onSession: (s: Session) => void;
  notice?: string | undefined;
}) {
  const [account, setAccount] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const submit = async (ev: Event) => {
    ev.preventDefault();
    setBusy(true);
    try {
      onSession(await api.login(account.trim(), password));
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="login">
      <form class="card" onSubmit={(ev) => void submit(ev)} aria-label="Sign in">
        <h1>mcppipe</h1>
        <p class="muted">Sign in with your relay account to watch your tunnels.</p>
        {notice && (
          <p class="error" role="status">
            {notice}
          </p>
        )}
        <label>
          Account
          <input
            name="account"
            autoComplete="username"
            value={account}
            onInput={(ev) => setAccount(ev.currentTarget.value)}
            required
          />
        </label>
        <label>
          Password
          <input
            name="password"
            type="password"
            autoComplete="current-password"
            value={password}
            onInput={(ev) => setPassword(ev.currentTarget.value)}
            required
          />
        </label>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
