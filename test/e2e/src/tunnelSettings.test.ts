/**
 * Issue 19 items 1, 3 (Settings) and 5 as real processes: the gateway with `--tunnel-zone` (accounts made with
 * its own commands), `mcppipe up --tunnel` over two real stdio upstreams (`faults`, `probe`), real SDK clients
 * of both eras through the tunnel, and the `/api` session, keys and settings routes over loopback HTTP.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { fixturePath, waitFor } from '@mcppipe/test-utils';
import type { RunningCli } from '@mcppipe/test-utils';
import { connectTunnel } from '@mcppipe/tunnel';
import type { TunnelStatus } from '@mcppipe/tunnel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayCommand } from './gatewayProcess.js';
import type { RunningGateway } from './gatewayProcess.js';
import { node, startTunnelCli, startTunnelGateway } from './tunnelStack.js';
import type { TunnelGateway } from './tunnelStack.js';

const ALICE_PW = 'alice settings passphrase';
const BOB_PW = 'bob settings passphrase';
const TUNNEL = 'laptop--alice';

let stack: TunnelGateway;
let dataDir: string;
let gw: RunningGateway;
let cli: RunningCli;
let aliceKey: string;
let publicUrl: URL;

interface Answer {
  status: number;
  headers: Headers;
  json: Record<string, unknown>;
}
async function api(
  path: string,
  init: {
    method?: string;
    body?: unknown;
    cookie?: string;
    csrf?: string;
    bearer?: string;
    headers?: Record<string, string>;
  } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.cookie) headers['cookie'] = init.cookie;
  if (init.csrf) headers['x-csrf-token'] = init.csrf;
  if (init.bearer) headers['authorization'] = `Bearer ${init.bearer}`;
  const res = await fetch(`${gw.url}${path}`, {
    method: init.method ?? 'GET',
    headers,
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    json: text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

async function login(account: string, password: string, headers?: Record<string, string>) {
  const res = await api('/api/session', {
    method: 'POST',
    body: { account, password },
    ...(headers && { headers }),
  });
  const setCookie = res.headers.get('set-cookie') ?? '';
  return { res, setCookie, cookie: setCookie.split(';')[0]!, csrf: String(res.json['csrf']) };
}

async function modern(): Promise<Client> {
  const c = new Client({ name: 'settings-v2', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await c.connect(
    new StreamableHTTPClientTransport(publicUrl, {
      requestInit: { headers: { authorization: `Bearer ${aliceKey}` } },
    }),
  );
  return c;
}
async function legacy(): Promise<V1Client> {
  const c = new V1Client({ name: 'settings-v1', version: '1' });
  await c.connect(
    new V1Transport(publicUrl, { requestInit: { headers: { authorization: `Bearer ${aliceKey}` } } }),
  );
  return c;
}
/** The HTTP status of a JSON-RPC `ping` POSTed to a tunnel with alice's key. */
async function pingStatus(url: string | URL): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${aliceKey}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  await res.body?.cancel();
  return res.status;
}
const rpcError = (err: unknown) => err as { code?: number; message?: string; data?: Record<string, unknown> };

beforeAll(async () => {
  stack = await startTunnelGateway({
    name: 'settings',
    servers: { basic: { command: process.execPath, args: [fixturePath('sup-basic.mjs')] } },
    accounts: { alice: ALICE_PW, bob: BOB_PW },
    keys: { alice: ['alice', 'cli'] },
    env: { TRUSTED_PROXIES: '127.0.0.1' },
  });
  ({ dataDir, gw } = stack);
  aliceKey = stack.keys['alice']!;
  cli = await startTunnelCli({
    gateway: gw.url,
    apiKey: aliceKey,
    subdomain: 'laptop',
    stdio: { faults: node(fixturePath('agg-faults.mjs')), probe: node(fixturePath('e2e-probe.mjs')) },
  });
  publicUrl = new URL(`${gw.url}/t/${TUNNEL}/mcp`);
}, 180_000);

afterAll(async () => {
  await cli?.stop();
  await stack?.close();
});

describe('POST|GET|DELETE /api/session', () => {
  it('login sets an HttpOnly, SameSite=Lax, Path=/ cookie, Secure only for https after TRUSTED_PROXIES', async () => {
    const plain = await login('alice', ALICE_PW);
    expect(plain.res.status).toBe(200);
    expect(plain.res.json).toEqual({ account: 'alice', csrf: expect.any(String) });
    expect(plain.setCookie).toMatch(/^mcppipe_session=[A-Za-z0-9_-]{43};/);
    expect(plain.setCookie).toMatch(/; HttpOnly/);
    expect(plain.setCookie).toMatch(/; SameSite=Lax/);
    expect(plain.setCookie).toMatch(/; Path=\//);
    expect(plain.setCookie).not.toMatch(/Secure/);
    const https = await login('alice', ALICE_PW, { 'x-forwarded-proto': 'https' });
    expect(https.setCookie).toMatch(/; Secure/);
    const me = await api('/api/session', { cookie: plain.cookie });
    expect(me.json).toEqual({ account: 'alice', csrf: plain.csrf });
    expect((await api('/api/session', { method: 'DELETE', cookie: plain.cookie })).json).toEqual({
      error: 'csrf',
      message: expect.any(String),
    });
    expect(
      (await api('/api/session', { method: 'DELETE', cookie: plain.cookie, csrf: plain.csrf })).status,
    ).toBe(204);
    const gone = await api('/api/session', { cookie: plain.cookie });
    expect(gone.status).toBe(401);
    expect(gone.headers.get('www-authenticate')).toBe('Bearer realm="mcppipe-api"');
    // a dashboard user is told to log in again, not about the admin token
    expect(gone.json['message']).toMatch(/session ended.*log in again/);
    expect(gone.json['message']).not.toContain('MCPPIPE_API_TOKEN');
    // an API key opens the account's routes but has no session to read
    const byKey = await api('/api/session', { bearer: aliceKey });
    expect(byKey.status).toBe(401);
    expect(byKey.json['message']).toContain('an API key has none');
    // ?optional=1 asks without an error status: the session when there is one, else 204
    const fresh = await login('alice', ALICE_PW);
    const probe = await api('/api/session?optional=1', { cookie: fresh.cookie });
    expect(probe.status).toBe(200);
    expect(probe.json).toEqual({ account: 'alice', csrf: fresh.csrf });
    expect((await api('/api/session?optional=1', { cookie: plain.cookie })).status).toBe(204);
    expect((await api('/api/session?optional=1')).status).toBe(204);
    // with an Authorization header it is the plain GET: a key has no session, a wrong bearer is refused
    expect((await api('/api/session?optional=1', { bearer: aliceKey })).status).toBe(401);
    expect((await api('/api/session?optional=1', { bearer: 'mcp_wrong' })).status).toBe(401);
    expect((await api('/api/tunnels?optional=1')).status).toBe(401);
  });

  it('a wrong password and an unknown account both answer 401 with the same message', async () => {
    const wrong = await login('alice', 'not the passphrase');
    const unknown = await login('nobody', 'not the passphrase');
    expect(wrong.res.status).toBe(401);
    expect(unknown.res.status).toBe(401);
    expect(wrong.res.json).toEqual(unknown.res.json);
    expect(wrong.setCookie).toBe('');
  });

  it('failed logins past 10 a minute per account and address answer 429 with Retry-After', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await login('bob', `wrong ${i}`)).res.status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses[10]).toBe(429);
    const limited = await login('bob', BOB_PW);
    expect(limited.res.status).toBe(429);
    expect(Number(limited.res.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('/api/tunnels/:id/settings enforced at the relay', () => {
  it('a state-changing call with the cookie but without x-csrf-token is refused with 403', async () => {
    const s = await login('alice', ALICE_PW);
    const res = await api(`/api/tunnels/${TUNNEL}/settings`, {
      method: 'PUT',
      cookie: s.cookie,
      body: { auth: 'api-key' },
    });
    expect(res.status).toBe(403);
    expect(res.json['error']).toBe('csrf');
    const ok = await api(`/api/tunnels/${TUNNEL}/settings`, {
      method: 'PUT',
      cookie: s.cookie,
      csrf: s.csrf,
      body: { auth: 'api-key' },
    });
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual({
      auth: 'api-key',
      allow: [],
      policies: { deny: [], allow: [] },
      limits: { callsPerMinute: null },
      capture: { values: false },
      holdChangedTools: false,
    });
    // the CLI connected with auth oauth: the stored api-key mode wins, so the owner's key now reaches the tunnel
    const c = await modern();
    expect((await c.listTools()).tools.map((t) => t.name)).toContain('faults__echo');
    await c.close();
    const file = await stat(join(dataDir, 'tunnel-settings.json'));
    expect(file.mode & 0o777).toBe(0o600);
  });

  it('deny faults__* hides the tools from the next tools/list and refuses their call, for both SDK eras', async () => {
    const put = await api(`/api/tunnels/${TUNNEL}/settings`, {
      method: 'PUT',
      bearer: aliceKey,
      body: { policies: { deny: ['faults__*'] } },
    });
    expect(put.status).toBe(200);
    const c = await modern();
    const names = (await c.listTools()).tools.map((t) => t.name);
    expect(names.filter((n) => n.startsWith('faults__'))).toEqual([]);
    expect(names).toContain('probe__echo');
    const refused = await c
      .callTool({ name: 'faults__echo', arguments: { text: 'x' } })
      .catch((e: unknown) => e);
    expect(rpcError(refused).code).toBe(-32602);
    expect(rpcError(refused).message).toContain('Unknown tool: "faults__echo"');
    await c.close();
    const v1 = await legacy();
    const v1names = (await v1.listTools()).tools.map((t) => t.name);
    expect(v1names.some((n) => n.startsWith('faults__'))).toBe(false);
    expect(v1names).toContain('probe__echo');
    const v1refused = await v1
      .callTool({ name: 'faults__echo', arguments: { text: 'x' } })
      .catch((e: unknown) => e);
    expect(rpcError(v1refused).code).toBe(-32602);
    await v1.close();
    // no response header HTTP/2 forbids (`connection`) reached the tunnel's stream: node warns once per process
    expect(cli.stderr()).not.toContain('UnsupportedWarning');
    // a status change is one log line (the CLI's), not the tunnel library's too
    expect(cli.stderr().match(/"msg":"tunnel connected/g)).toEqual(['"msg":"tunnel connected']);
  });

  it('a limit of 3 calls a minute refuses the 4th call, of any tool, with the rate-limit error naming the whole tunnel', async () => {
    await api(`/api/tunnels/${TUNNEL}/settings`, {
      method: 'PUT',
      bearer: aliceKey,
      body: { policies: { deny: [] }, limits: { callsPerMinute: 3 } },
    });
    const c = await modern();
    for (let i = 0; i < 3; i++) {
      const r = await c.callTool({ name: 'probe__echo', arguments: { text: `n${i}` } });
      expect(r.isError ?? false).toBe(false);
    }
    const refused = rpcError(
      await c.callTool({ name: 'probe__echo', arguments: { text: 'n3' } }).catch((e: unknown) => e),
    );
    expect(refused.code).toBe(-31429);
    expect(refused.message).toMatch(
      /^rate_limited: too many tool calls \(limit 3\/min for all tools and callers together, burst 3\); "probe__echo" was not called; retry in \d+ s$/,
    );
    expect(refused.data?.['retryAfterMs']).toBeGreaterThan(0);
    // one bucket for the tunnel: another tool is refused too
    const other = rpcError(await c.callTool({ name: 'probe__pid', arguments: {} }).catch((e: unknown) => e));
    expect(other.code).toBe(-31429);
    expect((await c.listTools()).tools.length).toBeGreaterThan(0); // lists are not counted
    await c.close();
    await api(`/api/tunnels/${TUNNEL}/settings`, {
      method: 'PUT',
      bearer: aliceKey,
      body: { limits: { callsPerMinute: null } },
    });
  });

  it('an allowlist change applies to the next request', async () => {
    await api(`/api/tunnels/${TUNNEL}/settings`, {
      method: 'PUT',
      bearer: aliceKey,
      body: { allow: ['10.0.0.0/8'] },
    });
    expect(await pingStatus(publicUrl)).toBe(403);
    await api(`/api/tunnels/${TUNNEL}/settings`, {
      method: 'PUT',
      bearer: aliceKey,
      body: { allow: ['127.0.0.1/32', '::1'] },
    });
    const c = await modern();
    expect((await c.listTools()).tools.length).toBeGreaterThan(0);
    await c.close();
  });

  it('a field set to null follows the CLI again (an allowlist reset brings back --allow-ip); offline, settings still answer', async () => {
    const guarded = await startTunnelCli({
      gateway: gw.url,
      apiKey: aliceKey,
      subdomain: 'guarded',
      stdio: { probe: node(fixturePath('e2e-probe.mjs')) },
      auth: 'api-key',
      flags: ['--allow-ip', '10.0.0.0/8'],
    });
    try {
      const url = `/api/tunnels/guarded--alice/settings`;
      const ping = () => pingStatus(`${gw.url}/t/guarded--alice/mcp`);
      expect(await ping()).toBe(403); // the CLI's allowlist
      const open = await api(url, { method: 'PUT', bearer: aliceKey, body: { allow: [] } });
      expect(open.json['allow']).toEqual([]);
      expect(await ping()).not.toBe(403); // the owner's empty allowlist: every address
      const reset = await api(url, { method: 'PUT', bearer: aliceKey, body: { allow: null } });
      expect(reset.status).toBe(200);
      expect(reset.json['allow']).toEqual(['10.0.0.0/8']);
      const connected = (await api(url, { bearer: aliceKey })).json;
      expect(connected['allow']).toEqual(['10.0.0.0/8']);
      expect(await ping()).toBe(403);
      // stopped: its settings still answer, from its last connection (not 404, not the defaults), and can be set
      await guarded.stop();
      const offline = await api(url, { bearer: aliceKey });
      expect(offline.status).toBe(200);
      expect(offline.json).toEqual(connected);
      const put = await api(url, { method: 'PUT', bearer: aliceKey, body: { allow: ['127.0.0.1'] } });
      expect(put.status).toBe(200);
      expect(put.json['allow']).toEqual(['127.0.0.1']);
      expect(put.json['auth']).toBe('api-key');
    } finally {
      await guarded.stop();
    }
  });

  it("another account's tunnel answers 404; no caller answers 401", async () => {
    const bob = await gatewayCommand(['keys', 'create', '--account', 'bob', '--data-dir', dataDir]);
    await waitFor(async () => (await api('/api/keys', { bearer: bob.stdout.trim() })).status === 200, {
      timeoutMs: 10_000,
    });
    const asBob = await api(`/api/tunnels/${TUNNEL}/settings`, { bearer: bob.stdout.trim() });
    expect(asBob.status).toBe(404);
    expect(asBob.json['error']).toBe('not_found');
    const put = await api(`/api/tunnels/${TUNNEL}/settings`, {
      method: 'PUT',
      bearer: bob.stdout.trim(),
      body: { auth: 'none' },
    });
    expect(put.status).toBe(404);
    expect((await api('/api/tunnels/nope--alice/settings', { bearer: aliceKey })).status).toBe(404);
    const none = await api(`/api/tunnels/${TUNNEL}/settings`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="mcppipe-api"');
  });

  it('bad input answers 400 with a message naming the field', async () => {
    const cases: [unknown, RegExp][] = [
      [{ limits: { callsPerMinute: -1 } }, /limits\.callsPerMinute/],
      [{ auth: 'password' }, /^auth: /],
      [{ allow: ['not-an-ip'] }, /allow: "not-an-ip"/],
      [{ policies: { deny: 'faults__*' } }, /^policies\.deny: /],
      [{ colour: 'red' }, /^colour: unknown field/],
    ];
    for (const [body, message] of cases) {
      const res = await api(`/api/tunnels/${TUNNEL}/settings`, { method: 'PUT', bearer: aliceKey, body });
      expect(res.status).toBe(400);
      expect(String(res.json['message'])).toMatch(message);
    }
    // a body that is not JSON gets the API's own { error, message }, not Fastify's shape
    const broken = await fetch(`${gw.url}/api/tunnels/${TUNNEL}/settings`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${aliceKey}`, 'content-type': 'application/json' },
      body: '{"auth": ',
    });
    expect(broken.status).toBe(400);
    const answer = (await broken.json()) as Record<string, unknown>;
    expect(Object.keys(answer).sort()).toEqual(['error', 'message']);
    expect(answer['error']).toBe('invalid_json');
    // a body that is not JSON by its type: 415, same shape
    const plain = await fetch(`${gw.url}/api/tunnels/${TUNNEL}/settings`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${aliceKey}`, 'content-type': 'text/plain' },
      body: '{"auth": "none"}',
    });
    expect(plain.status).toBe(415);
    expect(await plain.json()).toMatchObject({ error: 'unsupported_media_type' });
    // a route /api does not have: 404 in the same shape, not a JSON-RPC error
    const nowhere = await api('/api/nonexistent?x=1', { bearer: aliceKey });
    expect(nowhere.status).toBe(404);
    expect(nowhere.json).toEqual({ error: 'not_found', message: 'no route GET /api/nonexistent' });
  });
});

describe('/api/keys', () => {
  it('a created key works as a tunnel key; revoking it closes the live tunnel', async () => {
    const s = await login('alice', ALICE_PW);
    const created = await api('/api/keys', {
      method: 'POST',
      cookie: s.cookie,
      csrf: s.csrf,
      body: { name: 'spare laptop' },
    });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({
      id: expect.stringMatching(/^key_/),
      name: 'spare laptop',
      key: expect.stringMatching(/^mcpp_/),
    });
    const listed = await api('/api/keys', { cookie: s.cookie });
    const keys = listed.json['keys'] as { id: string; name: string; createdAt: string }[];
    expect(keys.find((k) => k.id === created.json['id'])).toEqual({
      id: created.json['id'],
      name: 'spare laptop',
      createdAt: expect.any(String),
    });
    expect(JSON.stringify(listed.json)).not.toContain(String(created.json['key']));
    const statuses: TunnelStatus[] = [];
    const tunnel = connectTunnel({
      relayUrl: `${gw.url}/tunnel/connect`,
      apiKey: String(created.json['key']),
      subdomain: 'spare',
      metadata: { auth: 'none' },
      handler: (_req, res) => res.end('ok'),
      onStatus: (st) => statuses.push(st),
    });
    try {
      await tunnel.connected();
      const asBob = await gatewayCommand(['keys', 'list', '--account', 'bob', '--data-dir', dataDir]);
      expect(asBob.stdout).not.toContain(String(created.json['id']));
      const revoked = await api(`/api/keys/${String(created.json['id'])}`, {
        method: 'DELETE',
        cookie: s.cookie,
        csrf: s.csrf,
      });
      expect(revoked.status).toBe(204);
      await waitFor(() => statuses.some((st) => st.status !== 'connected' && st.status !== 'connecting'), {
        timeoutMs: 10_000,
      });
      expect((await api('/api/keys', { cookie: s.cookie })).json['keys']).not.toContainEqual(
        expect.objectContaining({ id: created.json['id'] }),
      );
    } finally {
      await tunnel.close();
    }
  });

  it("bad names answer 400 and another account's key answers 404", async () => {
    expect((await api('/api/keys', { method: 'POST', bearer: aliceKey, body: {} })).status).toBe(400);
    // key names are unique per account (Live tells callers apart by them); keys create names one by default
    const first = await api('/api/keys', { method: 'POST', bearer: aliceKey, body: { name: 'ci-bot' } });
    expect(first.status).toBe(201);
    const twice = await api('/api/keys', { method: 'POST', bearer: aliceKey, body: { name: 'ci-bot' } });
    expect([twice.status, twice.json['error']]).toEqual([409, 'conflict']);
    expect(twice.json['message']).toBe(
      'account "alice" has a key named "ci-bot" already: choose another name, or revoke that key first',
    );
    const unnamed = await gatewayCommand(['keys', 'create', '--account', 'bob', '--data-dir', dataDir]);
    expect(unnamed.stderr).toMatch(/^key key_\S+ created for "bob" \(name "key-\d+"\) in /);
    const bob = await gatewayCommand(['keys', 'list', '--account', 'bob', '--data-dir', dataDir]);
    const bobId = bob.stdout.split('\t')[0]!;
    const res = await api(`/api/keys/${bobId}`, { method: 'DELETE', bearer: aliceKey });
    expect(res.status).toBe(404);
  });
});

describe('the auth mode mcppipe up shows', () => {
  it('is the one the relay applies: the saved setting wins over --tunnel-auth, and the CLI says so', async () => {
    const put = await api(`/api/tunnels/${TUNNEL}/settings`, {
      method: 'PUT',
      bearer: aliceKey,
      body: { auth: 'api-key' },
    });
    expect(put.status).toBe(200);
    // a second mcppipe up of the same account takes the subdomain over (the last test of this file)
    await using again = await startTunnelCli({
      gateway: gw.url,
      apiKey: aliceKey,
      subdomain: 'laptop',
      auth: 'oauth',
      stdio: { faults: node(fixturePath('agg-faults.mjs')) },
    });
    await waitFor(() => again.stderr().includes('the relay applies auth api-key'), {
      timeoutMs: 10_000,
      message: 'the warning about the saved auth mode',
    });
    expect(again.stderr()).toContain('not --tunnel-auth oauth');
    await waitFor(() => /tunnel \S+ \(connected; auth api-key\)/.test(again.stderr()), {
      timeoutMs: 20_000,
      message: 'the startup table line with the applied auth mode',
    });
    // the paste line adds the key header, as for --tunnel-auth api-key
    expect(again.stderr()).toContain('$MCPPIPE_API_KEY');
  });

  it('a saved auth none is warned about loudly by the relay too, as when the CLI asks for it', async () => {
    const put = await api(`/api/tunnels/${TUNNEL}/settings`, {
      method: 'PUT',
      bearer: aliceKey,
      body: { auth: 'none' },
    });
    expect(put.status).toBe(200);
    // pino writes JSON: the message's quotes are escaped
    const warnings = () => gw.stderr().match(/tunnel connected with auth \\?"none\\?"/g)?.length ?? 0;
    const before = warnings();
    await using again = await startTunnelCli({
      gateway: gw.url,
      apiKey: aliceKey,
      subdomain: 'laptop',
      stdio: { faults: node(fixturePath('agg-faults.mjs')) },
    });
    await waitFor(() => again.stderr().includes('the relay applies auth none'), { timeoutMs: 10_000 });
    await waitFor(() => warnings() > before, {
      timeoutMs: 10_000,
      message: 'the relay warning about auth none',
    });
    expect(gw.stderr()).toMatch(/WARNING: tunnel connected with auth \\?"none\\?": anyone who can reach/);
  });
});
