/**
 * Stopping `mcppipe up --tunnel` with calls in flight (docs/reliability.md, T6), all real processes: the gateway with
 * `--tunnel-zone`, `mcppipe up --tunnel` over the `e2e-probe` stdio server, and real SDK clients on the path form
 * `/t/<sub>--alice/mcp`. SIGINT drains the tunnel like the local listener: in-flight calls complete (up to 3 s), new
 * public requests get `503` `tunnel_offline` at once. SIGKILL mid-call cuts the agent's response (a network error),
 * never a clean end of the 200.
 */
import { once } from 'node:events';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { fixturePath } from '@mcppipe/test-utils';
import type { RunningCli } from '@mcppipe/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpcHeaders } from './gatewayProcess.js';
import { node, startTunnelCli, startTunnelGateway } from './tunnelStack.js';
import type { TunnelGateway } from './tunnelStack.js';

const text = (r: unknown) => (r as { content: { text: string }[] }).content[0]?.text;
const WAIT = { name: 'wait', arguments: { ms: 2_000 } };

describe('stopping mcppipe up --tunnel with a call in flight', () => {
  let stack: TunnelGateway;
  const started: RunningCli[] = [];
  beforeAll(async () => {
    stack = await startTunnelGateway({
      name: 'tunnel-stop',
      accounts: { alice: 'alice tunnel stop passphrase' },
      keys: { alice: ['alice'] },
    });
  });
  afterAll(async () => {
    for (const cli of started) await cli.stop();
    await stack?.close();
  });

  const up = async (subdomain: string) => {
    const cli = await startTunnelCli({
      gateway: stack.gw.url,
      apiKey: stack.keys['alice']!,
      subdomain,
      auth: 'none',
      stdio: { probe: node(fixturePath('e2e-probe.mjs')) },
    });
    started.push(cli);
    return { cli, url: new URL(`${stack.gw.url}/t/${subdomain}--alice/mcp`) };
  };
  const after = (ms: number) => new Promise((r) => setTimeout(r, ms));
  /** A POST through the tunnel while it drains: the relay's answer. */
  const postNow = async (url: URL) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: rpcHeaders(),
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} }),
    });
    return { status: res.status, body: (await res.json()) as { error: { data: { reason: string } } } };
  };

  for (const era of ['2025 session (v1 SDK)', '2026-07-28 (v2 SDK)'] as const) {
    it(`SIGINT: the ${era} call completes; new requests get 503 tunnel_offline; then exit 0`, async () => {
      const { cli, url } = await up(era.startsWith('2025') ? 'stop25' : 'stop26');
      let call: Promise<unknown>;
      if (era.startsWith('2025')) {
        const client = new V1Client({ name: 'stop-v1', version: '1' });
        await client.connect(new V1Transport(url));
        call = client.callTool(WAIT, undefined, { timeout: 8_000 });
      } else {
        const c = new Client({ name: 'stop-v2', version: '1' }, { versionNegotiation: { mode: 'auto' } });
        await c.connect(new StreamableHTTPClientTransport(url));
        call = c.callTool(WAIT, { timeout: 8_000 });
      }
      const outcome = call.then(
        (r) => ({ text: text(r), at: Date.now() }),
        (e: unknown) => ({ error: String(e), at: Date.now() }),
      );
      await after(700);
      const exited = once(cli.proc, 'exit');
      cli.proc.kill('SIGINT');
      await after(300);
      const refused = await postNow(url);
      expect(refused.status).toBe(503);
      expect(refused.body.error.data.reason).toBe('tunnel_offline');
      expect(await outcome).toMatchObject({ text: 'waited' });
      expect((await exited)[0]).toBe(0);
      expect(cli.stderr()).toContain('"msg":"stopped"');
      expect((await postNow(url)).status).toBe(503); // closed: the subdomain is free
    });
  }

  it('SIGKILL mid-call: the agent’s 200 event stream is cut (a network error), never a clean empty end', async () => {
    const { cli, url } = await up('killed');
    const rpc = async (body: object, session?: string) =>
      fetch(url, {
        method: 'POST',
        headers: { ...rpcHeaders(), ...(session !== undefined && { 'mcp-session-id': session }) },
        body: JSON.stringify({ jsonrpc: '2.0', ...body }),
      });
    const init = await rpc({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'kill', version: '1' } },
    });
    const session = init.headers.get('mcp-session-id') ?? '';
    await init.text();
    expect((await rpc({ method: 'notifications/initialized' }, session)).status).toBe(202);
    const call = await rpc(
      { id: 2, method: 'tools/call', params: { name: 'wait', arguments: { ms: 5_000 } } },
      session,
    );
    expect(call.status).toBe(200);
    expect(call.headers.get('content-type')).toBe('text/event-stream');
    const body = call.text().then(
      (t) => ({ cleanEnd: t }),
      (e: unknown) => ({ error: String(e) }),
    );
    await after(500);
    const killedAt = Date.now();
    cli.proc.kill('SIGKILL');
    expect(await body).toEqual({ error: 'TypeError: terminated' });
    expect(Date.now() - killedAt).toBeLessThan(3_000);
  });
});
