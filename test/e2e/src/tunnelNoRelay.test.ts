/**
 * `mcppipe up --tunnel` pointed where no relay answers (docs/cli.md "Tunnel"), all real processes: a gateway
 * WITHOUT `--tunnel-zone` and another `mcppipe up` answer the connect URL with a 404; the CLI says so once
 * (`tunnel refused: …` with the hint), stops retrying and keeps serving its local endpoint. A `--tunnel` with a path
 * exits 2 before anything starts.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixturePath, runCli, startCli, startFixtureServer, waitFor } from '@mcppipe/test-utils';
import type { RunningCli } from '@mcppipe/test-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { rpcHeaders, startGateway } from './gatewayProcess.js';
import { node } from './tunnelStack.js';

const probe = ['--stdio', `probe=${node(fixturePath('e2e-probe.mjs'))}`];
const hint = (base: string) =>
  `no relay at ${base}: is it a gateway started with --tunnel-zone, and is --tunnel its base URL (no path)?`;
const logged = (cli: RunningCli) =>
  cli
    .stderr()
    .split('\n')
    .filter((l) => l.includes('"msg":"tunnel '))
    .map((l) => (JSON.parse(l) as { msg: string }).msg);

describe('mcppipe up --tunnel where no relay answers', () => {
  const stops: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
  });

  /** Starts `mcppipe up --tunnel base`, waits for its refusal and 2.5 s more (attempts 2 and 3 would be due). */
  const refusedAt = async (base: string) => {
    const cli = await startCli([...probe, '--tunnel', base, '--api-key', 'mcpp_x', '--subdomain', 'lost']);
    stops.push(() => cli.stop());
    await waitFor(() => cli.stderr().includes('tunnel refused: '), { timeoutMs: 10_000 });
    await new Promise((r) => setTimeout(r, 2_500));
    const init = await fetch(cli.url, {
      method: 'POST',
      headers: rpcHeaders(),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      }),
    });
    expect(init.status).toBe(200); // the local endpoint keeps serving
    return logged(cli);
  };

  it('a gateway without --tunnel-zone: refused once with the hint, no retry', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcppipe-no-relay-'));
    const upstream = await startFixtureServer('sup-http-modern.mjs');
    await writeFile(
      join(dir, 'mcp.json'),
      JSON.stringify({ mcpServers: { modern: { url: upstream.url('/mcp') } } }),
    );
    const gw = await startGateway(['--config', join(dir, 'mcp.json'), '--data-dir', join(dir, 'data')]);
    stops.push(async () => {
      await gw.stop();
      await upstream.close();
      await rm(dir, { recursive: true, force: true });
    });
    expect(await refusedAt(gw.url)).toEqual([
      `tunnel refused: ${gw.url}/tunnel/connect answered 404 (Not found) instead of a WebSocket upgrade — the local endpoint keeps serving; ${hint(gw.url)}`,
    ]);
  });

  it('another mcppipe up port: refused once with the hint, no retry', async () => {
    const other = await startCli(probe);
    stops.push(() => other.stop());
    const base = other.url.origin;
    expect(await refusedAt(base)).toEqual([
      `tunnel refused: ${base}/tunnel/connect answered 404 (Route GET:/tunnel/connect not found) instead of a WebSocket upgrade — the local endpoint keeps serving; ${hint(base)}`,
    ]);
  });

  it('--tunnel with a path exits 2 before anything starts', async () => {
    const r = await runCli([
      'up',
      ...probe,
      '--tunnel',
      'http://127.0.0.1:43100/some/path',
      '--api-key',
      'k',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `--tunnel must be the relay's base URL without a path (/tunnel/connect is added), e.g. http://127.0.0.1:43100; got "http://127.0.0.1:43100/some/path"`,
    );
  });
});
