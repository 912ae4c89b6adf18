// Test support for this package's tests only (not exported): a real relay on 127.0.0.1 that routes public
// requests by an `x-test-tunnel: <subdomain>--<account>` header, as the gateway will route by Host.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { isMcpPipeError } from '@mcppipe/errors';
import { writeTunnelOffline } from './offline.js';
import type { TunnelEvent, TunnelIdentity, TunnelRegistryOptions } from './registry.js';
import { TunnelRegistry } from './registry.js';

/** The keys every test relay knows. */
export const testKeys: Record<string, TunnelIdentity> = {
  'key-alice': { account: 'alice', keyId: 'ka' },
  'key-alice-2': { account: 'alice', keyId: 'ka2' },
  'key-bob': { account: 'bob', keyId: 'kb' },
};

export interface TestRelay extends AsyncDisposable {
  registry: TunnelRegistry;
  server: http.Server;
  port: number;
  connectUrl: string;
  publicBase: string;
  /** Upgrade attempts seen. */
  upgrades: number;
  events: TunnelEvent[];
  /** Codes `forward` threw. */
  forwardErrors: string[];
  close(): Promise<void>;
  /** A process-level drop: every socket cut, the listener gone, no close frames. */
  drop(): Promise<void>;
}

export async function startTestRelay(
  options: Partial<TunnelRegistryOptions> & { port?: number } = {},
): Promise<TestRelay> {
  const events: TunnelEvent[] = [];
  const forwardErrors: string[] = [];
  const sockets = new Set<Duplex>();
  const registry = new TunnelRegistry({
    authenticate: (key) => Promise.resolve(testKeys[key]),
    publicUrl: (subdomain, account) => `https://${subdomain}--${account}.tunnel.test/mcp`,
    onEvent: (e) => events.push(e),
    ...options,
  });
  const server = http.createServer((req, res) => {
    const [subdomain = '', account = ''] = String(req.headers['x-test-tunnel'] ?? '').split('--');
    registry
      .forward(registry.lookup(subdomain, account), {
        req,
        res,
        headers: { 'x-test-tunnel': null, 'x-forwarded-proto': 'https' },
      })
      .catch((err: unknown) => {
        if (!isMcpPipeError(err, 'MCPP_TUNNEL_OFFLINE')) throw err;
        forwardErrors.push(err.code);
        writeTunnelOffline(res);
      });
  });
  const relay: TestRelay = {
    registry,
    server,
    port: 0,
    connectUrl: '',
    publicBase: '',
    upgrades: 0,
    events,
    forwardErrors,
    async close() {
      await registry.close();
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
    async drop() {
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
    [Symbol.asyncDispose]() {
      return relay.close();
    },
  };
  server.on('upgrade', (req, socket, head) => {
    relay.upgrades++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    if (req.url === '/tunnel/connect') void registry.handleUpgrade(req, socket, head);
    else socket.destroy();
  });
  await new Promise<void>((r) => server.listen(options.port ?? 0, '127.0.0.1', r));
  relay.port = (server.address() as AddressInfo).port;
  relay.connectUrl = `http://127.0.0.1:${relay.port}/tunnel/connect`;
  relay.publicBase = `http://127.0.0.1:${relay.port}`;
  return relay;
}
