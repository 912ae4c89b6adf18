/**
 * Hot reload of the gateway as a process (G10): an edit in place and an edit by rename while a call is in
 * flight on an untouched server (it completes, on the same upstream process), and an invalid edit (logged
 * and ignored; the previous configuration stays live).
 */
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixturePath, referenceServerPath, waitFor } from '@mcppipe/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { obtainToken, startGateway } from './gatewayProcess.js';
import type { RunningGateway } from './gatewayProcess.js';

const node = process.execPath;
const probe = { command: node, args: [fixturePath('e2e-probe.mjs')] };
const memory = { command: node, args: [referenceServerPath('memory')] };
const text = (r: { content?: unknown }) => ((r.content as { text?: string }[] | undefined) ?? [])[0]?.text;

describe('config hot reload', () => {
  let dir: string;
  let config: string;
  let gw: RunningGateway;
  let hubToken: string;
  let client: Client;

  const servers = async () => {
    const res = await fetch(`${gw.url}/health`, { headers: { authorization: `Bearer ${hubToken}` } });
    return ((await res.json()) as { servers: { name: string; phase: string }[] }).servers;
  };
  const write = (layout: object) => JSON.stringify({ mcpServers: layout }, null, 2);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcppipe-gw-reload-'));
    config = join(dir, 'mcp.json');
    await writeFile(config, write({ probe }));
    gw = await startGateway(['--config', config, '--data-dir', join(dir, 'data')]);
    hubToken = (await obtainToken(gw.url, '/hub')).token;
    const { token } = await obtainToken(gw.url, '/servers/probe/mcp');
    client = new Client({ name: 'e2e-reload', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gw.url}/servers/probe/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
  });
  afterAll(async () => {
    await client?.close();
    expect(await gw?.stop()).toBe(0);
    await rm(dir, { recursive: true, force: true });
  });

  it('an edit in place adds a server while a call on an untouched server completes on the same process', async () => {
    const pid = text(await client.callTool({ name: 'pid', arguments: {} }));
    const inFlight = client.callTool({ name: 'wait', arguments: { ms: 12_000, tag: 'in-place' } });
    let settled = false;
    void inFlight.finally(() => (settled = true));
    await new Promise((r) => setTimeout(r, 300));
    await writeFile(config, write({ probe, memory }));
    await waitFor(async () => (await servers()).some((s) => s.name === 'memory' && s.phase === 'available'), {
      timeoutMs: 60_000,
      message: 'memory added',
    });
    expect(settled).toBe(false); // the reload happened while the call was in flight
    expect(text(await inFlight)).toBe('waited');
    expect(text(await client.callTool({ name: 'pid', arguments: {} }))).toBe(pid);
    expect(gw.stderr()).toContain('"added":["memory"]');
  });

  it('an edit by rename (an editor’s atomic save) renames a server while a call is in flight elsewhere', async () => {
    const pid = text(await client.callTool({ name: 'pid', arguments: {} }));
    const inFlight = client.callTool({ name: 'wait', arguments: { ms: 12_000, tag: 'rename' } });
    let settled = false;
    void inFlight.finally(() => (settled = true));
    await new Promise((r) => setTimeout(r, 300));
    const tmp = join(dir, '.mcp.json.swp');
    await writeFile(tmp, write({ probe, notes: memory }));
    await rename(tmp, config);
    await waitFor(
      async () => {
        const list = await servers();
        return (
          list.some((s) => s.name === 'notes' && s.phase === 'available') &&
          !list.some((s) => s.name === 'memory')
        );
      },
      { timeoutMs: 60_000, message: 'memory renamed to notes' },
    );
    expect(settled).toBe(false);
    expect(text(await inFlight)).toBe('waited');
    expect(text(await client.callTool({ name: 'pid', arguments: {} }))).toBe(pid);
    expect(gw.stderr()).toMatch(/"added":\["notes"\],"removed":\["memory"\]/);
  });

  it('an invalid edit is logged and ignored: the previous configuration stays live', async () => {
    await writeFile(config, '{ "mcpServers": { "probe": ');
    await gw.waitForLog(/config file is invalid; keeping the previous configuration/, 30_000);
    expect((await servers()).map((s) => s.name)).toEqual(['notes', 'probe']);
    expect(text(await client.callTool({ name: 'echo', arguments: { text: 'still here' } }))).toBe(
      'still here',
    );
  });

  it('G1: an edit with duplicate server keys is rejected; the running servers keep serving', async () => {
    const entry = (server: object) => JSON.stringify(server);
    await writeFile(
      config,
      [
        '{',
        '  "mcpServers": {',
        `    "probe": ${entry(probe)},`,
        `    "notes": ${entry(memory)},`,
        `    "probe": ${entry(memory)}`,
        '  }',
        '}',
      ].join('\n'),
    );
    await gw.waitForLog(/mcpServers\.probe at line 3 and mcpServers\.probe at line 5/, 30_000);
    expect((await servers()).map((s) => s.name)).toEqual(['notes', 'probe']);
    expect(text(await client.callTool({ name: 'echo', arguments: { text: 'not replaced' } }))).toBe(
      'not replaced',
    );
  });

  it('SIGTERM lets a call in flight finish, then stops the servers and exits 0', async () => {
    const inFlight = client.callTool({ name: 'wait', arguments: { ms: 2_000, tag: 'shutdown' } });
    await new Promise((r) => setTimeout(r, 300));
    const exit = new Promise<number | null>((r) => gw.proc.once('exit', (code) => r(code)));
    gw.proc.kill('SIGTERM');
    expect(text(await inFlight)).toBe('waited');
    expect(await exit).toBe(0);
    expect(gw.stderr()).toMatch(/"msg":"stopped"/);
  });
});
