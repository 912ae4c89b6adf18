// `mcppipe up --hub --metrics-addr`: the hub's four meta-tools next to /mcp, and Prometheus metrics (A9).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  MCP_POST_HEADERS,
  RAW_PROTOCOL_VERSION,
  freePort,
  postInitialize,
  referenceServerPath,
  sseJson,
  startCli,
} from '@mcppipe/test-utils';
import { describe, expect, it } from 'vitest';

const node = (script: string) => `${JSON.stringify(process.execPath)} ${JSON.stringify(script)}`;

describe('mcppipe up --hub --metrics-addr', () => {
  it('serves the hub at /hub and counts calls, fan-out and phases at /metrics', async () => {
    const metricsPort = await freePort();
    await using cli = await startCli([
      '--stdio',
      `everything=${node(referenceServerPath('everything'))}`,
      '--stdio',
      `memory=${node(referenceServerPath('memory'))}`,
      '--hub',
      '--metrics-addr',
      `127.0.0.1:${metricsPort}`,
    ]);
    const hub = new Client({ name: 'e2e-hub', version: '1' });
    await hub.connect(new StreamableHTTPClientTransport(new URL('/hub', cli.url)));
    const { tools } = await hub.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['call_tool', 'get_tool', 'list_servers', 'list_tools']);
    const servers = await hub.callTool({ name: 'list_servers', arguments: {} });
    expect(JSON.stringify(servers.structuredContent)).toContain('"everything"');
    const echoed = await hub.callTool({
      name: 'call_tool',
      arguments: { server: 'everything', tool: 'echo', arguments: { message: 'via hub' } },
    });
    expect(echoed.content).toEqual([{ type: 'text', text: 'Echo: via hub' }]);
    await hub.close();

    const agent = new Client({ name: 'e2e-agent', version: '1' });
    await agent.connect(new StreamableHTTPClientTransport(cli.url));
    await agent.listTools();
    await agent.callTool({ name: 'memory__read_graph', arguments: {} });
    await agent.close();

    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(text).toMatch(/mcppipe_upstream_phase\{upstream="everything",phase="available"\} 1/);
    expect(text).toMatch(
      /mcppipe_calls_total\{upstream="memory",method="tools\/call",tool="read_graph",outcome="ok"\} 1/,
    );
    expect(text).toMatch(
      /mcppipe_calls_total\{upstream="everything",method="tools\/call",tool="echo",outcome="ok"\} 1/,
    );
    expect(text).toMatch(/mcppipe_fanout_requests_total\{upstream="everything",method="tools\/list"\} \d+/);
    expect(text).toMatch(
      /mcppipe_call_duration_seconds_count\{upstream="memory",method="tools\/call",tool="read_graph"\} 1/,
    );
  });
});

describe('mcppipe up --stateless', () => {
  it('serves 2025-era requests without sessions and promises no change notifications to them', async () => {
    await using cli = await startCli([
      '--stdio',
      `everything=${node(referenceServerPath('everything'))}`,
      '--stateless',
    ]);
    const res = await postInitialize(cli.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const text = await res.text();
    const body = (text.startsWith('{') ? JSON.parse(text) : sseJson(text)[0]) as {
      result: { capabilities: Record<string, Record<string, unknown>> };
    };
    const caps = body.result.capabilities;
    expect(caps['tools']).toEqual({});
    expect(caps['prompts']).toEqual({});
    expect(caps['resources']).toEqual({});

    // a 2025-era call without a session is answered
    const call = await fetch(cli.url, {
      method: 'POST',
      headers: { ...MCP_POST_HEADERS, 'mcp-protocol-version': RAW_PROTOCOL_VERSION },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'echo', arguments: { message: 'stateless' } }, // one upstream: single mode
      }),
    });
    expect(await call.text()).toContain('Echo: stateless');
  });
});
