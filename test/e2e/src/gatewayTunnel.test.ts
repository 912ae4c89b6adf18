/**
 * The tunnel relay of the gateway (issue 16 item 2; DESIGN.md T1–T6) as a real process: accounts and keys made
 * with its own commands, tunnels connected with `@mcppipe/tunnel`'s `connectTunnel` serving a real Streamable
 * HTTP MCP server on loopback, and real clients reaching them by the path form and by `Host`.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { waitFor } from '@mcppipe/test-utils';
import { obtainToken as obtainTokenAs } from '@mcppipe/test-utils/oauth-flow';
import { connectTunnel, forwardToLoopback } from '@mcppipe/tunnel';
import type { TunnelClient, TunnelStatus } from '@mcppipe/tunnel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  OWNER_PASSWORD,
  gatewayCommand,
  obtainToken,
  rawRequest as raw,
  rpcHeaders,
} from './gatewayProcess.js';
import type { RunningGateway } from './gatewayProcess.js';
import { ZONE, startTunnelGateway } from './tunnelStack.js';
import type { TunnelGateway } from './tunnelStack.js';

const ALICE_PW = 'alice tunnel passphrase';
const BOB_PW = 'bob tunnel passphrase';

const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

describe('gateway tunnel relay (--tunnel-zone)', () => {
  let stack: TunnelGateway;
  let dataDir: string;
  let gw: RunningGateway;
  let keys: Record<string, string>;
  const seen: IncomingHttpHeaders[] = [];
  const tunnels: TunnelClient[] = [];
  let loopback: ReturnType<typeof forwardToLoopback>;

  const open = (account: string, subdomain: string, metadata: Record<string, string>) => {
    const statuses: TunnelStatus[] = [];
    const tunnel = connectTunnel({
      relayUrl: `${gw.url}/tunnel/connect`,
      apiKey: keys[account]!,
      subdomain,
      metadata,
      handler: (req, res) => {
        seen.push({ ...req.headers });
        loopback(req, res);
      },
      onStatus: (s) => statuses.push(s),
    });
    tunnels.push(tunnel);
    return { tunnel, statuses };
  };

  beforeAll(async () => {
    stack = await startTunnelGateway({
      name: 'gw-tunnel',
      accounts: { alice: ALICE_PW, bob: BOB_PW },
      keys: { alice: ['alice', 'laptop'], bob: ['bob', 'laptop'] },
    });
    ({ dataDir, gw, keys } = stack);
    loopback = forwardToLoopback({ port: stack.upstream!.port });
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled(tunnels.map((t) => t.close()));
    loopback?.close();
    const code = stack ? await stack.close() : 0;
    expect(code, gw?.stderr()).toBe(0);
  });

  it('stores only a bcrypt hash and SHA-256 digests of keys, mode 0600', async () => {
    const path = join(dataDir, 'accounts.json');
    const text = await readFile(path, 'utf8');
    expect(text).not.toContain(ALICE_PW);
    expect(text).not.toContain(keys['alice']);
    expect(text).toMatch(/"passwordHash": "\$2b\$12\$[./A-Za-z0-9]{53}"/);
    expect(text).toMatch(/"sha256": "[0-9a-f]{64}"/);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('api-key mode: the owner key lists and calls through the path form; the agent credentials never reach the CLI', async () => {
    const { tunnel } = open('alice', 'laptop', { auth: 'api-key' });
    expect(await tunnel.connected()).toBe(`http://laptop--alice.${ZONE}:${gw.port}/mcp`);
    const client = new Client({ name: 'tunnel-e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gw.url}/t/laptop--alice/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${keys['alice']}`, cookie: 'sid=secret' } },
      }),
    );
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'changed']);
    expect(await client.callTool({ name: 'echo', arguments: { text: 'through the tunnel' } })).toMatchObject({
      content: [{ type: 'text', text: 'through the tunnel' }],
    });
    await client.close();
    expect(seen.length).toBeGreaterThan(0);
    for (const h of seen) {
      expect(h['authorization']).toBeUndefined();
      expect(h['cookie']).toBeUndefined();
      expect(h['x-forwarded-for']).toBe('127.0.0.1');
      expect(h['x-forwarded-host']).toBe(`127.0.0.1:${gw.port}`);
      expect(h['x-forwarded-proto']).toBe('http');
    }
  });

  it('routes by Host; another account key is refused 401', async () => {
    const host = `laptop--alice.${ZONE}:${gw.port}`;
    seen.length = 0;
    const ok = await raw(gw.port, { path: '/mcp', host, headers: rpcHeaders(keys['alice']), body: LIST });
    expect(ok.status).toBe(200);
    expect(ok.body).toContain('"echo"');
    expect(seen[0]?.['x-forwarded-host']).toBe(host);
    const bob = await raw(gw.port, { path: '/mcp', host, headers: rpcHeaders(keys['bob']), body: LIST });
    expect(bob.status).toBe(401);
    const none = await raw(gw.port, { path: '/mcp', host, headers: rpcHeaders(), body: LIST });
    expect(none.status).toBe(401);
  });

  it('refuses a subdomain held by another account (409)', async () => {
    const { tunnel } = open('bob', 'laptop', { auth: 'api-key' });
    await expect(tunnel.connected()).rejects.toMatchObject({ code: 'MCPP_TUNNEL_SUBDOMAIN_TAKEN' });
  });

  it('oauth mode: 401 names the tunnel metadata; the owner login works, the admin and gateway tokens do not', async () => {
    const { tunnel } = open('alice', 'web', {});
    await tunnel.connected();
    const host = `web--alice.${ZONE}:${gw.port}`;
    const challenge = await raw(gw.port, { path: '/mcp', host, headers: rpcHeaders(), body: LIST });
    expect(challenge.status).toBe(401);
    expect(challenge.headers['www-authenticate']).toContain(
      `resource_metadata="http://${host}/.well-known/oauth-protected-resource/mcp"`,
    );
    const meta = await raw(gw.port, {
      path: '/.well-known/oauth-protected-resource/mcp',
      host,
      method: 'GET',
    });
    expect(JSON.parse(meta.body)).toMatchObject({
      resource: `http://${host}/mcp`,
      authorization_servers: [gw.url],
    });
    const pathForm = await fetch(`${gw.url}/t/web--alice/mcp`, {
      method: 'POST',
      headers: rpcHeaders(),
      body: LIST,
    });
    expect(pathForm.status).toBe(401);
    expect(pathForm.headers.get('www-authenticate')).toContain(
      `resource_metadata="${gw.url}/.well-known/oauth-protected-resource/t/web--alice/mcp"`,
    );
    await expect(obtainTokenAs(gw.url, '/t/web--alice/mcp', { password: OWNER_PASSWORD })).rejects.toThrow(
      /login: 401/,
    );
    await expect(obtainTokenAs(gw.url, '/t/web--alice/mcp', { password: BOB_PW })).rejects.toThrow(
      /login: 401/,
    );
    const { token } = await obtainTokenAs(gw.url, '/t/web--alice/mcp', { password: ALICE_PW });
    const client = new Client({ name: 'tunnel-oauth', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gw.url}/t/web--alice/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('echo');
    await client.close();
    const gatewayToken = (await obtainToken(gw.url, '/mcp')).token;
    const refused = await fetch(`${gw.url}/t/web--alice/mcp`, {
      method: 'POST',
      headers: rpcHeaders(gatewayToken),
      body: LIST,
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
  }, 120_000);

  it('the IP allowlist refuses an address outside it (403)', async () => {
    const { tunnel } = open('alice', 'locked', { auth: 'none', allow: '10.0.0.0/8' });
    await tunnel.connected();
    const res = await fetch(`${gw.url}/t/locked--alice/mcp`, {
      method: 'POST',
      headers: rpcHeaders(),
      body: LIST,
    });
    expect(res.status).toBe(403);
  });

  it('offline: 503 tunnel_offline with Retry-After at once', async () => {
    const started = Date.now();
    const res = await fetch(`${gw.url}/t/nobody--alice/mcp`, {
      method: 'POST',
      headers: rpcHeaders(),
      body: LIST,
    });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(await res.json()).toMatchObject({ error: { code: -32000, data: { reason: 'tunnel_offline' } } });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('keys revoke in another process closes the live tunnel within about a second; the key is then refused', async () => {
    const listed = await gatewayCommand(['keys', 'list', '--account', 'bob', '--data-dir', dataDir]);
    const id = listed.stdout.split('\t')[0]!;
    // an account that does not exist is said, as `keys create` says it (not an empty list)
    const nobody = await gatewayCommand(['keys', 'list', '--account', 'nobody', '--data-dir', dataDir]);
    expect(nobody.code).toBe(2); // something to change, as the other refused commands
    expect(nobody.stderr).toContain('no account "nobody"');
    // the commands say where the change went: a relay reading another --data-dir (or Redis) would not see it
    // no terminal and no --password-stdin: say how to give the password, not "1 to 72 bytes"
    const noPrompt = await gatewayCommand(['accounts', 'add', 'dave', '--data-dir', dataDir]);
    expect(noPrompt.code).toBe(2);
    expect(noPrompt.stderr).toContain(
      'stdin is not a terminal, so there is no prompt: pipe the password with --password-stdin',
    );
    const short = await gatewayCommand(
      ['accounts', 'add', 'erin', '--password-stdin', '--data-dir', dataDir],
      'x',
    );
    expect(short.code).toBe(0);
    expect(short.stderr).toContain('warning: the password is shorter than 12 characters');
    const carol = await gatewayCommand(
      ['accounts', 'add', 'carol', '--password-stdin', '--data-dir', dataDir],
      'carol passphrase',
    );
    expect(carol.stderr).toContain(`account "carol" added (in ${join(dataDir, 'accounts.json')})`);
    const carolKey = await gatewayCommand(['keys', 'create', '--account', 'carol', '--data-dir', dataDir]);
    expect(carolKey.stderr).toContain(
      `created for "carol" (name "key-1") in ${join(dataDir, 'accounts.json')}`,
    );
    const { tunnel, statuses } = open('bob', 'desk', { auth: 'api-key' });
    await tunnel.connected();
    const revoked = await gatewayCommand(['keys', 'revoke', id, '--data-dir', dataDir]);
    expect(revoked.code).toBe(0);
    const at = Date.now();
    await waitFor(() => statuses.some((s) => s.status !== 'connected' && s.status !== 'connecting'), {
      timeoutMs: 10_000,
    });
    expect(Date.now() - at).toBeLessThan(3_000);
    const again = open('bob', 'desk', { auth: 'api-key' });
    await expect(again.tunnel.connected()).rejects.toMatchObject({ code: 'MCPP_TUNNEL_BAD_KEY' });
    // removing an account closes its tunnels saying so (not "the API key was revoked")
    keys['carol'] = carolKey.stdout.trim();
    const byCarol = open('carol', 'carol-desk', { auth: 'api-key' });
    await byCarol.tunnel.connected();
    expect((await gatewayCommand(['accounts', 'remove', 'carol', '--data-dir', dataDir])).code).toBe(0);
    let refused: TunnelStatus | undefined;
    await waitFor(() => (refused = byCarol.statuses.find((s) => s.status === 'refused')) !== undefined, {
      timeoutMs: 10_000,
    });
    expect(refused).toMatchObject({
      reason: expect.stringContaining('the account "carol" was removed from the relay'),
    });
  });
});
