import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHub } from './hub.js';
import { metaTools } from './metaTools.js';
import { Supervisor } from '@mcppipe/supervisor';
import type { Hub, ListServersResult, ListToolsResult } from './types.js';
import {
  callToolWith,
  connectHttp,
  data,
  demoUpstreams,
  errorOf,
  meta,
  startHttpHarness,
  startSupervisor,
} from '@mcppipe/test-utils';
import type { HttpHarness, TestClient } from '@mcppipe/test-utils';

// The "done when": a real SDK client on the hub's HTTP endpoint lists servers, lists one server's tools,
// fetches one schema and calls the tool, over three real upstreams (one "hub": false) plus a fixture — in both
// protocol eras.
describe('the hub over real upstreams and real Streamable HTTP', { timeout: 60_000 }, () => {
  let dir: string;
  let registry: Supervisor;
  let hub: Hub;
  let served: HttpHarness;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcppipe-hub-'));
    registry = await startSupervisor(
      Supervisor,
      demoUpstreams({ memoryFile: join(dir, 'memory.jsonl'), hideFilesystem: true }),
    );
    hub = createHub({ registry });
    served = await startHttpHarness(hub, { path: '/hub' });
  }, 60_000);

  afterAll(async () => {
    await served?.close();
    await hub?.close();
    await registry?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  describe.each(['modern', 'legacy'] as const)('%s era', (era) => {
    let client: TestClient;
    beforeAll(async () => {
      client = await connectHttp(served.url, era);
    });
    afterAll(async () => {
      await client?.close();
    });

    it('negotiates the era asked for', () => {
      const version = client.getNegotiatedProtocolVersion();
      if (era === 'modern') expect(version).toBe('2026-07-28');
      else expect(version).not.toBe('2026-07-28');
    });

    it('lists exactly the four meta-tools with strict schemas and read-only hints', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['list_servers', 'list_tools', 'get_tool', 'call_tool']);
      for (const tool of tools) expect(tool.inputSchema['additionalProperties']).toBe(false);
      expect(tools.map((t) => t.annotations?.readOnlyHint)).toEqual([true, true, true, false]);
      expect(tools).toEqual(
        metaTools.map((t) => expect.objectContaining({ name: t.name, inputSchema: t.inputSchema })),
      );
    });

    it('list_servers shows the visible servers with phase, description and tool count', async () => {
      const { servers } = data<ListServersResult>(await meta(client, 'list_servers'));
      expect(servers.map((s) => s.name)).toEqual(['everything', 'fixture', 'memory']);
      for (const s of servers) expect(s.phase).toBe('available');
      const fixture = servers.find((s) => s.name === 'fixture')!;
      expect(fixture).toEqual({
        name: 'fixture',
        phase: 'available',
        description: 'Fixture server for the hub tests.',
        toolCount: 7,
      });
      const everything = servers.find((s) => s.name === 'everything')!;
      expect(everything.title).toBe('Everything Reference Server');
      expect(everything.toolCount).toBeGreaterThan(5);
      expect(JSON.stringify(servers)).not.toContain('filesystem');
    });

    it('list_tools gives names and one-line descriptions only, matching the upstream', async () => {
      const { server, phase, tools } = data<ListToolsResult>(
        await meta(client, 'list_tools', { server: 'fixture' }),
      );
      expect([server, phase]).toEqual(['fixture', 'available']);
      expect(tools[0]).toEqual({ name: 'echo', description: 'Echoes the text back.' });
      for (const t of tools)
        expect(Object.keys(t).every((k) => k === 'name' || k === 'description')).toBe(true);
      const direct = await registry.request('memory', { method: 'tools/list' });
      const memory = data<ListToolsResult>(await meta(client, 'list_tools', { server: 'memory' }));
      expect(memory.tools.map((t) => t.name)).toEqual(
        (direct['tools'] as { name: string }[]).map((t) => t.name),
      );
    });

    it('get_tool returns the definition exactly as the upstream listed it', async () => {
      const result = data<{ server: string; tool: Record<string, unknown> }>(
        await meta(client, 'get_tool', { server: 'fixture', tool: 'echo' }),
      );
      const direct = await registry.request('fixture', { method: 'tools/list' });
      const echo = (direct['tools'] as { name: string }[]).find((t) => t.name === 'echo');
      expect(result).toEqual({ server: 'fixture', tool: echo });
      expect(result.tool['x_fixtureExtra']).toEqual({ kept: true });
      expect(result.tool['_meta']).toEqual({ 'fixture/meta': { a: 1 } });
      expect(result.tool['outputSchema']).toBeDefined();
    });

    it('call_tool forwards to real upstreams and returns their results unchanged', async () => {
      const echo = await meta(client, 'call_tool', {
        server: 'everything',
        tool: 'echo',
        arguments: { message: 'hi' },
      });
      expect(echo.isError).toBeFalsy();
      expect(echo.content).toEqual([{ type: 'text', text: 'Echo: hi' }]);
      const graph = await meta(client, 'call_tool', { server: 'memory', tool: 'read_graph', arguments: {} });
      expect(JSON.stringify(graph.content)).toContain('entities');
      const structured = await meta(client, 'call_tool', {
        server: 'fixture',
        tool: 'echo',
        arguments: { text: 'x' },
      });
      expect(structured.structuredContent).toEqual({ echoed: 'x' });
      const failed = await meta(client, 'call_tool', { server: 'fixture', tool: 'fail' });
      expect(failed).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'this tool always fails' }],
      });
      expect(failed.structuredContent).toBeUndefined();
    });

    it('call_tool forwards upstream progress to the agent over this era', async () => {
      const progress: number[] = [];
      const result = await callToolWith(
        client,
        { server: 'fixture', tool: 'slow', arguments: { durationMs: 800, intervalMs: 100 } },
        { onprogress: (p) => progress.push(p.progress), timeout: 30_000 },
      );
      expect((result.content[0] as { text: string }).text).toMatch(
        /^slow done after \d+ progress notifications$/,
      );
      expect(progress.length).toBeGreaterThanOrEqual(3);
    });

    it('unknown servers and tools are errors with close matches', async () => {
      const server = errorOf(await meta(client, 'list_tools', { server: 'evrything' }));
      expect(server).toMatchObject({ code: 'MCPP_HUB_UNKNOWN_SERVER', suggestions: ['everything'] });
      expect(server.message).toContain('Did you mean "everything"?');
      const tool = errorOf(await meta(client, 'get_tool', { server: 'everything', tool: 'ecko' }));
      expect(tool).toMatchObject({ code: 'MCPP_HUB_UNKNOWN_TOOL', server: 'everything', tool: 'ecko' });
      expect(tool['suggestions']).toContain('echo');
      const call = errorOf(
        await meta(client, 'call_tool', { server: 'fixture', tool: 'eco', arguments: {} }),
      );
      expect(call).toMatchObject({ code: 'MCPP_HUB_UNKNOWN_TOOL', suggestions: ['echo'] });
    });

    it('a "hub": false server is refused by every meta-tool exactly like an unknown one', async () => {
      const asUnknown = (e: { message: string; server?: unknown }, name: string) =>
        JSON.stringify(e).replaceAll(name, '<name>');
      const unknown = errorOf(await meta(client, 'list_tools', { server: 'nosuchserv' }));
      const outcomes = [
        await meta(client, 'list_tools', { server: 'filesystem' }),
        await meta(client, 'get_tool', { server: 'filesystem', tool: 'read_text_file' }),
        await meta(client, 'call_tool', {
          server: 'filesystem',
          tool: 'list_allowed_directories',
          arguments: {},
        }),
      ];
      for (const outcome of outcomes) {
        const error = errorOf(outcome);
        expect(error.code).toBe('MCPP_HUB_UNKNOWN_SERVER');
        expect(asUnknown(error, 'filesystem')).toBe(asUnknown(unknown, 'nosuchserv'));
      }
      // …while the registry (and so the server's own path) still has it.
      expect(registry.get('filesystem')?.phase).toBe('available');
    });

    it('strict input schemas: unknown or missing properties are errors the model can read', async () => {
      const extra = errorOf(await meta(client, 'list_servers', { verbose: true }));
      expect(extra).toMatchObject({ code: 'MCPP_HUB_INVALID_ARGUMENTS' });
      expect(extra.message).toContain('verbose');
      const missing = errorOf(await meta(client, 'get_tool', { server: 'fixture' }));
      expect(missing.message).toContain('missing required property tool');
      const wrong = errorOf(
        await meta(client, 'call_tool', { server: 'fixture', tool: 'echo', arguments: [1] }),
      );
      expect(wrong.code).toBe('MCPP_HUB_INVALID_ARGUMENTS');
    });

    it('an unknown meta-tool name is a JSON-RPC error', async () => {
      await expect(meta(client, 'list_prompts')).rejects.toThrow(/Unknown tool: list_prompts/);
    });
  });
});
