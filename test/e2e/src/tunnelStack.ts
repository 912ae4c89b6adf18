/**
 * The one set-up of the tunnel and scale-out e2e tests (DESIGN.md T1–T7, S1, S2), all real processes: accounts and
 * keys made with the gateway's own commands ({@link createAccounts}), the gateway with `--tunnel-zone`
 * ({@link startTunnelGateway}) or two of them over one `redis-server` ({@link startNodePair}), and
 * `mcppipe up --tunnel` with stdio upstreams ({@link startTunnelCli}).
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startCli, startFixtureServer, startRedis, waitFor } from '@mcppipe/test-utils';
import type { RunningCli, RunningFixtureServer, RunningRedis } from '@mcppipe/test-utils';
import { connectTunnel, forwardToLoopback } from '@mcppipe/tunnel';
import type { TunnelClient } from '@mcppipe/tunnel';
import { expect } from 'vitest';
import { gatewayCommand, rpcHeaders, startGateway } from './gatewayProcess.js';
import type { RunningGateway } from './gatewayProcess.js';

/** The default tunnel zone. */
export const ZONE = 'tunnel.test';

/** A command line running a script with this Node (for `--stdio name=command`). */
export const node = (script: string): string =>
  [process.execPath, script].map((a) => JSON.stringify(a)).join(' ');

/** A key to make: its account, and its name (absent: the command's default). */
export type KeySpec = readonly [account: string, name?: string];

/** Accounts and keys to make with `mcppipe-gateway accounts add` and `keys create`. */
export interface AccountsSpec {
  /** Account slug → password, made in this order. */
  accounts: Record<string, string>;
  /** Label → the key to make; the labels name the keys in the result. */
  keys: Record<string, KeySpec>;
}

/** The keys made by {@link createAccounts}, by label. */
export interface CreatedKeys {
  /** The secret of each key, shown once by `keys create`. */
  keys: Record<string, string>;
  /** The id of each key (`key_…`). */
  keyIds: Record<string, string>;
}

/**
 * Makes accounts and keys with the gateway's own commands, one after the other, asserting that each exits 0, that
 * no password is printed and that `keys create` prints one `mcpp_` key.
 *
 * @param where - the commands' store flags: `--data-dir D`, plus `--redis URL` for a shared store
 * @param spec - the accounts and the keys
 * @returns the keys and their ids, by label
 */
export async function createAccounts(where: string[], spec: AccountsSpec): Promise<CreatedKeys> {
  for (const [slug, password] of Object.entries(spec.accounts)) {
    const added = await gatewayCommand(['accounts', 'add', slug, '--password-stdin', ...where], password);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout + added.stderr).not.toContain(password);
    // it says where the account went (the test Redis has no password to mask), else the data dir's file
    const redis = where.includes('--redis') ? where[where.indexOf('--redis') + 1] : undefined;
    expect(added.stderr).toContain(redis ? `(in Redis at ${redis})` : 'accounts.json)');
  }
  const made: CreatedKeys = { keys: {}, keyIds: {} };
  for (const [label, [account, name]] of Object.entries(spec.keys)) {
    const named = name === undefined ? [] : ['--name', name];
    const key = await gatewayCommand(['keys', 'create', '--account', account, ...named, ...where]);
    expect(key.code, key.stderr).toBe(0);
    expect(key.stdout).toMatch(/^mcpp_[A-Za-z0-9_-]{43}\n$/);
    made.keys[label] = key.stdout.trim();
    made.keyIds[label] = /key (key_\S+) created/.exec(key.stderr)?.[1] ?? '';
    expect(made.keyIds[label], key.stderr).not.toBe('');
  }
  return made;
}

/** A temp folder and, unless the config names its own servers, the `modern` HTTP fixture server. */
async function prepare(name: string, servers: Record<string, unknown> | undefined) {
  const dir = await mkdtemp(join(tmpdir(), `mcppipe-${name}-`));
  try {
    const upstream = servers ? undefined : await startFixtureServer('sup-http-modern.mjs');
    const config = servers ?? { modern: { url: upstream!.url('/mcp') } };
    return { dir, upstream, config };
  } catch (e) {
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
}

/** Options of {@link startTunnelGateway}. */
export interface TunnelGatewayOptions extends AccountsSpec {
  /** The temp folder is `mcppipe-<name>-…`. */
  name: string;
  /** `--tunnel-zone`. Default {@link ZONE}. */
  zone?: string;
  /** The config's `mcpServers`. Default one `modern`: the `sup-http-modern.mjs` fixture, started here. */
  servers?: Record<string, unknown>;
  /** More environment of the gateway. */
  env?: NodeJS.ProcessEnv;
}

/** What {@link startTunnelGateway} starts. */
export interface TunnelGateway extends CreatedKeys {
  dir: string;
  /** The gateway's `--data-dir` (the accounts are made in it). */
  dataDir: string;
  /** The gateway's flags, to start it again on the same config and data dir. */
  args: string[];
  gw: RunningGateway;
  /** The `modern` fixture server, when `servers` was not given. */
  upstream: RunningFixtureServer | undefined;
  /** Stops the gateway (`gw`, which a test may replace) and the upstream, removes the folder; the exit code. */
  close(): Promise<number | null>;
}

/**
 * Starts the gateway with `--tunnel-zone` on a fresh data dir after making its accounts and keys.
 *
 * @param o - the folder's name, the accounts and keys, the servers and environment
 * @returns the running gateway and the keys
 */
export async function startTunnelGateway(o: TunnelGatewayOptions): Promise<TunnelGateway> {
  const { dir, upstream, config } = await prepare(o.name, o.servers);
  const dataDir = join(dir, 'data');
  const args = ['--config', join(dir, 'mcp.json'), '--data-dir', dataDir, '--tunnel-zone', o.zone ?? ZONE];
  const cleanup = async () => {
    await upstream?.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await writeFile(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: config }));
    const made = await createAccounts(['--data-dir', dataDir], o);
    const stack: TunnelGateway = {
      ...made,
      dir,
      dataDir,
      args,
      gw: await startGateway(args, o.env ?? {}),
      upstream,
      async close() {
        const code = await stack.gw.stop();
        await cleanup();
        return code;
      },
    };
    return stack;
  } catch (e) {
    await cleanup();
    throw e;
  }
}

/** Options of {@link startTunnelCli}. */
export interface TunnelCliOptions {
  /** The gateway's origin (`--tunnel`). */
  gateway: string;
  /** `--api-key`. */
  apiKey: string;
  /** `--subdomain`. */
  subdomain: string;
  /** `--tunnel-auth`. Default: not given (the CLI's own default, `oauth`). */
  auth?: 'api-key' | 'none' | 'oauth';
  /** `--stdio name=command` upstreams (see {@link node}). */
  stdio: Record<string, string>;
  /** More flags. */
  flags?: string[];
  /** More environment. */
  env?: NodeJS.ProcessEnv;
  /** How long the tunnel may take to connect, in ms. Default 60 000. */
  timeoutMs?: number;
}

/**
 * Starts `mcppipe up --tunnel` and waits until it printed `tunnel connected: `; stops it if that does not come.
 *
 * @param o - the gateway, the key, the subdomain, the upstreams
 * @returns the running CLI
 */
export async function startTunnelCli(o: TunnelCliOptions): Promise<RunningCli> {
  const cli = await startCli(
    [
      ...Object.entries(o.stdio).flatMap(([name, command]) => ['--stdio', `${name}=${command}`]),
      ...['--tunnel', o.gateway, '--api-key', o.apiKey, '--subdomain', o.subdomain],
      ...(o.auth === undefined ? [] : ['--tunnel-auth', o.auth]),
      ...(o.flags ?? []),
    ],
    { env: o.env ?? {} },
  );
  try {
    await waitFor(() => cli.stderr().includes('tunnel connected: '), {
      timeoutMs: o.timeoutMs ?? 60_000,
      message: `the tunnel ${o.subdomain}`,
    });
  } catch (e) {
    await cli.stop();
    throw e;
  }
  return cli;
}

/** Options of {@link startNodePair}. */
export interface NodePairOptions extends Partial<AccountsSpec> {
  /** The temp folder is `mcppipe-<name>-…`. */
  name: string;
  /** `--tunnel-zone` {@link ZONE} and the node link (one node secret, a node port each). Default true. */
  tunnels?: boolean;
  /** More servers of node `a` or `b`, besides the `modern` fixture server both have. */
  servers?: { a?: Record<string, unknown>; b?: Record<string, unknown> };
  /** More environment of both nodes. */
  env?: NodeJS.ProcessEnv;
  /**
   * Both nodes' public URL (a load balancer's); `'a'`: node A's, B starting once A listens. Default: each its
   * own.
   */
  publicUrl?: string;
}

/** What {@link startNodePair} starts. */
export interface NodePair extends CreatedKeys {
  dir: string;
  /** The shared Redis; a test that restarts it puts the new one here, for `close()`. */
  redis: RunningRedis;
  /** The `modern` fixture server both nodes have. */
  upstream: RunningFixtureServer;
  a: RunningGateway;
  b: RunningGateway;
  /** Stops both nodes, the upstream and Redis, removes the folder; the nodes' exit codes, A's first. */
  close(): Promise<(number | null | undefined)[]>;
}

/**
 * Starts one `redis-server` and two gateway nodes sharing it (`--redis`; data dirs `a` and `b`), after making the
 * accounts and keys in the shared store.
 *
 * @param o - the folder's name, the accounts and keys, the nodes' servers, environment and public URL
 * @returns the running pair and the keys
 */
export async function startNodePair(o: NodePairOptions): Promise<NodePair> {
  const { dir, upstream, config } = await prepare(o.name, undefined);
  const secret = randomBytes(32).toString('hex');
  let redis: RunningRedis | undefined;
  let pair: NodePair | undefined;
  const nodes: { a?: RunningGateway; b?: RunningGateway } = {};
  const close = async () => {
    const codes = await Promise.all([nodes.a?.stop(), nodes.b?.stop()]);
    await upstream?.close();
    await (pair?.redis ?? redis)?.stop();
    await rm(dir, { recursive: true, force: true });
    return codes;
  };
  try {
    redis = await startRedis();
    const made = await createAccounts(['--data-dir', join(dir, 'cmd'), '--redis', redis.url], {
      accounts: o.accounts ?? {},
      keys: o.keys ?? {},
    });
    const tunnels = o.tunnels ?? true;
    const start = async (name: 'a' | 'b', publicUrl: string | undefined) => {
      const file = join(dir, `${name}.json`);
      await writeFile(file, JSON.stringify({ mcpServers: { ...config, ...o.servers?.[name] } }));
      const link = { MCPPIPE_NODE_SECRET: secret, MCPPIPE_NODE_PORT: String(await freePort()) };
      return (nodes[name] = await startGateway(
        ['--config', file, '--data-dir', join(dir, name), '--redis', redis!.url].concat(
          tunnels ? ['--tunnel-zone', ZONE] : [],
        ),
        { ...(tunnels && link), ...o.env },
        publicUrl === undefined ? {} : { publicUrl },
      ));
    };
    if (o.publicUrl === 'a') await start('b', (await start('a', undefined)).url);
    else {
      const started = await Promise.allSettled([start('a', o.publicUrl), start('b', o.publicUrl)]);
      const failed = started.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
    }
    pair = { ...made, dir, redis, upstream: upstream!, a: nodes.a!, b: nodes.b!, close };
    return pair;
  } catch (e) {
    await close();
    throw e;
  }
}

/** A tunnel held by one node of a {@link startNodePair}, in this process, in front of the pair's `modern` server. */
export interface HeldTunnel {
  tunnel: TunnelClient;
  /** Closes the tunnel and its loopback forwarder. */
  close(): Promise<void>;
}

/**
 * Connects a tunnel (`auth: api-key`) to node `on` of a pair with `key`, its handler forwarding to the pair's
 * `modern` fixture server over loopback; resolves once connected.
 *
 * @param pair - the running pair
 * @param o - the node that holds it (default A), the owner's key and the subdomain
 * @returns the tunnel and its `close`
 */
export async function connectHeldTunnel(
  pair: NodePair,
  o: { key: string; subdomain: string; on?: 'a' | 'b' },
): Promise<HeldTunnel> {
  const loopback = forwardToLoopback({ port: pair.upstream.port });
  const tunnel = connectTunnel({
    relayUrl: `${pair[o.on ?? 'a'].url}/tunnel/connect`,
    apiKey: o.key,
    subdomain: o.subdomain,
    metadata: { auth: 'api-key' },
    handler: (req, res) => loopback(req, res),
  });
  const close = async () => {
    await tunnel.close();
    loopback.close();
  };
  try {
    await tunnel.connected();
  } catch (e) {
    await close();
    throw e;
  }
  return { tunnel, close };
}

/**
 * A call on a node's `/api` with an API key as Bearer (bounded: 15 s); a body is sent as JSON.
 *
 * @returns the status and the JSON body
 */
export async function nodeApi(
  gw: RunningGateway,
  path: string,
  key: string,
  init: RequestInit = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${gw.url}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${key}`,
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
    },
    signal: AbortSignal.timeout(15_000),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/**
 * One `tools/call echo` (JSON-RPC id 7) through tunnel `label` by its path form, entering at node `gw` with `key`
 * (bounded: 10 s).
 *
 * @returns the HTTP status and the body as text
 */
export async function echoThrough(
  gw: RunningGateway,
  label: string,
  key: string,
  text: string,
): Promise<{ status: number; body: string }> {
  const res = await fetch(`${gw.url}/t/${label}/mcp`, {
    method: 'POST',
    headers: rpcHeaders(key),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text } },
    }),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, body: await res.text() };
}

/** One request of a tunnel's event-scope API (E2–E4): method, path and, for a POST, a JSON body. */
export interface ScopeRoute {
  method: string;
  path: string;
  body?: string;
}

/**
 * Every route of a tunnel's event-scope API (the Upstreams and Tools sections and the webhooks), for the owner-scoping
 * checks: another account must get the same 404 on each.
 *
 * @param tunnel - the tunnel id `<subdomain>--<account>`
 * @param names - an upstream and an exposed tool name of the tunnel (for reconnect and accept)
 * @returns the nine requests, a POST with a webhook body
 */
export function scopeRoutes(tunnel: string, names: { upstream: string; tool: string }): ScopeRoute[] {
  const base = `/api/tunnels/${tunnel}`;
  const webhook = JSON.stringify({ url: 'http://127.0.0.1:9/', events: [] });
  return [
    { method: 'GET', path: `${base}/upstreams` },
    { method: 'GET', path: `${base}/upstreams/stream` },
    { method: 'POST', path: `${base}/upstreams/${names.upstream}/reconnect`, body: webhook },
    { method: 'GET', path: `${base}/tools` },
    { method: 'POST', path: `${base}/tools/${names.tool}/accept`, body: webhook },
    { method: 'GET', path: `${base}/webhooks` },
    { method: 'POST', path: `${base}/webhooks`, body: webhook },
    { method: 'DELETE', path: `${base}/webhooks/wh_x` },
    { method: 'GET', path: `${base}/webhooks/wh_x/deliveries` },
  ];
}
