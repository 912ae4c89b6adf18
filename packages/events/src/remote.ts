import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { isMcpPipeError } from '@mcppipe/errors';
import type { Phase } from '@mcppipe/upstream-state';
import { createParser } from 'eventsource-parser';
import type { EventHub } from './hub.js';
import { openEventStream, type EventStream } from './sse.js';
import { EVENT_TYPES, silentLogger, type EventType, type Logger, type McpPipeEvent } from './types.js';

/**
 * The reserved path prefix of an event scope served over a tunnel (E1): `mcppipe up` answers it only for the relay's
 * own requests through the tunnel connection, never on its public listener; the relay refuses it from the public.
 */
export const SCOPE_PATH = '/.mcppipe';
/** The header the relay sets on its own scope requests (`1`); the relay strips it from public requests. */
export const RELAY_REQUEST_HEADER = 'x-mcppipe-relay';
/** The connect metadata key (value `1`) by which a CLI says it serves an event scope; only those are followed. */
export const SCOPE_METADATA_KEY = 'events';

/** One upstream in a snapshot (`GET /api/tunnels/:id/upstreams`, `GET /api/servers`). */
export interface UpstreamSnapshot {
  name: string;
  phase: Phase;
  /** ISO 8601 of the last transition. */
  lastChange: string;
  lastError: string | null;
  /** Tools pinned for it (seen at least once). */
  tools: number;
  /** Of those, tools whose definition changed since it was pinned. */
  changedTools: number;
}

/** One pinned tool of a scope (`GET /api/tunnels/:id/tools`). */
export interface ToolSnapshot {
  upstream: string;
  /** The exposed name (`upstream__tool`; the bare name on a single-upstream tunnel). */
  name: string;
  /** The hash last seen (`sha256:<hex>`). */
  hash: string;
  changed: boolean;
  /** ISO 8601 of the pin, or null when unknown. */
  pinnedAt: string | null;
}

/** The tools of a scope and whether changed ones are held back (`hold-changed-tools`). */
export interface ToolsSnapshot {
  hold: boolean;
  tools: ToolSnapshot[];
}

/**
 * What `mcppipe up` serves under {@link SCOPE_PATH} (the CLI composes it from its supervisor, hub and pins).
 * `undefined` from `reconnect`/`accept` means "no such upstream/tool" (404).
 */
export interface LocalEventScope {
  hub: EventHub;
  /** The snapshot; empty for a single-upstream tunnel (E2). */
  upstreams(): UpstreamSnapshot[];
  /** The pinned tools (re-listed first). */
  tools(): Promise<ToolsSnapshot>;
  /** Moves a `failed` upstream back to `connecting` (the dashboard's reconnect). */
  reconnect(upstream: string): Promise<{ name: string; phase: Phase } | undefined>;
  /** Accepts an exposed tool's current definition as its pin. */
  accept(exposedName: string): ToolSnapshot | undefined;
  /**
   * Turns `hold-changed-tools` on or off (the owner's setting at the relay): changed tools leave the lists while on.
   * Absent: the scope's hold is fixed (answered 404).
   */
  hold?(on: boolean): { hold: boolean };
}

/** The request side {@link serveEventScope} reads (node's `http` and `http2` compatibility requests fit). */
export interface ScopeRequest {
  url?: string | undefined;
  method?: string | undefined;
  headers: IncomingHttpHeaders;
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
};
const notFound = (res: ServerResponse, what: string) => json(res, 404, { error: 'not_found', message: what });

/**
 * The CLI half (E1): answers `GET /.mcppipe/events` (SSE of the scope's hub, `Last-Event-ID` resume),
 * `GET /.mcppipe/upstreams`, `POST /.mcppipe/upstreams/:name/reconnect`, `GET /.mcppipe/tools` and
 * `POST /.mcppipe/tools/:name/accept` and `POST /.mcppipe/tools/hold/on|off`. Call it first in the tunnel's handler: it returns false for any other path
 * (forward those as usual). Requests without {@link RELAY_REQUEST_HEADER} are answered 404.
 *
 * @param scope - what to serve
 * @returns the handler, and `close()` ending its open streams
 */
export function serveEventScope(scope: LocalEventScope): {
  handle(req: ScopeRequest, res: ServerResponse): boolean;
  close(): void;
} {
  const streams = new Set<EventStream>();
  const route = async (req: ScopeRequest, res: ServerResponse, path: string): Promise<void> => {
    const method = req.method ?? 'GET';
    const parts = path.split('/').map((p) => decodeURIComponent(p));
    if (method === 'GET' && path === '/events') {
      const stream = openEventStream(res, scope.hub, { lastEventId: req.headers['last-event-id'] });
      streams.add(stream);
      void stream.closed.then(() => streams.delete(stream));
      return;
    }
    if (method === 'GET' && path === '/upstreams') return json(res, 200, { upstreams: scope.upstreams() });
    if (method === 'GET' && path === '/tools') return json(res, 200, await scope.tools());
    if (method === 'POST' && parts.length === 4 && parts[3] === 'reconnect' && parts[1] === 'upstreams') {
      const done = await scope.reconnect(parts[2]!);
      return done ? json(res, 200, done) : notFound(res, `no upstream ${JSON.stringify(parts[2])}`);
    }
    if (method === 'POST' && path.startsWith('/tools/hold/') && parts.length === 4 && scope.hold) {
      if (parts[3] === 'on' || parts[3] === 'off') return json(res, 200, scope.hold(parts[3] === 'on'));
    }
    if (method === 'POST' && parts.length === 4 && parts[3] === 'accept' && parts[1] === 'tools') {
      const tool = scope.accept(parts[2]!);
      return tool ? json(res, 200, tool) : notFound(res, `no pinned tool ${JSON.stringify(parts[2])}`);
    }
    return notFound(res, `no route ${method} ${SCOPE_PATH}${path}`);
  };
  return {
    handle(req, res) {
      const url = req.url ?? '/';
      if (url !== SCOPE_PATH && !url.startsWith(`${SCOPE_PATH}/`)) return false;
      if (req.headers[RELAY_REQUEST_HEADER] !== '1') {
        notFound(res, 'Not found');
        return true;
      }
      const path = url.slice(SCOPE_PATH.length).split('?')[0]!;
      route(req, res, path).catch((err: unknown) => {
        if (res.headersSent) return void res.end();
        const code = isMcpPipeError(err) ? err.code : 'internal';
        json(res, isMcpPipeError(err) ? 400 : 500, { error: code, message: (err as Error).message });
      });
      return true;
    },
    close() {
      for (const s of streams) s.close();
    },
  };
}

/** A request the relay sends over one tunnel (`Tunnel.request` of `@mcppipe/tunnel` fits). */
export type ScopeRequester = (request: {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}) => Promise<{ status: number; stream: Readable }>;

/**
 * The relay half, one call: `GET`/`POST` a scope path over the tunnel and read its JSON answer.
 *
 * @param request - the tunnel's requester
 * @param method - `GET` or `POST`
 * @param path - below {@link SCOPE_PATH}, e.g. `/upstreams`
 * @returns the status and the parsed body
 * @throws McpPipeError `MCPP_TUNNEL_OFFLINE` (from the requester) when the tunnel is gone
 */
export async function callEventScope(
  request: ScopeRequester,
  method: 'GET' | 'POST',
  path: string,
): Promise<{ status: number; body: unknown }> {
  const { status, stream } = await request({
    method,
    path: `${SCOPE_PATH}${path}`,
    headers: { [RELAY_REQUEST_HEADER]: '1', accept: 'application/json' },
  });
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return { status, body: JSON.parse(text) as unknown };
  } catch {
    return { status: 502, body: { error: 'bad_gateway', message: 'the tunnel answered a non-JSON body' } };
  }
}

/** Options of {@link followEventScope}. */
export interface FollowOptions {
  /** The tunnel's id, written into every republished event's `data.tunnel`. */
  tunnel: string;
  /** The last remote event id seen (on a reconnect of the same process no event is repeated). */
  lastEventId?: string | undefined;
  logger?: Logger;
}

/** A followed remote scope. */
export interface FollowedScope {
  /** The last remote event id seen. */
  lastEventId(): string | undefined;
  /** Whether the remote answered the stream with 200 (an older CLI without a scope answers 404: do not retry). */
  opened(): boolean;
  /** Settles when the remote stream ended (tunnel gone, or {@link FollowedScope.close}). */
  ended: Promise<void>;
  close(): void;
}

const KNOWN: ReadonlySet<string> = new Set(EVENT_TYPES);

/**
 * The relay half (E1): opens `GET /.mcppipe/events` over the tunnel as SSE (parsed with `eventsource-parser`) and
 * republishes each event into the tunnel's hub, with `data.tunnel` set to the tunnel's id (the relay's hub gives it
 * its own id, the one API clients resume with).
 *
 * @param request - the tunnel's requester
 * @param hub - the tunnel's hub on the relay
 * @param options - the tunnel id and the resume point
 * @returns the handle; its `ended` settles when the stream ends, whatever the cause
 */
export function followEventScope(
  request: ScopeRequester,
  hub: EventHub,
  options: FollowOptions,
): FollowedScope {
  const logger = options.logger ?? silentLogger;
  let last = options.lastEventId;
  let stream: Readable | undefined;
  let closed = false;
  let opened = false;
  const parser = createParser({
    onEvent(message) {
      if (message.id !== undefined) last = message.id;
      if (!KNOWN.has(message.event ?? '')) return;
      try {
        const event = JSON.parse(message.data) as McpPipeEvent;
        hub.publish(event.type as EventType, { ...event.data, tunnel: options.tunnel } as never);
      } catch {
        logger.warn({ tunnel: options.tunnel }, 'dropped a malformed event from the tunnel');
      }
    },
  });
  const ended = (async () => {
    const headers: Record<string, string> = { [RELAY_REQUEST_HEADER]: '1', accept: 'text/event-stream' };
    if (last !== undefined) headers['last-event-id'] = last;
    const answer = await request({ path: `${SCOPE_PATH}/events`, headers });
    stream = answer.stream;
    if (closed || answer.status !== 200) return void stream.destroy();
    opened = true;
    stream.setEncoding('utf8');
    for await (const chunk of stream) parser.feed(chunk as string);
  })().catch((err: unknown) => {
    if (!closed) logger.debug({ tunnel: options.tunnel, err: (err as Error).message }, 'event stream ended');
  });
  return {
    lastEventId: () => last,
    opened: () => opened,
    ended,
    close() {
      closed = true;
      stream?.destroy();
    },
  };
}
