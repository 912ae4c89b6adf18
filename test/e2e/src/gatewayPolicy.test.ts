/**
 * Tool policies and rate limits through the gateway as a process (issue 17, DESIGN.md P1–P3), with real upstreams
 * (the reference filesystem and memory servers): the three recipes of docs/policies.md, read from that file, on
 * `/mcp`, `/hub` and a per-server path; per-caller limits (two OAuth clients); a policy edit taking effect without a
 * restart, and a broken edit keeping the old rules.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { referenceServerPath } from '@mcppipe/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { obtainToken, startGateway } from './gatewayProcess.js';
import type { RunningGateway } from './gatewayProcess.js';

const node = process.execPath;
const docs = new URL('../../../docs/policies.md', import.meta.url);

/** The first ```json block under `### <title>` in docs/policies.md. */
async function recipe(title: string): Promise<object> {
  const text = await readFile(docs, 'utf8');
  const at = text.indexOf(`### ${title}\n`);
  if (at < 0) throw new Error(`docs/policies.md has no recipe "${title}"`);
  const m = /```json\n([\s\S]*?)```/.exec(text.slice(at));
  if (!m?.[1]) throw new Error(`recipe "${title}" has no json block`);
  return JSON.parse(m[1]) as object;
}

interface WireError {
  code: number;
  message: string;
  data?: Record<string, unknown>;
}
async function refusal(call: Promise<unknown>): Promise<WireError> {
  try {
    await call;
  } catch (err) {
    const e = err as WireError;
    return { code: e.code, message: e.message, data: e.data };
  }
  throw new Error('the call was not refused');
}

describe('gateway: tool policies and rate limits (issue 17)', () => {
  let dir: string;
  let config: string;
  let gw: RunningGateway;
  const clients: Client[] = [];
  let agentA: Client; // /mcp, OAuth client A
  let agentB: Client; // /mcp, OAuth client B
  let hub: Client;
  let perServer: Client; // /servers/filesystem/mcp

  const servers = (dataDir: string) => ({
    filesystem: { command: node, args: [referenceServerPath('filesystem'), dataDir] },
    memory: {
      command: node,
      args: [referenceServerPath('memory')],
      env: { MEMORY_FILE_PATH: join(dataDir, 'memory.jsonl') },
    },
  });
  const writeConfig = (policies: object | string) =>
    writeFile(
      config,
      typeof policies === 'string'
        ? policies
        : JSON.stringify({ mcpServers: servers(join(dir, 'files')), policies }, null, 2),
    );
  const connect = async (path: string) => {
    const { token } = await obtainToken(gw.url, path);
    const client = new Client({ name: 'e2e-policy', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gw.url}${path}`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
    return client;
  };
  const toolNames = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);
  const hubCall = (args: Record<string, unknown>, name = 'call_tool') =>
    hub.callTool({ name, arguments: args }) as Promise<{
      isError?: boolean;
      structuredContent?: Record<string, unknown> & { error?: Record<string, unknown> };
    }>;
  let reloads = 0;
  const reloadTo = async (policies: object) => {
    reloads += 1;
    await writeConfig(policies);
    await waitForCount(/policies reloaded/g, reloads);
  };
  const waitForCount = async (pattern: RegExp, n: number) => {
    const deadline = Date.now() + 60_000;
    while ((gw.stderr().match(pattern) ?? []).length < n) {
      if (Date.now() > deadline) throw new Error(`no ${String(pattern)} ×${n} in:\n${gw.stderr()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcppipe-gw-policy-'));
    config = join(dir, 'mcp.json');
    await mkdir(join(dir, 'files'));
    await writeFile(join(dir, 'files', 'notes.txt'), 'hello');
    await writeConfig(await recipe('Read-only filesystem'));
    gw = await startGateway(['--config', config, '--data-dir', join(dir, 'data')]);
    agentA = await connect('/mcp');
    agentB = await connect('/mcp');
    hub = await connect('/hub');
    perServer = await connect('/servers/filesystem/mcp');
  }, 180_000);
  afterAll(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    expect(await gw?.stop()).toBe(0);
    await rm(dir, { recursive: true, force: true });
  });

  it('recipe "Read-only filesystem": write tools are absent from every list and refused like unknown tools', async () => {
    const names = await toolNames(agentA);
    expect(names).toContain('filesystem__read_text_file');
    expect(names).toContain('filesystem__list_directory');
    expect(names).toContain('memory__read_graph');
    for (const denied of ['write_file', 'edit_file', 'move_file', 'create_directory'])
      expect(names).not.toContain(`filesystem__${denied}`);

    // /mcp: identical to an unknown tool of a known server
    const denied = await refusal(agentA.callTool({ name: 'filesystem__write_file', arguments: {} }));
    const unknown = await refusal(agentA.callTool({ name: 'filesystem__no_such_tool', arguments: {} }));
    expect(denied).toEqual({
      code: -32602,
      message: expect.stringContaining('Unknown tool: "filesystem__write_file"'),
      data: { kind: 'tool', name: 'filesystem__write_file' },
    });
    expect(denied.message.replace('write_file', 'X')).toBe(unknown.message.replace('no_such_tool', 'X'));
    const read = await agentA.callTool({ name: 'filesystem__list_allowed_directories', arguments: {} });
    expect(read.isError).not.toBe(true);

    // /hub: list_tools filters, get_tool and call_tool answer "unknown tool" with counts of the visible tools only
    const listed = await hubCall({ server: 'filesystem' }, 'list_tools');
    const hubNames = (listed.structuredContent?.['tools'] as { name: string }[]).map((t) => t.name);
    expect(hubNames).toContain('read_text_file');
    expect(hubNames).not.toContain('write_file');
    const viaHub = await hubCall({ server: 'filesystem', tool: 'write_file', arguments: {} });
    expect(viaHub.isError).toBe(true);
    expect(viaHub.structuredContent?.error).toMatchObject({
      code: 'MCPP_HUB_UNKNOWN_TOOL',
      message: expect.stringContaining(`to see its ${hubNames.length} tools`),
    });
    expect(JSON.stringify(viaHub.structuredContent?.error?.['suggestions'])).not.toContain('write_file');
    const got = await hubCall({ server: 'filesystem', tool: 'write_file' }, 'get_tool');
    expect(got.structuredContent?.error?.['code']).toBe('MCPP_HUB_UNKNOWN_TOOL');
    const servers = await hubCall({}, 'list_servers');
    const fs = (servers.structuredContent?.['servers'] as { name: string; toolCount: number }[]).find(
      (s) => s.name === 'filesystem',
    );
    expect(fs?.toolCount).toBe(hubNames.length);

    // per-server path: names unprefixed, rules still on filesystem__<tool>
    const own = await toolNames(perServer);
    expect(own).toContain('read_text_file');
    expect(own).not.toContain('write_file');
    const direct = await refusal(perServer.callTool({ name: 'write_file', arguments: {} }));
    expect(direct.code).toBe(-32602);
    expect(direct.message).toContain('Unknown tool: "write_file"');
    expect(gw.stderr()).toMatch(/"policy":"denied".*"name":"filesystem__write_file"/);
  });

  it('recipe "One noisy tool capped per caller", applied by a config edit without a restart: a caller over its limit gets retryAfterMs while another caller and another tool pass', async () => {
    await reloadTo(await recipe('One noisy tool capped per caller'));
    // the edit replaced the rules: write_file is back
    expect(await toolNames(agentA)).toContain('filesystem__write_file');
    const search = (c: Client) => c.callTool({ name: 'memory__search_nodes', arguments: { query: 'x' } });
    for (let i = 0; i < 5; i++) expect((await search(agentA)).isError).not.toBe(true);
    const limited = await refusal(search(agentA));
    expect(limited.code).toBe(-31429);
    expect(limited.message).toContain('memory__search_nodes');
    expect(limited.data?.['retryAfterMs']).toBeGreaterThan(0);
    expect(limited.data?.['retryAfterMs']).toBeLessThanOrEqual(6000);
    // another tool, same caller; same tool, another caller
    expect((await agentA.callTool({ name: 'memory__read_graph', arguments: {} })).isError).not.toBe(true);
    expect((await search(agentB)).isError).not.toBe(true);
    // /hub shares the buckets (its own OAuth client is a third caller: 5 pass, the 6th is limited)
    for (let i = 0; i < 5; i++) {
      const r = await hubCall({ server: 'memory', tool: 'search_nodes', arguments: { query: 'x' } });
      expect(r.isError).not.toBe(true);
    }
    const hubLimited = await hubCall({ server: 'memory', tool: 'search_nodes', arguments: { query: 'x' } });
    expect(hubLimited.isError).toBe(true);
    expect(hubLimited.structuredContent?.error).toMatchObject({ code: 'MCPP_POLICY_RATE_LIMITED' });
    expect(hubLimited.structuredContent?.error?.['retryAfterMs']).toBeGreaterThan(0);
    expect(gw.stderr()).toMatch(/"policy":"limited".*"name":"memory__search_nodes"/);
  });

  it('a broken policies edit is rejected with a path-named error and the previous rules stay live', async () => {
    // the read-only recipe plus one bad glob: had any of it been applied, write_file would be hidden
    const readOnly = (await recipe('Read-only filesystem')) as { rules: object[] };
    await writeConfig({ rules: [...readOnly.rules, { match: 'memory__x[', action: 'deny' }] });
    await gw.waitForLog(/policies\.rules\[4\]\.match/, 30_000);
    expect(gw.stderr()).toMatch(/config file is invalid; keeping the previous configuration/);
    // still the old rules: write_file visible, and the limit still refuses a burst (10/min refills one call in 6 s)
    expect(await toolNames(agentA)).toContain('filesystem__write_file');
    const codes: number[] = [];
    for (let i = 0; i < 8; i++) {
      const r = agentA.callTool({ name: 'memory__search_nodes', arguments: { query: 'x' } });
      codes.push(
        await r.then(
          () => 0,
          (e: WireError) => e.code,
        ),
      );
    }
    expect(codes).toContain(-31429);
  });

  it('recipe "Team-wide allowlist": only the listed tools and resources are visible, to every endpoint', async () => {
    await reloadTo(await recipe('Team-wide allowlist'));
    const names = await toolNames(agentB);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(name).toMatch(/^(memory__|filesystem__read_|filesystem__list_)/);
    expect(names).toContain('memory__search_nodes');
    expect(names).not.toContain('filesystem__search_files');
    const refused = await refusal(agentB.callTool({ name: 'filesystem__search_files', arguments: {} }));
    expect(refused.code).toBe(-32602);
    const own = await toolNames(perServer);
    for (const name of own) expect(name).toMatch(/^(read_|list_)/);
    const viaHub = await hubCall({ server: 'filesystem', tool: 'get_file_info', arguments: { path: 'x' } });
    expect(viaHub.structuredContent?.error?.['code']).toBe('MCPP_HUB_UNKNOWN_TOOL');
  });
});
