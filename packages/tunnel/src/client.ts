import http2 from 'node:http2';
import type { Http2ServerRequest, Http2ServerResponse, ServerHttp2Session } from 'node:http2';
import type { IncomingMessage } from 'node:http';
import { McpPipeError } from '@mcppipe/errors';
import { systemClock } from '@mcppipe/upstream-state';
import type { Scheduler, TimerHandle } from '@mcppipe/upstream-state';
import { WebSocket } from 'ws';
import { wsDuplex } from './wsDuplex.js';
import { drainSessions } from './drain.js';
import type { TunnelBackoff } from './backoff.js';
import { backoffPolicy, reconnectDelay } from './backoff.js';
import {
  CLOSE_GRACE_MS,
  CLOSE_KEY_REVOKED,
  CLOSE_REPLACED,
  DEFAULT_DEAD_AFTER_MS,
  DEFAULT_PING_INTERVAL_MS,
  METADATA_HEADER,
  PUBLIC_URL_HEADER,
  TUNNEL_AUTH_HEADER,
  SESSION_WINDOW_BYTES,
  STREAM_WINDOW_BYTES,
  SUBDOMAIN_HEADER,
  ZERO_KNOWLEDGE_HEADER,
} from './defaults.js';
import type { TunnelRefusalCode } from './errors.js';
import { invalidOption, refusalCodeOf } from './errors.js';
import { startHeartbeat, validateHeartbeat } from './heartbeat.js';
import type { Logger } from './types.js';
import { silentLogger } from './types.js';

/** The CLI's request handler, in node's `http2` compatibility API. */
export type TunnelHandler = (req: Http2ServerRequest, res: Http2ServerResponse) => void;

/** Where a tunnel client stands; `refused` and `closed` are final. */
export type TunnelStatus =
  | { status: 'connecting'; attempt: number }
  | { status: 'connected'; publicUrl: string }
  | { status: 'reconnecting'; attempt: number; retryInMs: number; reason: string }
  | { status: 'refused'; code: TunnelRefusalCode; reason: string }
  | { status: 'closed' };

/** Options of {@link connectTunnel}. */
export interface ConnectTunnelOptions {
  /** The relay's connect URL, `ws(s)://` or `http(s)://` (e.g. `https://gw.example/tunnel/connect`). */
  relayUrl: string;
  /** An API key of the owner account, sent as `Authorization: Bearer`. Never logged. */
  apiKey: string;
  /** The wanted subdomain (the upstream-name rule, `^[a-z][a-z0-9_-]{0,31}$`). */
  subdomain: string;
  /** Serves every public request (the CLI's own handler, so nothing is served twice). */
  handler: TunnelHandler;
  /** Ask for zero-knowledge mode (T7). Default false. */
  zeroKnowledge?: boolean;
  /** Strings sent to the relay at connect (e.g. the CLI version); at most 4 KB as JSON. */
  metadata?: Readonly<Record<string, string>>;
  /** Reconnect backoff. Default 1 s doubling, capped at 30 s, ±20 % jitter. */
  backoff?: TunnelBackoff;
  /** h2 PING interval, in ms. Default 20 000. */
  pingIntervalMs?: number;
  /** The relay is declared dead after this much silence, in ms. Default 45 000. */
  deadAfterMs?: number;
  /**
   * Logger (default: silent). Status changes are logged at info (connected), warn (reconnecting) and error
   * (refused), or at debug when `onStatus` is given: the caller that handles them says them once, its own way.
   */
  logger?: Logger;
  /** Called on every status change. */
  onStatus?: (status: TunnelStatus) => void;
  /** A number in [0, 1) for the jitter. Default `Math.random`. */
  random?: () => number;
  /** Schedules reconnects. Default real timers. */
  scheduler?: Scheduler;
}

/** A running tunnel client; see {@link connectTunnel}. */
export interface TunnelClient extends AsyncDisposable {
  /** The current status. */
  readonly status: TunnelStatus;
  /** The public URL, once connected (kept across reconnects). */
  readonly publicUrl: string | undefined;
  /**
   * The auth mode the relay applies to the public URL (T5), as it said at the last connect; undefined when it did
   * not say (an older relay). The owner's saved setting wins over the `auth` asked for in the metadata.
   */
  readonly auth: string | undefined;
  /**
   * Waits until the tunnel is connected.
   *
   * @returns the public URL
   * @throws McpPipeError the refusal's code (`MCPP_TUNNEL_BAD_KEY`, `MCPP_TUNNEL_SUBDOMAIN_TAKEN`, …) when refused,
   *   or `MCPP_TUNNEL_OFFLINE` when closed first
   */
  connected(): Promise<string>;
  /**
   * Stops reconnecting and closes the tunnel cleanly; the relay frees the subdomain at once. With `graceMs`, it
   * drains first: a GOAWAY tells the relay to open no new stream (it answers new public requests `503`
   * `tunnel_offline`), and the streams already open get up to `graceMs` to end before the WebSocket closes.
   *
   * @param options - `graceMs`: how long open streams may run on, in ms. Default 0: they are cut at once.
   */
  close(options?: TunnelCloseOptions): Promise<void>;
}

/** Options of {@link TunnelClient.close}. */
export interface TunnelCloseOptions {
  /** How long the streams already open may run on after the GOAWAY, in ms. Default 0 (no drain). */
  graceMs?: number;
}

function toWsUrl(relayUrl: string): string {
  let url: URL;
  try {
    url = new URL(relayUrl);
  } catch {
    throw invalidOption('relayUrl', 'must be an absolute URL', relayUrl);
  }
  if (url.protocol === 'http:') url.protocol = 'ws:';
  else if (url.protocol === 'https:') url.protocol = 'wss:';
  else if (url.protocol !== 'ws:' && url.protocol !== 'wss:') {
    throw invalidOption('relayUrl', 'must use http, https, ws or wss', relayUrl);
  }
  return url.href;
}

async function readRefusal(res: IncomingMessage): Promise<{ code: unknown; message: string }> {
  let text = '';
  res.setEncoding('utf8');
  try {
    for await (const chunk of res) {
      text += String(chunk);
      if (text.length > 8_192) break;
    }
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown }; message?: unknown };
    // the relay's `{ error: { code, message } }`, or another server's `{ message }` (Fastify's 404, for one)
    const message =
      typeof body.error?.message === 'string'
        ? body.error.message
        : typeof body.message === 'string'
          ? body.message
          : `HTTP ${res.statusCode}`;
    return { code: body.error?.code, message };
  } catch {
    return { code: undefined, message: `HTTP ${res.statusCode ?? 0} ${res.statusMessage ?? ''}`.trim() };
  }
}

/** The reason of `MCPP_TUNNEL_NO_RELAY`: `<url> answered 404 (Not found) instead of a WebSocket upgrade`. */
function noRelay(relayUrl: string, status: number, message: string): string {
  const said = message.replace(/^HTTP \d+\s*/, '');
  return `${relayUrl} answered ${status}${said === '' ? '' : ` (${said})`} instead of a WebSocket upgrade`;
}

/**
 * The CLI half of the tunnel (T2, T3, T6): dials ONE WebSocket out to the relay and serves HTTP/2 over it with
 * `handler`, reconnecting with backoff until closed. Permanent refusals (bad key, subdomain owned by another
 * account, bad subdomain, replaced by a newer connection, no relay at the URL: an HTTP answer that is neither an
 * upgrade nor a refusal of the relay's, e.g. 404) stop it and say why; 5xx, 408, 429 and network errors are retried.
 *
 * @param options - relay, key, subdomain, handler and tuning
 * @returns the running client (already connecting)
 * @throws McpPipeError `MCPP_TUNNEL_INVALID_OPTIONS` for a bad URL, duration or backoff
 * @example Serving a loopback server through a tunnel
 * ```ts
 * const tunnel = connectTunnel({ relayUrl: 'https://gw.example/tunnel/connect', apiKey, subdomain: 'laptop',
 *   handler: forwardToLoopback({ port: 8808 }) });
 * console.error(`public URL: ${await tunnel.connected()}`);
 * ```
 */
export function connectTunnel(options: ConnectTunnelOptions): TunnelClient {
  const url = toWsUrl(options.relayUrl);
  const policy = backoffPolicy(options.backoff);
  const pingIntervalMs = options.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS;
  const deadAfterMs = options.deadAfterMs ?? DEFAULT_DEAD_AFTER_MS;
  validateHeartbeat(pingIntervalMs, deadAfterMs);
  const logger = options.logger ?? silentLogger;
  const random = options.random ?? Math.random;
  const scheduler = options.scheduler ?? systemClock;
  const headers: Record<string, string> = {
    authorization: `Bearer ${options.apiKey}`,
    [SUBDOMAIN_HEADER]: options.subdomain,
  };
  if (options.zeroKnowledge === true) headers[ZERO_KNOWLEDGE_HEADER] = '1';
  if (options.metadata !== undefined) headers[METADATA_HEADER] = JSON.stringify(options.metadata);

  const server = http2.createServer({ settings: { initialWindowSize: STREAM_WINDOW_BYTES } });
  server.on('request', options.handler);
  let sessions = new Set<ServerHttp2Session>();
  server.on('session', (s) => {
    sessions.add(s);
    s.once('connect', () => s.setLocalWindowSize(SESSION_WINDOW_BYTES));
    s.on('close', () => sessions.delete(s));
  });

  let status: TunnelStatus = { status: 'connecting', attempt: 1 };
  let publicUrl: string | undefined;
  let auth: string | undefined;
  let ws: WebSocket | undefined;
  let retry = 0;
  let timer: TimerHandle | undefined;
  let stopped = false;
  const waiters = new Set<{ resolve: (url: string) => void; reject: (err: Error) => void }>();

  // a status change is one log line: the library's, or the onStatus handler's
  const said = (level: 'info' | 'warn' | 'error') => (options.onStatus ? 'debug' : level);
  const setStatus = (next: TunnelStatus): void => {
    status = next;
    options.onStatus?.(next);
    if (next.status === 'connected') for (const w of waiters) w.resolve(next.publicUrl);
    else if (next.status === 'refused')
      for (const w of waiters) w.reject(new McpPipeError(next.code, next.reason));
    else if (next.status === 'closed') {
      for (const w of waiters)
        w.reject(new McpPipeError('MCPP_TUNNEL_OFFLINE', 'the tunnel client was closed'));
    } else return;
    waiters.clear();
  };

  const refuse = (code: TunnelRefusalCode, reason: string): void => {
    stopped = true;
    logger[said('error')]({ code, subdomain: options.subdomain }, `tunnel refused: ${reason}`);
    setStatus({ status: 'refused', code, reason });
  };

  const scheduleReconnect = (reason: string): void => {
    if (stopped) return;
    const retryInMs = reconnectDelay(policy, retry, random());
    retry++;
    logger[said('warn')]({ attempt: retry + 1, retryInMs, reason }, 'tunnel down, reconnecting');
    setStatus({ status: 'reconnecting', attempt: retry + 1, retryInMs, reason });
    timer = scheduler.setTimeout(() => {
      timer = undefined;
      dial();
    }, retryInMs);
  };

  function dial(): void {
    if (stopped) return;
    if (status.status !== 'reconnecting') setStatus({ status: 'connecting', attempt: retry + 1 });
    const socket = new WebSocket(url, { headers, perMessageDeflate: false, maxPayload: 16 * 1024 * 1024 });
    ws = socket;
    let settled = false;
    let stopHeartbeat = (): void => {};
    let deadReason: string | undefined;
    socket.on('upgrade', (res) => {
      const header = res.headers[PUBLIC_URL_HEADER];
      if (typeof header === 'string') publicUrl = header;
      const mode = res.headers[TUNNEL_AUTH_HEADER];
      auth = typeof mode === 'string' ? mode : undefined;
    });
    socket.on('unexpected-response', (_req, res) => {
      settled = true;
      void readRefusal(res).then(({ code, message }) => {
        socket.terminate();
        const refusal = refusalCodeOf(res.statusCode ?? 0, code);
        if (refusal === 'MCPP_TUNNEL_NO_RELAY')
          refuse(refusal, noRelay(options.relayUrl, res.statusCode ?? 0, message));
        else if (refusal !== undefined) refuse(refusal, message);
        else scheduleReconnect(`relay answered ${res.statusCode ?? 0}: ${message}`);
      });
    });
    socket.on('error', (err) => {
      if (settled) return;
      settled = true;
      scheduleReconnect(err.message);
    });
    socket.on('open', () => {
      settled = true;
      retry = 0;
      const duplex = wsDuplex(socket);
      server.emit('connection', duplex);
      const session = [...sessions].at(-1);
      if (session !== undefined) {
        stopHeartbeat = startHeartbeat(socket, session, {
          pingIntervalMs,
          deadAfterMs,
          onDead: () => {
            deadReason = `the relay was silent for ${deadAfterMs} ms`;
            socket.terminate();
          },
        });
      }
      logger[said('info')]({ publicUrl }, 'tunnel connected');
      setStatus({ status: 'connected', publicUrl: publicUrl ?? '' });
    });
    socket.on('close', (code, why) => {
      stopHeartbeat();
      if (!settled) return;
      const reason = deadReason ?? (why.toString() || `connection closed (${code})`);
      // taken over by a newer connection, or the key was revoked: permanent, retrying cannot help
      if (code === CLOSE_REPLACED || code === CLOSE_KEY_REVOKED) refuse('MCPP_TUNNEL_REFUSED', reason);
      else if (socket === ws && status.status === 'connected') scheduleReconnect(reason);
    });
  }

  dial();

  const close = async (closeOptions?: TunnelCloseOptions): Promise<void> => {
    if (status.status === 'closed') return;
    stopped = true;
    if (timer !== undefined) scheduler.clearTimeout(timer);
    await drainSessions(sessions, closeOptions?.graceMs ?? 0);
    const socket = ws;
    if (socket !== undefined && socket.readyState !== socket.CLOSED) {
      await new Promise<void>((resolve) => {
        socket.once('close', () => resolve());
        if (socket.readyState === socket.CONNECTING) socket.terminate();
        else socket.close(1000, 'client closed');
        setTimeout(() => socket.terminate(), CLOSE_GRACE_MS).unref();
      });
    }
    for (const s of sessions) s.destroy();
    sessions = new Set();
    server.close();
    if (status.status !== 'refused') setStatus({ status: 'closed' });
  };

  return {
    get status() {
      return status;
    },
    get publicUrl() {
      return publicUrl;
    },
    get auth() {
      return auth;
    },
    connected() {
      if (status.status === 'connected') return Promise.resolve(status.publicUrl);
      if (status.status === 'refused') return Promise.reject(new McpPipeError(status.code, status.reason));
      if (status.status === 'closed') {
        return Promise.reject(new McpPipeError('MCPP_TUNNEL_OFFLINE', 'the tunnel client was closed'));
      }
      return new Promise((resolve, reject) => waiters.add({ resolve, reject }));
    },
    close,
    [Symbol.asyncDispose]: () => close(),
  };
}
