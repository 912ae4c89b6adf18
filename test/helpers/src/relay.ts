import http from 'node:http';
import type { Socket } from 'node:net';
import { isMcpPipeError } from '@mcppipe/errors';
import { TunnelRegistry, writeTunnelOffline } from '@mcppipe/tunnel';
import type { TunnelEvent, TunnelIdentity } from '@mcppipe/tunnel';

/** A tunnel relay for tests: `TunnelRegistry` behind a real loopback HTTP server, routed by path (T4 path form). */
export interface PathRelay extends AsyncDisposable {
  registry: TunnelRegistry;
  port: number;
  /** `http://127.0.0.1:<port>`: what `mcppipe up --tunnel` takes. */
  base: string;
  events: TunnelEvent[];
  /** Public requests answered `tunnel_offline`. */
  offline: number;
  /** Clean close: tunnels closed, listener gone. */
  close(): Promise<void>;
  /** A process-level drop (SIGKILL of the relay): every socket cut without close frames, listener gone. */
  drop(): Promise<void>;
}

/**
 * Starts a relay on 127.0.0.1 (on `port`, or a free one): `/tunnel/connect` upgrades to a tunnel; a public request
 * to `/t/<subdomain>--<account>/<path>` is forwarded to that tunnel as `/<path>` with the agent's `Authorization`
 * removed and `X-Forwarded-Proto/For` set; with no live tunnel it answers 503 `tunnel_offline`. Public URLs are
 * `http://127.0.0.1:<port>/t/<subdomain>--<account>/mcp`.
 *
 * @param keys - API key → identity
 * @param port - a port to listen on (to restart on the same one); 0 = any free port
 */
export async function startPathRelay(keys: Record<string, TunnelIdentity>, port = 0): Promise<PathRelay> {
  const events: TunnelEvent[] = [];
  const sockets = new Set<Socket>();
  let base = '';
  const registry = new TunnelRegistry({
    authenticate: (key) => Promise.resolve(keys[key]),
    publicUrl: (subdomain, account) => `${base}/t/${subdomain}--${account}/mcp`,
    onEvent: (e) => events.push(e),
  });
  const server = http.createServer((req, res) => {
    const m = /^\/t\/([a-z][a-z0-9_-]*)--([a-z][a-z0-9_-]*)(\/.*)?$/.exec(req.url ?? '');
    if (!m) {
      res.writeHead(404).end();
      return;
    }
    req.url = m[3] ?? '/';
    registry
      .forward(registry.lookup(m[1] ?? '', m[2] ?? ''), {
        req,
        res,
        headers: {
          authorization: null,
          'x-forwarded-proto': 'http',
          'x-forwarded-for': req.socket.remoteAddress ?? '',
        },
      })
      .catch((err: unknown) => {
        if (!isMcpPipeError(err, 'MCPP_TUNNEL_OFFLINE')) throw err;
        relay.offline++;
        writeTunnelOffline(res);
      });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  server.on('upgrade', (req, socket, head) => {
    if (req.url === '/tunnel/connect') void registry.handleUpgrade(req, socket, head);
    else socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const actual = (server.address() as { port: number }).port;
  base = `http://127.0.0.1:${actual}`;
  const relay: PathRelay = {
    registry,
    port: actual,
    base,
    events,
    offline: 0,
    async close() {
      await registry.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
    async drop() {
      for (const s of sockets) s.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await registry.close().catch(() => {});
    },
    [Symbol.asyncDispose]: () => relay.close(),
  };
  return relay;
}
