/**
 * A real v2 SDK client runs the whole OAuth flow against a listening server: discovery from a 401, DCR,
 * authorization with PKCE, login, approval, token, a tool call, refresh, and reuse detection. The protected
 * MCP endpoint is a tiny one defined here (the gateway's real pipeline is wired elsewhere).
 */
import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOAuthProvider, type OAuthProvider } from '@mcppipe/oauth';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthRoutes } from './routes.js';
import { ownerApproves, TestClientProvider } from '@mcppipe/test-utils';

const PASSWORD = 'sdk-flow-owner-password';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

describe('a real v2 SDK client against the OAuth endpoints', () => {
  let app: FastifyInstance;
  let provider: OAuthProvider;
  let base: string;
  let now = Date.now();

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    provider = await createOAuthProvider({
      dataDir: await mkdtemp(join(tmpdir(), 'mcppipe-sdk-flow-')),
      publicUrl: base,
      resources: () => [`${base}/hub`],
      adminPassword: PASSWORD,
      clock: () => now,
    });
    const mcp = toNodeHandler(
      createMcpHandler(() => {
        const server = new McpServer({ name: 'protected-test', version: '1.0.0' });
        server.registerTool(
          'whoami',
          { description: 'Returns the OAuth client id of the caller' },
          (ctx) => ({
            content: [{ type: 'text', text: ctx.http?.authInfo?.clientId ?? 'anonymous' }],
          }),
        );
        return server;
      }),
    );
    app = Fastify();
    await app.register(oauthRoutes(provider));
    app.route({
      method: ['GET', 'POST', 'DELETE'],
      url: '/hub',
      handler: async (req, reply) => {
        const auth = await provider.authenticateBearer(req.headers.authorization, `${base}/hub`);
        if (!auth.ok) {
          return reply
            .code(auth.status)
            .header('www-authenticate', auth.wwwAuthenticate)
            .send({ error: auth.error ?? 'invalid_request' });
        }
        reply.hijack();
        Object.assign(req.raw, { auth: auth.authInfo });
        await mcp(req.raw, reply.raw, req.body);
        return reply;
      },
    });
    await app.listen({ port, host: '127.0.0.1' });
  }, 30_000);

  afterAll(async () => {
    await app?.close();
    await provider?.close();
  });

  it('discovers, registers, logs in, is approved, calls, refreshes, and loses the session on reuse', async () => {
    const client = new TestClientProvider();
    const connect = async () => {
      const c = new Client({ name: 'sdk-flow-test', version: '1.0.0' });
      await c.connect(new StreamableHTTPClientTransport(new URL(`${base}/hub`), { authProvider: client }));
      return c;
    };

    // 1. No token: the 401 challenge starts discovery, DCR and the redirect.
    const first = new StreamableHTTPClientTransport(new URL(`${base}/hub`), { authProvider: client });
    await expect(
      new Client({ name: 'sdk-flow-test', version: '1.0.0' }).connect(first),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    expect(client.info?.client_id).toEqual(expect.any(String));
    const authUrl = client.authorizationUrl!;
    expect(authUrl.origin + authUrl.pathname).toBe(`${base}/authorize`);
    expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authUrl.searchParams.get('resource')).toBe(`${base}/hub`);

    // 2. The owner signs in and approves; the callback carries code, state and iss.
    const callback = await ownerApproves(authUrl, PASSWORD);
    expect(callback.searchParams.get('iss')).toBe(base);
    await first.finishAuth(callback.searchParams);
    expect(client.current?.refresh_token).toEqual(expect.any(String));

    // 3. A tool call with the access token.
    const c1 = await connect();
    const who = await c1.callTool({ name: 'whoami', arguments: {} });
    expect(who.content).toEqual([{ type: 'text', text: client.info!.client_id }]);

    // B1: a token in the query string is ignored (401 challenge without error); B2: wrong audience is refused.
    const viaQuery = await fetch(`${base}/hub?access_token=${client.current!.access_token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(viaQuery.status).toBe(401);
    expect(viaQuery.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/hub", scope="mcp"`,
    );
    await expect(
      provider.verifyAccessToken(client.current!.access_token, `${base}/mcp`),
    ).rejects.toMatchObject({
      code: 'MCPP_OAUTH_INVALID_TOKEN',
    });

    // 4. The access token expires: the client refreshes (rotation) and the call succeeds.
    const r0 = client.current!.refresh_token!;
    now += 3700_000;
    const again = await c1.callTool({ name: 'whoami', arguments: {} });
    expect(again.content).toEqual([{ type: 'text', text: client.info!.client_id }]);
    const r1 = client.current!.refresh_token!;
    expect(r1).not.toBe(r0);
    await c1.close();

    // 5. Someone replays the rotated R0 after the grace window: the family is revoked at once.
    now += 10_000;
    const replay = await fetch(`${base}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        client_id: client.info!.client_id,
        refresh_token: r0,
      }),
    });
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });

    // 6. The legitimate client's session is gone: its access token is refused, its refresh fails, and it
    //    is sent back to authorization.
    client.authorizationUrl = undefined;
    await expect(connect()).rejects.toBeInstanceOf(UnauthorizedError);
    expect(client.authorizationUrl).toBeDefined();
  }, 60_000);
});
