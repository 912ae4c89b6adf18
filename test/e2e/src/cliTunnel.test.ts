// `mcppipe up --tunnel` as a child process (issue 16.3–16.5): two real stdio upstreams, a relay stood up here with
// `TunnelRegistry` on a real loopback port (path form `/t/<subdomain>--<account>/mcp`), and real SDK clients of
// both eras calling through the relay: lists, calls, progress, cancellation, large bodies, the listen stream, a
// relay drop and restart, SIGKILL and SIGINT of the CLI, and the zero-knowledge refusal.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { fixturePath, isPidAlive, runCli, startCli, startPathRelay, waitFor } from '@mcppipe/test-utils';
import type { PathRelay, RunningCli } from '@mcppipe/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const node = (script: string) => [process.execPath, script].map((a) => JSON.stringify(a)).join(' ');
const text = (r: unknown) =>
  ((r as { content?: { type: string; text?: string }[] }).content ?? []).find((c) => c.type === 'text')
    ?.text ?? '';
const KEY = 'tk_e2e_secret_key_0123456789';
const keys = { [KEY]: { account: 'alice', keyId: 'k1' } };
const probeLog = join(mkdtempSync(join(tmpdir(), 'mcppipe-tunnel-')), 'probe.log');
const upstreams = [
  '--stdio',
  `faults=${node(fixturePath('agg-faults.mjs'))}`,
  '--stdio',
  `probe=env PROBE_LOG=\${PROBE_LOG} ${node(fixturePath('e2e-probe.mjs'))}`,
];

let relay: PathRelay;
let cli: RunningCli;
let publicUrl: URL;

beforeAll(async () => {
  relay = await startPathRelay(keys);
  cli = await startCli([...upstreams, '--tunnel', relay.base, '--api-key', KEY, '--subdomain', 'laptop'], {
    env: { PROBE_LOG: probeLog },
  });
  publicUrl = new URL(`${relay.base}/t/laptop--alice/mcp`);
  await waitFor(() => cli.stderr().includes('add it to Claude Code'), { timeoutMs: 30_000 });
}, 90_000);

afterAll(async () => {
  await cli?.stop();
  await relay?.close();
});

async function modernClient(): Promise<Client> {
  const c = new Client({ name: 'tunnel-v2', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await c.connect(new StreamableHTTPClientTransport(publicUrl));
  return c;
}
async function legacyClient(): Promise<{ client: V1Client; transport: V1Transport }> {
  const client = new V1Client({ name: 'tunnel-v1', version: '1' });
  const transport = new V1Transport(publicUrl);
  await client.connect(transport);
  return { client, transport };
}

describe('mcppipe up --tunnel', () => {
  it('prints the public URL in the startup table and the client line, never the key', async () => {
    await waitFor(() => cli.stderr().includes('tunnel connected: '), { timeoutMs: 10_000 });
    const err = cli.stderr();
    expect(err).toContain(`mcppipe: tunnel ${publicUrl.href} (connected; auth oauth)`);
    expect(err).toContain(`claude mcp add --transport http mcppipe ${publicUrl.href}`);
    expect(err).toContain(`tunnel connected: ${publicUrl.href}`);
    expect(err).not.toContain(KEY);
    const [info] = relay.registry.list();
    expect(info?.subdomain).toBe('laptop');
    expect(info?.zeroKnowledge).toBe(false);
    expect(info?.metadata['auth']).toBe('oauth');
  });

  it('lists and calls through the relay with both eras', async () => {
    const c = await modernClient();
    const names = (await c.listTools()).tools.map((t) => t.name);
    expect(names).toContain('faults__echo');
    expect(names).toContain('probe__pid');
    expect(text(await c.callTool({ name: 'faults__echo', arguments: { text: 'v2' } }))).toBe('faults: v2');
    await c.close();
    const { client } = await legacyClient();
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('probe__echo');
    expect(text(await client.callTool({ name: 'probe__echo', arguments: { text: 'v1' } }))).toBe('v1');
    await client.close();
  });

  it('delivers progress across the tunnel', async () => {
    const { client } = await legacyClient();
    const seen: number[] = [];
    await client.callTool({ name: 'faults__progress_final', arguments: { count: 4 } }, undefined, {
      onprogress: (p) => seen.push(p.progress),
      timeout: 30_000,
    });
    expect(seen.slice(0, 3)).toEqual([1, 2, 3]);
    await client.close();
  });

  it('a cancelled 2026-era agent request reaches the upstream', async () => {
    const c = await modernClient();
    const ac = new AbortController();
    const call = c.callTool(
      { name: 'probe__wait', arguments: { ms: 30_000, tag: 'tunnel-cancel' } },
      { signal: ac.signal },
    );
    setTimeout(() => ac.abort(), 500);
    await expect(call).rejects.toBeDefined();
    await waitFor(
      () => {
        try {
          return readFileSync(probeLog, 'utf8').includes('cancelled tunnel-cancel');
        } catch {
          return false;
        }
      },
      { timeoutMs: 15_000, message: 'the upstream to see the cancellation' },
    );
    await c.close();
  });

  it('a cancelled 2025-era agent request reaches the upstream', async () => {
    const { client } = await legacyClient();
    const ac = new AbortController();
    const call = client.callTool(
      { name: 'probe__wait', arguments: { ms: 30_000, tag: 'tunnel-cancel-v1' } },
      undefined,
      { signal: ac.signal },
    );
    setTimeout(() => ac.abort(), 500);
    await expect(call).rejects.toBeDefined();
    await waitFor(() => readFileSync(probeLog, 'utf8').includes('cancelled tunnel-cancel-v1'), {
      timeoutMs: 15_000,
      message: 'the upstream to see the 2025-era cancellation',
    });
    await client.close();
  });

  it('carries a 3 MB result and a 4 MB request (default --body-limit 4194304)', async () => {
    const { client } = await legacyClient();
    const three = 'r'.repeat(3_000_000);
    expect(text(await client.callTool({ name: 'probe__echo', arguments: { text: three } })).length).toBe(
      3_000_000,
    );
    const four = 'q'.repeat(4_000_000);
    const r = await client.callTool({ name: 'probe__echo', arguments: { text: four } }, undefined, {
      timeout: 60_000,
    });
    expect(text(r)).toBe(four);
    await client.close();
  });

  it('the 2025-era listen stream gets list_changed through the tunnel', async () => {
    const { client } = await legacyClient();
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    await new Promise((r) => setTimeout(r, 500)); // the client opens its GET stream after initialize
    await client.callTool({ name: 'faults__add_tool', arguments: { name: 'added_over_tunnel' } });
    await waitFor(() => changed > 0, { timeoutMs: 15_000, message: 'tools/list_changed on the GET stream' });
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('faults__added_over_tunnel');
    await client.close();
  });

  it('reconnects by itself after the relay is dropped and restarted; the 2025 session id keeps working', async () => {
    const { client, transport } = await legacyClient();
    const session = transport.sessionId;
    expect(session).toBeTruthy();
    const port = relay.port;
    await relay.drop();
    relay = await startPathRelay(keys, port);
    await waitFor(() => relay.registry.list().length === 1, {
      timeoutMs: 30_000,
      message: 'the CLI to reconnect',
    });
    expect(cli.stderr()).toMatch(/tunnel reconnecting in \d+ s/);
    expect(transport.sessionId).toBe(session);
    expect(text(await client.callTool({ name: 'probe__echo', arguments: { text: 'again' } }))).toBe('again');
    await client.close();
  }, 60_000);
});

describe('mcppipe up --tunnel: stopping', () => {
  it('SIGKILL of the CLI: the relay answers 503 tunnel_offline at once', async () => {
    await using r = await startPathRelay(keys);
    const c = await startCli([...upstreams, '--tunnel', r.base, '--api-key', KEY, '--subdomain', 'killed'], {
      env: { PROBE_LOG: probeLog },
    });
    await waitFor(() => r.registry.list().length === 1, { timeoutMs: 30_000 });
    c.proc.kill('SIGKILL');
    await waitFor(() => r.registry.list().length === 0, { timeoutMs: 5_000, message: 'the tunnel to drop' });
    const res = await fetch(`${r.base}/t/killed--alice/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBeTruthy();
    expect(JSON.stringify(await res.json())).toContain('tunnel_offline');
    await c.stop();
  }, 60_000);

  it('SIGINT closes the tunnel cleanly: the relay frees the subdomain at once, no process left', async () => {
    await using r = await startPathRelay(keys);
    const c = await startCli([...upstreams, '--tunnel', r.base, '--api-key', KEY, '--subdomain', 'freed'], {
      env: { PROBE_LOG: probeLog },
    });
    await waitFor(() => r.registry.list().length === 1, { timeoutMs: 30_000 });
    const pid = c.proc.pid!;
    const exited = new Promise<number | null>((res) => c.proc.once('exit', (code) => res(code)));
    c.proc.kill('SIGINT');
    await waitFor(() => r.events.some((e) => e.type === 'tunnel.disconnected'), { timeoutMs: 5_000 });
    expect(r.registry.list()).toEqual([]);
    expect(r.registry.lookup('freed', 'alice')).toBeUndefined();
    expect(await exited).toBe(0);
    expect(isPidAlive(pid)).toBe(false);
  }, 60_000);

  it('--zero-knowledge with two upstreams exits 2 with the seed reason', async () => {
    const res = await runCli([
      'up',
      ...upstreams,
      '--tunnel',
      'http://127.0.0.1:9',
      '--api-key',
      KEY,
      '--zero-knowledge',
    ]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(
      'Zero-knowledge mode routes raw bytes and disables JSON-RPC parsing, so it cannot prefix or fan out — it is not compatible with the aggregator. Use it on a single-upstream tunnel.',
    );
    expect(res.stderr).not.toContain(KEY);
  });
});
