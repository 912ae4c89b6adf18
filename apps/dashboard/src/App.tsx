// The session gate: `GET /api/session?optional=1` (204 without a session, no 401) decides between the login page and the dashboard (DESIGN.md D1).
import { useEffect, useState } from 'preact/hooks';
import { api, onSessionEnded, setCsrf } from './api.js';
import { Login } from './Login.js';
import { Shell } from './Shell.js';
import type { Session } from './types.js';

export function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [ended, setEnded] = useState(false);
  useEffect(() => {
    api.session().then(
      (s) => (s ? (setCsrf(s.csrf), setSession(s)) : setSession(null)),
      () => setSession(null),
    );
    // a call answered 401 while signed in: the server no longer knows this session
    onSessionEnded(() => (setCsrf(undefined), setEnded(true), setSession(null)));
    return () => onSessionEnded(undefined);
  }, []);
  const signedIn = (s: Session) => (setCsrf(s.csrf), setEnded(false), setSession(s));
  const signOut = async () => {
    await api.logout().catch(() => undefined);
    setCsrf(undefined);
    // the route names this account's tunnel: the next account to sign in starts from its own tunnels
    history.replaceState(null, '', location.pathname + location.search);
    setSession(null);
  };
  if (session === undefined) return <p class="muted pad">Loading…</p>;
  if (session === null)
    return <Login onSession={signedIn} notice={ended ? 'Your session ended: sign in again.' : undefined} />;
  return <Shell session={session} onSignOut={() => void signOut()} />;
}
