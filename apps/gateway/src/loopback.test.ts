/**
 * Loopback spellings (issue 13.4): on a loopback bind without an explicit public URL, one gateway process
 * serves a real v2 SDK client's OAuth flow at `http://localhost:PORT/hub` and at `http://127.0.0.1:PORT/hub`
 * (metadata, challenge and audience for the name used). Elsewhere `Host` never changes the resource.
 */
import { normalizeResource } from '@mcppipe/oauth';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Supervisor } from '@mcppipe/supervisor';
import { gatewayPolicy } from '@mcppipe/upstream-state';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from './app.js';
import { resolveGatewayOptions } from './options.js';
import { startGateway, type RunningGateway } from './server.js';
import { FakeVerifier, fixturePath, freePort, ownerApproves, TestClientProvider } from '@mcppipe/test-utils';

const PASSWORD = 'loopback-owner-password';

describe('loopback spellings on a loopback bind without a public URL (13.4)', () => {
  let gw: RunningGateway;
  let port: number;

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcppipe-loopback-'));
    const config = join(dir, 'mcp.json');
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: { probe: { command: process.execPath, args: [fixturePath('e2e-probe.mjs')] } },
      }),
    );
    port = await freePort();
    const options = resolveGatewayOptions({
      config,
      dataDir: join(dir, 'data'),
      host: '127.0.0.1',
      port,
      logLevel: 'error',
    });
    expect(options.loopbackAliases).toBe(true);
    gw = await startGateway(options, { MCPPIPE_ADMIN_PASSWORD: PASSWORD });
    await gw.ready;
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
  });

  for (const spelling of ['localhost', '127.0.0.1']) {
    it(`the real v2 SDK client signs in and calls a tool at http://${spelling}:PORT/hub`, async () => {
      const base = `http://${spelling}:${port}`;
      const client = new TestClientProvider();
      const first = new StreamableHTTPClientTransport(new URL(`${base}/hub`), { authProvider: client });
      await expect(new Client({ name: 'loopback', version: '1' }).connect(first)).rejects.toBeInstanceOf(
        UnauthorizedError,
      );
      const authUrl = client.authorizationUrl!;
      expect(authUrl.searchParams.get('resource')).toBe(`${base}/hub`);
      await first.finishAuth((await ownerApproves(authUrl, PASSWORD)).searchParams);
      const c = new Client({ name: 'loopback', version: '1' });
      await c.connect(new StreamableHTTPClientTransport(new URL(`${base}/hub`), { authProvider: client }));
      const listed = await c.callTool({ name: 'list_servers', arguments: {} });
      expect(JSON.stringify(listed.content)).toContain('probe');
      await c.close();
      const meta = await fetch(`${base}/.well-known/oauth-protected-resource/hub`);
      expect(((await meta.json()) as { resource: string }).resource).toBe(`${base}/hub`);
    }, 60_000);
  }

  it('a token is bound to the spelling it was issued for (no cross-spelling audience)', async () => {
    const client = new TestClientProvider();
    const base = `http://localhost:${port}`;
    const first = new StreamableHTTPClientTransport(new URL(`${base}/hub`), { authProvider: client });
    await expect(new Client({ name: 'x', version: '1' }).connect(first)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    await first.finishAuth((await ownerApproves(client.authorizationUrl!, PASSWORD)).searchParams);
    const res = await fetch(`http://127.0.0.1:${port}/hub`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${client.current!.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain(
      `resource_metadata="http://127.0.0.1:${port}/.well-known/oauth-protected-resource/hub"`,
    );
  }, 60_000);
});

describe('Host never chooses the resource elsewhere (13.4)', () => {
  const prm = async (host: string, publicUrl: string) => {
    const app = await buildApp({
      registry: new Supervisor({ upstreams: [], policy: gatewayPolicy() }),
      verifier: new FakeVerifier(normalizeResource),
      publicUrl,
      host,
      loopbackAliases: true, // ignored: not a loopback bind
      hub: { createServer: () => Promise.reject(new Error('not used')) } as never,
    });
    try {
      const res = await app.inject({
        url: '/.well-known/oauth-protected-resource/hub',
        headers: { host: 'localhost:3000' },
      });
      const hub = await app.inject({ method: 'POST', url: '/hub', headers: { host: 'localhost:3000' } });
      return {
        resource: (res.json() as { resource: string }).resource,
        challenge: hub.headers['www-authenticate'],
      };
    } finally {
      await app.close();
    }
  };

  it('a non-loopback bind answers only from the configured public URL', async () => {
    expect(await prm('0.0.0.0', 'https://gw.example')).toEqual({
      resource: 'https://gw.example/hub',
      challenge: 'Bearer resource_metadata="https://gw.example/.well-known/oauth-protected-resource/hub"',
    });
  });

  it('an explicit public URL on a loopback bind turns the aliases off', () => {
    const options = resolveGatewayOptions({
      host: '127.0.0.1',
      port: 3000,
      publicUrl: 'http://127.0.0.1:3000',
    });
    expect(options.loopbackAliases).toBe(false);
  });
});
