/**
 * Test helpers for gateway tests over real sockets: a gateway built with a real `Supervisor` (gateway
 * policy) and the counting fake verifier, listening on 127.0.0.1, and SDK clients that send a bearer token.
 *
 * @module
 */
import { normalizeResource } from '@mcppipe/oauth';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHttpHost } from '@mcppipe/http';
import { Supervisor } from '@mcppipe/supervisor';
import type { UpstreamSpec } from '@mcppipe/supervisor';
import { gatewayPolicy } from '@mcppipe/upstream-state';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Server } from '@modelcontextprotocol/server';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.js';
import type { GatewayDeps } from '../types.js';
import { fakeToken, FakeVerifier, freePort } from '@mcppipe/test-utils';

/** A gateway on a real socket. */
export interface LiveGateway {
  app: FastifyInstance;
  supervisor: Supervisor;
  verifier: FakeVerifier;
  publicUrl: string;
  /** A token of `clientId` for an endpoint path (`/hub`, `/servers/x/mcp`). */
  token(path: string, clientId?: string): string;
  close(): Promise<void>;
}

/**
 * Starts a supervisor over `upstreams` and a gateway in front of it.
 *
 * @param upstreams - the layout
 * @param deps - extra `buildApp` dependencies (hub, aggregate, limits); `build` receives the supervisor
 */
export async function startLiveGateway(
  upstreams: UpstreamSpec[],
  deps: (supervisor: Supervisor) => Partial<GatewayDeps> = () => ({}),
): Promise<LiveGateway> {
  const supervisor = new Supervisor({ upstreams, policy: gatewayPolicy() });
  await supervisor.start();
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const verifier = new FakeVerifier(normalizeResource);
  const app = await buildApp({ registry: supervisor, verifier, publicUrl, ...deps(supervisor) });
  await app.listen({ port, host: '127.0.0.1' });
  return {
    app,
    supervisor,
    verifier,
    publicUrl,
    token: (path, clientId = 'agent') => fakeToken(clientId, `${publicUrl}${path}`),
    close: async () => {
      await app.close();
      await supervisor.stop();
    },
  };
}

/**
 * Connects an SDK v2 client to a gateway endpoint with a bearer token.
 *
 * @param gw - the gateway
 * @param path - the endpoint path
 * @param era - `legacy` (2025 `initialize`) or `modern` (2026-07-28)
 */
export async function connectClient(
  gw: LiveGateway,
  path: string,
  era: 'legacy' | 'modern',
): Promise<Client> {
  const clientId = 'agent';
  const client = new Client(
    { name: `test-${era}`, version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: 'auto' } } : {},
  );
  const headers = { authorization: `Bearer ${gw.token(path, clientId)}` };
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gw.publicUrl}${path}`), { requestInit: { headers } }),
  );
  return client;
}

/** A tiny HTTP MCP upstream that records the headers of every request it receives. */
export async function startRecordingUpstream(): Promise<{
  url: string;
  headers: IncomingHttpHeaders[];
  close(): Promise<void>;
}> {
  const headers: IncomingHttpHeaders[] = [];
  const host = createMcpHttpHost(() => {
    const server = new Server({ name: 'recorder', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', () => ({
      tools: [{ name: 'echo', inputSchema: { type: 'object' } }],
    }));
    server.setRequestHandler('tools/call', (req) => ({
      content: [{ type: 'text', text: JSON.stringify(req.params.arguments ?? {}) }],
    }));
    return server;
  });
  const http = createServer((req, res) => {
    headers.push({ ...req.headers });
    void host.handle(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    headers,
    close: async () => {
      await host.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
