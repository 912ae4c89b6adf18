/**
 * Issue 16's "Done when" with a real third-party client: `mcp-remote` (the npm stdio ↔ remote MCP bridge, pinned in
 * this package) through the tunnel. The gateway runs as a process with `--tunnel-zone`, the account and its key are
 * made with the gateway's own commands, and two `mcppipe up --tunnel` processes serve a small layout of real stdio
 * upstreams: one with the default `oauth` tunnel auth, one with `api-key`. `mcp-remote` is spawned the way a
 * stdio-only host spawns it (the v1 SDK's stdio transport on its stdin/stdout) against the path form of the public
 * URL (T4; the `<sub>--<acct>.<zone>` name does not resolve by DNS here, and mcp-remote takes no resolver), then
 * initializes, lists and calls the namespaced tools. In `oauth` mode the test plays the owner's browser at the
 * authorize URL mcp-remote prints (headless: no browser can open, its PATH is empty), then mcp-remote's own
 * callback server finishes the flow. No process is left at the end.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  fixturePath,
  isPidRunning,
  processTreePids,
  referenceServerPath,
  startCli,
  waitFor,
} from '@mcppipe/test-utils';
import type { RunningCli } from '@mcppipe/test-utils';
import { approveAsOwner } from '@mcppipe/test-utils/oauth-flow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayCommand, startGateway } from './gatewayProcess.js';
import type { RunningGateway } from './gatewayProcess.js';

const ZONE = 'tunnel.test';
const ALICE_PW = 'alice mcp-remote passphrase';
/** `mcp-remote`'s stdio entry point, from the exact version pinned in test/e2e/package.json. */
const mcpRemote = join(
  dirname(createRequire(import.meta.url).resolve('mcp-remote/package.json')),
  'dist',
  'proxy.js',
);

const node = (script: string) => [process.execPath, script].map((a) => JSON.stringify(a)).join(' ');
const text = (r: unknown) =>
  ((r as { content?: { type: string; text?: string }[] }).content ?? []).find((c) => c.type === 'text')
    ?.text ?? '';
const upstreams = [
  '--stdio',
  `everything=${node(referenceServerPath('everything'))}`,
  '--stdio',
  `probe=${node(fixturePath('e2e-probe.mjs'))}`,
];

/** One `mcp-remote` child with a v1 SDK client on its stdio, and everything it wrote to stderr. */
interface RemoteBridge {
  client: V1Client;
  pid: number;
  stderr(): string;
  /** What `onStderr` started (the owner's approval), if anything. */
  started: Promise<unknown> | undefined;
}

describe('mcp-remote through the tunnel (issue 16 "Done when")', () => {
  const bridges: RemoteBridge[] = [];
  const pids = new Set<number>();
  let dir: string;
  let dataDir: string;
  let key: string;
  let gw: RunningGateway;
  let oauthCli: RunningCli;
  let keyCli: RunningCli;

  /**
   * Spawns `mcp-remote <url> …args` as a stdio host does and connects a v1 client to it (the `initialize` and
   * `notifications/initialized` go over its stdin). `onStderr` sees its stderr as it grows until it returns a
   * promise (the owner's approval); if that promise rejects, the connect fails with its error at once.
   */
  const startBridge = async (
    url: string,
    args: string[],
    onStderr?: (all: string) => Promise<unknown> | undefined,
  ): Promise<RemoteBridge> => {
    let err = '';
    let started: Promise<unknown> | undefined;
    let fail: (e: unknown) => void = () => {};
    const failed = new Promise<never>((_, reject) => (fail = reject));
    failed.catch(() => {}); // once connected, the caller awaits `started` itself
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [mcpRemote, url, ...args],
      // an empty PATH: no browser opener can start (headless, like a server); the key only in its environment
      env: { PATH: join(dir, 'no-bin'), MCP_REMOTE_CONFIG_DIR: join(dir, 'mcp-auth'), MCPPIPE_API_KEY: key },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (c: Buffer) => {
      err += c.toString();
      if (started) return;
      started = onStderr?.(err);
      started?.catch(fail);
    });
    const client = new V1Client({ name: 'tunnel-mcp-remote-e2e', version: '1' });
    try {
      await Promise.race([client.connect(transport, { timeout: 90_000 }), failed]);
    } catch (e) {
      await client.close();
      throw e;
    }
    const bridge = { client, pid: transport.pid!, stderr: () => err, started };
    bridges.push(bridge);
    for (const pid of processTreePids(bridge.pid)) pids.add(pid);
    return bridge;
  };

  /** Lists and calls through a connected bridge and asserts what came back from the real upstreams. */
  const listAndCall = async ({ client }: RemoteBridge) => {
    expect(client.getServerVersion()?.name).toBe('mcppipe');
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const n of ['everything__echo', 'probe__echo', 'probe__pid']) expect(names).toContain(n);
    expect(new Set(names.map((n) => n.slice(0, n.indexOf('__'))))).toEqual(new Set(['everything', 'probe']));
    expect(
      text(await client.callTool({ name: 'everything__echo', arguments: { message: 'via mcp-remote' } })),
    ).toBe('Echo: via mcp-remote');
    expect(
      text(await client.callTool({ name: 'probe__echo', arguments: { text: 'through the tunnel' } })),
    ).toBe('through the tunnel');
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcppipe-mcp-remote-e2e-'));
    dataDir = join(dir, 'data');
    // the gateway needs one server of its own besides the relay (an empty mcpServers is refused)
    await writeFile(
      join(dir, 'mcp.json'),
      JSON.stringify({
        mcpServers: { own: { command: process.execPath, args: [fixturePath('e2e-probe.mjs')] } },
      }),
    );
    const added = await gatewayCommand(
      ['accounts', 'add', 'alice', '--password-stdin', '--data-dir', dataDir],
      ALICE_PW,
    );
    expect(added.code, added.stderr).toBe(0);
    const created = await gatewayCommand(['keys', 'create', '--account', 'alice', '--data-dir', dataDir]);
    expect(created.code, created.stderr).toBe(0);
    key = created.stdout.trim();
    gw = await startGateway([
      '--config',
      join(dir, 'mcp.json'),
      '--data-dir',
      dataDir,
      '--tunnel-zone',
      ZONE,
    ]);
    pids.add(gw.proc.pid!);
    const tunnel = ['--tunnel', gw.url, '--api-key', key];
    [oauthCli, keyCli] = await Promise.all([
      startCli([...upstreams, ...tunnel, '--subdomain', 'remote']),
      startCli([...upstreams, ...tunnel, '--subdomain', 'remotekey', '--tunnel-auth', 'api-key']),
    ]);
    for (const cli of [oauthCli, keyCli]) {
      await waitFor(() => cli.stderr().includes('tunnel connected: '), {
        timeoutMs: 30_000,
        message: 'the tunnel to connect',
      });
      for (const pid of processTreePids(cli.proc.pid!)) pids.add(pid);
    }
  }, 180_000);

  afterAll(async () => {
    await Promise.allSettled(bridges.map((b) => b.client.close()));
    await Promise.allSettled([oauthCli?.stop(), keyCli?.stop()]);
    await gw?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('api-key tunnel: mcp-remote with --header "Authorization: Bearer ${MCPPIPE_API_KEY}" lists and calls', async () => {
    expect(keyCli.stderr()).toContain(
      `mcppipe: tunnel http://remotekey--alice.${ZONE}:${gw.port}/mcp (connected; auth api-key)`,
    );
    // the placeholder is expanded by mcp-remote from its environment, so the key is not in its argv
    const bridge = await startBridge(`${gw.url}/t/remotekey--alice/mcp`, [
      '--header',
      'Authorization: Bearer ${MCPPIPE_API_KEY}',
    ]);
    await listAndCall(bridge);
    expect(bridge.stderr()).not.toContain('Please authorize');
    expect(bridge.stderr() + keyCli.stderr() + gw.stderr()).not.toContain(key);
  }, 120_000);

  it('oauth tunnel: mcp-remote runs discovery and registration, the owner approves at the URL it prints, then it lists and calls', async () => {
    const printed = (err: string) => /Please authorize this client by visiting:\s*(\S+)/.exec(err)?.[1];
    // the owner's browser: log in as alice and approve; the redirect goes to mcp-remote's callback server
    const bridge = await startBridge(`${gw.url}/t/remote--alice/mcp`, [], (err) => {
      const at = printed(err);
      return at ? approveAsOwner(at, ALICE_PW).then(async (back) => (await fetch(back)).status) : undefined;
    });
    expect(await bridge.started).toBe(200);
    expect(bridge.stderr()).toContain('Could not open a browser automatically');
    const authorize = new URL(printed(bridge.stderr())!);
    expect(authorize.origin + authorize.pathname).toBe(`${gw.url}/authorize`);
    expect(authorize.searchParams.get('resource')).toBe(`${gw.url}/t/remote--alice/mcp`);
    expect(authorize.searchParams.get('redirect_uri')).toMatch(/^http:\/\/localhost:\d+\/oauth\/callback$/);
    await listAndCall(bridge);
  }, 150_000);

  it('leaves no process behind: mcp-remote, both CLIs with their upstreams, and the gateway', async () => {
    for (const b of bridges) for (const pid of processTreePids(b.pid)) pids.add(pid);
    for (const cli of [oauthCli, keyCli]) for (const pid of processTreePids(cli.proc.pid!)) pids.add(pid);
    await Promise.all(bridges.splice(0).map((b) => b.client.close()));
    expect(await oauthCli.stop()).toBe(0);
    expect(await keyCli.stop()).toBe(0);
    expect(await gw.stop()).toBe(0);
    await waitFor(() => [...pids].every((p) => !isPidRunning(p)), {
      timeoutMs: 15_000,
      message: `no process left of ${[...pids].join(', ')}`,
    });
  }, 60_000);
});
