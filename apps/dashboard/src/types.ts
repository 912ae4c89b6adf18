// The shapes of the /api routes the dashboard reads (docs/api.md; the shared API contract of issue 19). The
// dashboard holds no logic the API lacks: these are transport types only.

/** `GET /api/session`, `POST /api/session`. */
export interface Session {
  account: string;
  csrf: string;
}

/** One entry of `GET /api/tunnels`; `id` is the address label `<subdomain>--<account>`. */
export interface TunnelInfo {
  id: string;
  subdomain: string;
  account: string;
  publicUrl: string;
  connected: boolean;
  connectedAt: string | null;
  auth: string;
  zeroKnowledge: boolean;
  /** How many upstreams the CLI multiplexes behind this tunnel (0 or 1: single-upstream). */
  upstreams: number;
}

/** One row of `GET /api/tunnels/:id/upstreams`. */
export interface UpstreamRow {
  name: string;
  phase: string;
  lastChange: string;
  lastError: string | null;
  tools: number;
  changedTools: number;
}

/** `'ok' | 'isError' | <JSON-RPC error code> | 'http_<code>'`. */
export type ExchangeStatus = string | number;

/** An exchange summary (`GET /api/tunnels/:id/exchanges`, the Live stream's `exchange` event). */
export interface ExchangeSummary {
  id: string;
  at: string;
  /** The API key's or OAuth client's name; null on a tunnel without auth. */
  caller: string | null;
  method: string | null;
  name: string | null;
  upstream: string | null;
  status: ExchangeStatus;
  durationMs: number;
  requestBytes: number;
  responseBytes: number;
  replayOf?: string;
}

/** `GET /api/tunnels/:id/exchanges/:eid`. */
export interface ExchangeDetail extends ExchangeSummary {
  request: unknown;
  response: unknown;
  truncated: { request: boolean; response: boolean };
  children: { method: string; request: unknown; response: unknown }[];
}

/** One tool of `GET /api/tunnels/:id/stats?window=…`. */
export interface ToolStats {
  /** null when the tool name is not namespaced (a single-upstream tunnel). */
  upstream: string | null;
  name: string;
  calls: number;
  errors: number;
  errorRate: number;
  p50: number;
  p95: number;
  p99: number;
  changed: boolean;
  pinned: boolean;
}

/** `GET|PUT /api/tunnels/:id/settings`. */
export interface TunnelSettings {
  auth: 'oauth' | 'api-key' | 'none';
  allow: string[];
  policies: { deny: string[]; allow: string[] };
  limits: { callsPerMinute: number | null };
  capture: { values: boolean };
  holdChangedTools: boolean;
}

/** A webhook subscription (the bodies of today's `/api/webhooks`). */
export interface Webhook {
  id: string;
  url: string;
  events: string[];
  createdAt: string;
}

/** One entry of a webhook's delivery log (`DeliveryRecord` of @mcppipe/events). */
export interface Delivery {
  eventId: string;
  eventType: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  statusCode: number | null;
  latencyMs: number | null;
  error: string | null;
  createdAt: string;
  updatedAt: string;
}

/** An API key as listed (`GET /api/keys`). */
export interface ApiKey {
  id: string;
  name: string;
  createdAt: string;
}
