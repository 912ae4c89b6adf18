// The one HTTP client of the dashboard: same-origin JSON calls to /api, the session cookie sent by the browser, and
// the session's CSRF token in `x-csrf-token` on every state-changing call (POST, PUT, PATCH, DELETE).
import type {
  ApiKey,
  Delivery,
  ExchangeDetail,
  ExchangeSummary,
  Session,
  ToolStats,
  TunnelInfo,
  TunnelSettings,
  UpstreamRow,
  Webhook,
} from './types.js';

/** A non-2xx answer: the HTTP status and the API's `{error, message}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * No answer from the gateway: the request failed on the network (the process is down or unreachable) or a proxy in
 * front of it answered 502, 503 or 504 without the API's `{error}` body.
 */
export class Unreachable extends Error {
  constructor() {
    super('The gateway is not answering');
  }
}

let csrf: string | undefined;
let sessionEnded: (() => void) | undefined;

/**
 * Called when a signed-in call is answered 401: the session ended on the server (a gateway restart without a
 * shared store, a logout elsewhere, the expiry). The page goes back to the login instead of showing stale data.
 */
export function onSessionEnded(fn: (() => void) | undefined): void {
  sessionEnded = fn;
}

/** Remembers the session's CSRF token (after login or `GET /api/session`); `undefined` after logout. */
export function setCsrf(token: string | undefined): void {
  csrf = token;
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrf !== undefined) headers['x-csrf-token'] = csrf;
  const res = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    ...(body !== undefined && { body: JSON.stringify(body) }),
  }).catch(() => {
    throw new Unreachable();
  });
  if (res.status === 204) return undefined as T;
  const data = (await res.json().catch(() => ({}))) as { error?: string; message?: string };
  if (res.status >= 502 && res.status <= 504 && data.error === undefined) throw new Unreachable();
  if (res.status === 401 && !path.startsWith('/api/session')) sessionEnded?.();
  if (!res.ok)
    throw new ApiError(res.status, data.error ?? `http_${res.status}`, data.message ?? res.statusText);
  return data as T;
}

const t = (id: string) => `/api/tunnels/${encodeURIComponent(id)}`;
const e = encodeURIComponent;

/** Every route the dashboard uses, one function each (docs/api.md). */
export const api = {
  // 204 (undefined) without a session, rather than a 401 the browser would log as an error
  session: () => call<Session | undefined>('GET', '/api/session?optional=1'),
  login: (account: string, password: string) => call<Session>('POST', '/api/session', { account, password }),
  logout: () => call<void>('DELETE', '/api/session'),
  tunnels: () => call<{ tunnels: TunnelInfo[] }>('GET', '/api/tunnels'),
  upstreams: (id: string) => call<{ upstreams: UpstreamRow[] }>('GET', `${t(id)}/upstreams`),
  reconnect: (id: string, name: string) =>
    call<{ name: string; phase: string }>('POST', `${t(id)}/upstreams/${e(name)}/reconnect`),
  exchanges: (id: string, query: Record<string, string>) =>
    call<{ exchanges: ExchangeSummary[] }>(
      'GET',
      `${t(id)}/exchanges?${new URLSearchParams(query).toString()}`,
    ),
  exchange: (id: string, eid: string) => call<ExchangeDetail>('GET', `${t(id)}/exchanges/${e(eid)}`),
  replay: (id: string, eid: string, request: unknown) =>
    call<ExchangeSummary>(
      'POST',
      `${t(id)}/exchanges/${e(eid)}/replay`,
      request === undefined ? {} : { request },
    ),
  stats: (id: string, window: string) =>
    call<{ window: string; tools: ToolStats[] }>('GET', `${t(id)}/stats?window=${e(window)}`),
  star: (id: string, name: string, on: boolean) =>
    call<void>(on ? 'PUT' : 'DELETE', `${t(id)}/stars/${e(name)}`),
  accept: (id: string, name: string) => call<unknown>('POST', `${t(id)}/tools/${e(name)}/accept`),
  settings: (id: string) => call<TunnelSettings>('GET', `${t(id)}/settings`),
  saveSettings: (id: string, body: Partial<TunnelSettings>) =>
    call<TunnelSettings>('PUT', `${t(id)}/settings`, body),
  webhooks: (id: string) => call<{ webhooks: Webhook[] }>('GET', `${t(id)}/webhooks`),
  addWebhook: (id: string, url: string, events: string[]) =>
    call<Webhook & { secret: string }>('POST', `${t(id)}/webhooks`, { url, events }),
  removeWebhook: (id: string, wid: string) => call<void>('DELETE', `${t(id)}/webhooks/${e(wid)}`),
  deliveries: (id: string, wid: string) =>
    call<{ deliveries: Delivery[] }>('GET', `${t(id)}/webhooks/${e(wid)}/deliveries`),
  keys: () => call<{ keys: ApiKey[] }>('GET', '/api/keys'),
  createKey: (name: string) => call<{ id: string; name: string; key: string }>('POST', '/api/keys', { name }),
  revokeKey: (keyId: string) => call<void>('DELETE', `/api/keys/${e(keyId)}`),
  /** The SSE URLs (EventSource sends the session cookie; it resumes with `Last-Event-ID` by itself). */
  exchangeStreamUrl: (id: string) => `${t(id)}/exchanges/stream`,
  upstreamStreamUrl: (id: string) => `${t(id)}/upstreams/stream`,
};

/** A readable message for a failed call. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) return `${err.message} (${err.status} ${err.code})`;
  return err instanceof Error ? err.message : String(err);
}
