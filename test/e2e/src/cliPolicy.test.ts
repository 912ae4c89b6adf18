/**
 * Tool policies and rate limits in `mcppipe up` (issue 17): the `[policy]` table of the upstreams file and
 * `--deny-tool`, with real upstreams (the reference filesystem and memory servers), on `/mcp` and `/hub`, counted
 * at `/metrics`.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, referenceServerPath, runCli, startCli } from '@mcppipe/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const toml = (s: string) => JSON.stringify(s);

describe('mcppipe up: [policy] and --deny-tool', () => {
  let dir: string;
  let file: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcppipe-cli-policy-'));
    await mkdir(join(dir, 'files'));
    file = join(dir, 'upstreams.toml');
    await writeFile(
      file,
      [
        '[upstreams.filesystem]',
        `stdio = [${toml(process.execPath)}, ${toml(referenceServerPath('filesystem'))}, ${toml(join(dir, 'files'))}]`,
        '',
        '[upstreams.memory]',
        `stdio = [${toml(process.execPath)}, ${toml(referenceServerPath('memory'))}]`,
        `env = { MEMORY_FILE_PATH = ${toml(join(dir, 'memory.jsonl'))} }`,
        '',
        '[policy]',
        'default = "allow"',
        '',
        '[[policy.rules]]',
        'match = "memory__delete_*"',
        'action = "deny"',
        '',
        '[[policy.limits]]',
        'scope = "caller+tool"',
        'match = "memory__search_nodes"',
        'rate = "10/min"',
        'burst = 3',
        '',
      ].join('\n'),
    );
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('hides and refuses denied tools (file rules and --deny-tool), limits a noisy tool, and counts both at /metrics', async () => {
    const metricsPort = await freePort();
    await using cli = await startCli([
      '--upstreams-file',
      file,
      '--deny-tool',
      'filesystem__write_*',
      '--hub',
      '--metrics-addr',
      `127.0.0.1:${metricsPort}`,
    ]);
    const agent = new Client({ name: 'e2e-cli-policy', version: '1' });
    await agent.connect(new StreamableHTTPClientTransport(cli.url));
    const names = (await agent.listTools()).tools.map((t) => t.name);
    expect(names).toContain('filesystem__read_text_file');
    expect(names).toContain('memory__search_nodes');
    expect(names).not.toContain('filesystem__write_file');
    expect(names).not.toContain('memory__delete_entities');
    // the startup table counts what an agent lists, and says how many the policy hides
    const row = (upstream: string) =>
      cli
        .stderr()
        .split('\n')
        .find((l) => l.startsWith(`${upstream} `))
        ?.trim()
        .split(/\s+/);
    const listed = (upstream: string) => names.filter((n) => n.startsWith(`${upstream}__`)).length;
    expect(row('memory')?.[4]).toBe(String(listed('memory')));
    expect(row('filesystem')?.[4]).toBe(String(listed('filesystem')));
    const hidden = /policy: (\d+) of (\d+) tools hidden/.exec(cli.stderr());
    expect(hidden).not.toBeNull();
    expect(Number(hidden![2]) - Number(hidden![1])).toBe(names.length);

    const denied = await agent.callTool({ name: 'filesystem__write_file', arguments: {} }).then(
      () => undefined,
      (e: { code: number; message: string }) => e,
    );
    expect(denied?.code).toBe(-32602);
    expect(denied?.message).toContain('Unknown tool: "filesystem__write_file"');

    const search = () => agent.callTool({ name: 'memory__search_nodes', arguments: { query: 'x' } });
    for (let i = 0; i < 3; i++) expect((await search()).isError).not.toBe(true);
    const limited = await search().then(
      () => undefined,
      (e: { code: number; data?: { retryAfterMs?: number } }) => e,
    );
    expect(limited?.code).toBe(-31429);
    expect(limited?.data?.retryAfterMs).toBeGreaterThan(0);
    expect((await agent.callTool({ name: 'memory__read_graph', arguments: {} })).isError).not.toBe(true);

    // /hub: the same rules and the same buckets (the same caller, anonymous, is already over the limit)
    const hub = new Client({ name: 'e2e-cli-policy-hub', version: '1' });
    await hub.connect(new StreamableHTTPClientTransport(new URL('/hub', cli.url)));
    const viaHub = (await hub.callTool({
      name: 'call_tool',
      arguments: { server: 'memory', tool: 'delete_entities', arguments: { entityNames: [] } },
    })) as { isError?: boolean; structuredContent?: { error?: { code?: string } } };
    expect(viaHub.isError).toBe(true);
    expect(viaHub.structuredContent?.error?.code).toBe('MCPP_HUB_UNKNOWN_TOOL');
    const hubLimited = (await hub.callTool({
      name: 'call_tool',
      arguments: { server: 'memory', tool: 'search_nodes', arguments: { query: 'x' } },
    })) as { isError?: boolean; structuredContent?: { error?: { code?: string; retryAfterMs?: number } } };
    expect(hubLimited.structuredContent?.error?.code).toBe('MCPP_POLICY_RATE_LIMITED');
    expect(hubLimited.structuredContent?.error?.retryAfterMs).toBeGreaterThan(0);
    await hub.close();
    await agent.close();

    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(text).toMatch(/mcppipe_policy_denied_total\{name="filesystem__write_file",caller="anonymous"\} 1/);
    expect(text).toMatch(
      /mcppipe_policy_denied_total\{name="memory__delete_entities",caller="anonymous"\} 1/,
    );
    expect(text).toMatch(/mcppipe_ratelimited_total\{name="memory__search_nodes",caller="anonymous"\} 2/);
    // logged once per caller and name per minute
    expect(cli.stderr().match(/"policy":"limited"/g)).toHaveLength(1);
  });

  it('--allow-tool serves only the matching tools; a bad glob is a usage error naming the flag', async () => {
    await using cli = await startCli([
      '--upstreams-file',
      file,
      '--allow-tool',
      'memory__read_*',
      '--allow-tool',
      'filesystem__list_*',
    ]);
    const agent = new Client({ name: 'e2e-cli-allow', version: '1' });
    await agent.connect(new StreamableHTTPClientTransport(cli.url));
    const names = (await agent.listTools()).tools.map((t) => t.name);
    expect(names).toContain('memory__read_graph');
    for (const name of names) expect(name).toMatch(/^(memory__read_|filesystem__list_)/);
    await agent.close();

    const bad = await runCli(['up', '--upstreams-file', file, '--deny-tool', 'x[', '--port', '0']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--deny-tool');
    expect(bad.stderr).toContain('bracket');
  });
});
