/**
 * The tunnel with both real processes (issue 16 "Tests"; DESIGN.md T1–T7): the gateway as a process with
 * `--tunnel-zone`, an account and keys made with its own commands, `mcppipe up --tunnel <gateway> --api-key K` as a
 * process with two real stdio upstreams, and real clients reaching `http://<sub>--<acct>.<zone>:PORT/mcp` by `Host`
 * (a resolver override maps the zone to 127.0.0.1): the v2 SDK client with its own OAuth flow (the owner logs in and
 * approves), a v1 client as a 2025-era agent with an API key, progress and cancellation of both eras, SIGKILL of
 * the gateway then a restart on the same port and data dir, SIGKILL of the CLI, another account's key, and no
 * process left after stop.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  MemoryOAuthProvider,
  fixturePath,
  isPidRunning,
  processTreePids,
  startCli,
  waitFor,
  zoneFetch,
} from '@mcppipe/test-utils';
import type { RunningCli } from '@mcppipe/test-utils';
import { approveAsOwner } from '@mcppipe/test-utils/oauth-flow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, rpcHeaders, startGateway } from './gatewayProcess.js';
import type { RunningGateway } from './gatewayProcess.js';
import { ZONE, node, startTunnelGateway } from './tunnelStack.js';
import type { TunnelGateway } from './tunnelStack.js';

const ALICE_PW = 'alice e2e tunnel passphrase';
const BOB_PW = 'bob e2e tunnel passphrase';
const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

const text = (r: unknown) =>
  ((r as { content?: { type: string; text?: string }[] }).content ?? []).find((c) => c.type === 'text')
    ?.text ?? '';
const upstreams = [
  '--stdio',
  `faults=${node(fixturePath('agg-faults.mjs'))}`,
  '--stdio',
  `probe=env PROBE_LOG=\${PROBE_LOG} ${node(fixturePath('e2e-probe.mjs'))}`,
];

const connectedCount = (cli: RunningCli) => cli.stderr().split('tunnel connected: ').length - 1;

describe('tunnel end to end: mcppipe-gateway --tunnel-zone and mcppipe up --tunnel as processes', () => {
  const zoned = zoneFetch(ZONE);
  let stack: TunnelGateway;
  let keys: Record<string, string>;
  let probeLog: string;
  let gw: RunningGateway;
  /** `--tunnel-auth oauth` (the default), subdomain `web`. */
  let webCli: RunningCli;
  /** `--tunnel-auth api-key`, subdomain `laptop`. */
  let keyCli: RunningCli;
  const oauth = new MemoryOAuthProvider('tunnel e2e agent');
  let webUrl: URL;
  let laptopUrl: URL;
  const pids = new Set<number>();

  /** `mcppipe up --tunnel` over both upstreams; the caller waits for what it expects (connected, or refused). */
  const startUpTunnel = (apiKey: string, extra: string[]) =>
    startCli([...upstreams, '--tunnel', gw.url, '--api-key', apiKey, ...extra], {
      env: { PROBE_LOG: probeLog },
    });
  /** The v2 client (2026-era when both sides speak it), with the OAuth provider that already holds a token. */
  const webClient = async () => {
    const c = new Client({ name: 'tunnel-e2e-v2', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await c.connect(new StreamableHTTPClientTransport(webUrl, { authProvider: oauth, fetch: zoned.fetch }));
    return c;
  };
  /** A v1 client (2025-era agent) with alice's key on the api-key tunnel. */
  const keyClient = async (key = keys['alice']!) => {
    const client = new V1Client({ name: 'tunnel-e2e-v1', version: '1' });
    const transport = new V1Transport(laptopUrl, {
      fetch: zoned.fetch,
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    });
    await client.connect(transport);
    return { client, transport };
  };
  const probeSaw = (tag: string) => async () =>
    (await readFile(probeLog, 'utf8').catch(() => '')).includes(tag);

  beforeAll(async () => {
    stack = await startTunnelGateway({
      name: 'tunnel-e2e',
      // the gateway needs one server of its own besides the relay (an empty mcpServers is refused)
      servers: { own: { command: process.execPath, args: [fixturePath('e2e-probe.mjs')] } },
      accounts: { alice: ALICE_PW, bob: BOB_PW },
      keys: { alice: ['alice'], bob: ['bob'] },
    });
    ({ gw, keys } = stack);
    probeLog = join(stack.dir, 'probe.log');
    pids.add(gw.proc.pid!);
    webUrl = new URL(`http://web--alice.${ZONE}:${gw.port}/mcp`);
    laptopUrl = new URL(`http://laptop--alice.${ZONE}:${gw.port}/mcp`);
    [webCli, keyCli] = await Promise.all([
      startUpTunnel(keys['alice']!, ['--subdomain', 'web']),
      startUpTunnel(keys['alice']!, ['--subdomain', 'laptop', '--tunnel-auth', 'api-key']),
    ]);
    for (const cli of [webCli, keyCli]) {
      await waitFor(() => connectedCount(cli) === 1, { timeoutMs: 30_000, message: 'the tunnel to connect' });
      for (const pid of processTreePids(cli.proc.pid!)) pids.add(pid);
    }
  }, 180_000);

  afterAll(async () => {
    await Promise.allSettled([webCli?.stop(), keyCli?.stop()]);
    await stack?.close();
    await zoned.close();
  });

  it('prints the public URLs the relay handed out, with the auth mode, never the key', () => {
    expect(webCli.stderr()).toContain(`tunnel connected: ${webUrl.href}`);
    expect(webCli.stderr()).toContain(`mcppipe: tunnel ${webUrl.href} (connected; auth oauth)`);
    expect(keyCli.stderr()).toContain(`mcppipe: tunnel ${laptopUrl.href} (connected; auth api-key)`);
    expect(webCli.stderr() + keyCli.stderr() + gw.stderr()).not.toContain(keys['alice']);
  });

  it('(1) the v2 SDK client runs its own OAuth flow (discovery, registration, owner login and approval) and lists and calls the namespaced tools', async () => {
    const first = new StreamableHTTPClientTransport(webUrl, { authProvider: oauth, fetch: zoned.fetch });
    await expect(new Client({ name: 'tunnel-e2e-v2', version: '1' }).connect(first)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    const authUrl = oauth.authorizationUrl!;
    expect(authUrl.origin + authUrl.pathname).toBe(`${gw.url}/authorize`);
    expect(authUrl.searchParams.get('resource')).toBe(webUrl.href);
    expect(oauth.info?.client_id).toEqual(expect.any(String));
    // the sign-in page names the account whose password it wants (the tunnel's owner, not the gateway's admin)
    const signIn = await (await fetch(authUrl)).text();
    expect(signIn).toContain('a tunnel of account <strong>alice</strong>');
    expect(signIn).toContain('Password of account alice');
    await expect(approveAsOwner(authUrl, BOB_PW)).rejects.toThrow(/login: 401/); // another account's password
    const callback = await approveAsOwner(authUrl, ALICE_PW);
    await first.finishAuth(callback.searchParams);
    expect(oauth.current?.access_token).toEqual(expect.any(String));

    const c = await webClient();
    const names = (await c.listTools()).tools.map((t) => t.name);
    expect(names).toContain('faults__echo');
    expect(names).toContain('probe__echo');
    expect(
      text(await c.callTool({ name: 'faults__echo', arguments: { text: 'oauth over the tunnel' } })),
    ).toBe('faults: oauth over the tunnel');
    expect(text(await c.callTool({ name: 'probe__echo', arguments: { text: 'second upstream' } }))).toBe(
      'second upstream',
    );
    await c.close();
    const none = await rawRequest(gw.port, {
      path: '/mcp',
      host: webUrl.host,
      headers: rpcHeaders(),
      body: LIST,
    });
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toContain(
      `resource_metadata="http://${webUrl.host}/.well-known/oauth-protected-resource/mcp"`,
    );
    // a token sent is refused with its reason, not "send a token": another address of the tunnel is another resource
    const token = { ...rpcHeaders(), authorization: `Bearer ${oauth.current!.access_token}` };
    const pathForm = await rawRequest(gw.port, {
      path: '/t/web--alice/mcp',
      host: `127.0.0.1:${gw.port}`,
      headers: token,
      body: LIST,
    });
    expect(pathForm.status).toBe(401);
    const message = (JSON.parse(pathForm.body) as { error: { message: string } }).error.message;
    expect(message).toMatch(/^Unauthorized: The access token was not issued for this resource/);
    expect(message).toContain('its host form and its /t/ path form are different resources');
    const garbage = await rawRequest(gw.port, {
      path: '/mcp',
      host: webUrl.host,
      headers: { ...rpcHeaders(), authorization: 'Bearer not.a.token' },
      body: LIST,
    });
    expect((JSON.parse(garbage.body) as { error: { message: string } }).error.message).toBe(
      'Unauthorized: The access token is invalid or expired',
    );
  }, 120_000);

  it('(2) a v1 client as a 2025-era agent with --tunnel-auth api-key lists and calls by Host', async () => {
    const { client, transport } = await keyClient();
    expect(transport.sessionId).toBeTruthy();
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['faults__echo', 'probe__echo', 'probe__wait']));
    expect(text(await client.callTool({ name: 'probe__echo', arguments: { text: 'v1 by key' } }))).toBe(
      'v1 by key',
    );
    await client.close();
  }, 60_000);

  it('(3) progress and cancellation cross relay and tunnel in both eras', async () => {
    const c = await webClient();
    const seen: number[] = [];
    await c.callTool(
      { name: 'faults__progress_final', arguments: { count: 4 } },
      { onprogress: (p) => seen.push(p.progress), timeout: 30_000 },
    );
    expect(seen.slice(0, 3)).toEqual([1, 2, 3]);
    const ac = new AbortController();
    const call = c.callTool(
      { name: 'probe__wait', arguments: { ms: 30_000, tag: 'e2e-v2' } },
      { signal: ac.signal },
    );
    setTimeout(() => ac.abort(), 500);
    await expect(call).rejects.toBeDefined();
    await waitFor(probeSaw('cancelled e2e-v2'), { timeoutMs: 15_000, message: 'the 2026-era cancellation' });
    await c.close();

    const { client } = await keyClient();
    const seenV1: number[] = [];
    await client.callTool({ name: 'faults__progress_final', arguments: { count: 4 } }, undefined, {
      onprogress: (p) => seenV1.push(p.progress),
      timeout: 30_000,
    });
    expect(seenV1.slice(0, 3)).toEqual([1, 2, 3]);
    const ac1 = new AbortController();
    const call1 = client.callTool(
      { name: 'probe__wait', arguments: { ms: 30_000, tag: 'e2e-v1' } },
      undefined,
      {
        signal: ac1.signal,
      },
    );
    setTimeout(() => ac1.abort(), 500);
    await expect(call1).rejects.toBeDefined();
    await waitFor(probeSaw('cancelled e2e-v1'), { timeoutMs: 15_000, message: 'the 2025-era cancellation' });
    await client.close();
  }, 90_000);

  it('(6) a key of another account is refused on the tunnel, and its subdomain cannot be taken', async () => {
    const bob = await rawRequest(gw.port, {
      path: '/mcp',
      host: laptopUrl.host,
      headers: rpcHeaders(keys['bob']),
      body: LIST,
    });
    expect(bob.status).toBe(401);
    expect(bob.body).not.toContain('faults__echo');
    // RFC 6750 §3.1: a key that is not the owner's is an invalid_token; no credentials at all carry no error code
    expect(bob.headers['www-authenticate']).toBe('Bearer realm="mcppipe tunnel", error="invalid_token"');
    const anonymous = await rawRequest(gw.port, {
      path: '/mcp',
      host: laptopUrl.host,
      headers: rpcHeaders(),
      body: LIST,
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe('Bearer realm="mcppipe tunnel"');
    const taken = await startUpTunnel(keys['bob']!, ['--subdomain', 'laptop', '--tunnel-auth', 'api-key']);
    try {
      await waitFor(() => taken.stderr().includes('"code":"MCPP_TUNNEL_SUBDOMAIN_TAKEN"'), {
        timeoutMs: 30_000,
        message: 'the subdomain refusal',
      });
      expect(taken.stderr()).toContain(
        '(refused: subdomain "laptop" is held by another account\'s live tunnel',
      );
    } finally {
      await taken.stop();
    }
    const { client } = await keyClient(); // alice's tunnel kept its subdomain
    expect(text(await client.callTool({ name: 'probe__echo', arguments: { text: 'still mine' } }))).toBe(
      'still mine',
    );
    await client.close();
  }, 60_000);

  it('(4) SIGKILL of the gateway, restart on the same port and data dir: the CLIs reconnect by themselves and the 2025-era session keeps working', async () => {
    const { client, transport } = await keyClient();
    const session = transport.sessionId;
    expect(session).toBeTruthy();
    const before = [connectedCount(webCli), connectedCount(keyCli)];
    const port = gw.port;
    const exited = new Promise((r) => gw.proc.once('exit', r));
    gw.proc.kill('SIGKILL');
    await exited;
    gw = stack.gw = await startGateway(stack.args, {}, { port });
    pids.add(gw.proc.pid!);
    await waitFor(() => connectedCount(keyCli) > before[1]! && connectedCount(webCli) > before[0]!, {
      timeoutMs: 60_000,
      message: 'both CLIs to reconnect',
    });
    expect(keyCli.stderr()).toMatch(/tunnel reconnecting in \d+ s/);
    expect(text(await client.callTool({ name: 'probe__echo', arguments: { text: 'after restart' } }))).toBe(
      'after restart',
    );
    expect(transport.sessionId).toBe(session);
    await client.close();
    // the OAuth token the gateway issued before it was killed is still valid for the tunnel
    const c = await webClient();
    expect(text(await c.callTool({ name: 'faults__echo', arguments: { text: 'token kept' } }))).toBe(
      'faults: token kept',
    );
    await c.close();
  }, 120_000);

  it('(5) SIGKILL of the CLI: the public URL answers 503 tunnel_offline at once', async () => {
    const exited = new Promise((r) => webCli.proc.once('exit', r));
    webCli.proc.kill('SIGKILL');
    await exited;
    const res = await waitFor(
      async () => {
        const r = await rawRequest(gw.port, {
          path: '/mcp',
          host: webUrl.host,
          headers: rpcHeaders(),
          body: LIST,
        });
        return r.status === 503 ? r : undefined;
      },
      { timeoutMs: 5_000, message: 'tunnel_offline' },
    );
    expect(res.headers['retry-after']).toBe('5');
    expect(JSON.parse(res.body)).toMatchObject({
      error: { code: -32000, data: { reason: 'tunnel_offline' } },
    });
    const started = Date.now();
    expect(
      (await rawRequest(gw.port, { path: '/mcp', host: webUrl.host, headers: rpcHeaders(), body: LIST }))
        .status,
    ).toBe(503);
    expect(Date.now() - started).toBeLessThan(2_000);
  }, 30_000);

  it('(7) no process is left after stop', async () => {
    for (const pid of processTreePids(keyCli.proc.pid!)) pids.add(pid);
    expect(await keyCli.stop()).toBe(0);
    expect(await gw.stop()).toBe(0);
    await waitFor(() => [...pids].every((p) => !isPidRunning(p)), {
      timeoutMs: 15_000,
      message: `no process left of ${[...pids].join(', ')}`,
    });
  }, 60_000);
});
