// The single-upstream hot path (A7/A8) and the bounded session table.
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { referenceServerPath, startCli } from '@mcppipe/test-utils';
import { describe, expect, it } from 'vitest';

const node = (script: string) => `${JSON.stringify(process.execPath)} ${JSON.stringify(script)}`;

describe('mcppipe up with one bare source', () => {
  it('forwards verbatim: no prefixes, no wrapping', async () => {
    await using cli = await startCli(['--stdio', node(referenceServerPath('everything'))]);
    const c = new V1Client({ name: 'e2e', version: '1' });
    await c.connect(new V1Transport(cli.url));
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name)).toContain('echo');
    expect(tools.some((t) => t.name.includes('__'))).toBe(false);
    const { resources, nextCursor } = await c.listResources();
    expect(resources[0]?.uri).toMatch(/^demo:\/\//);
    // the startup table counts the single upstream's lists as in aggregate mode (it showed "-")
    const row = cli
      .stderr()
      .split('\n')
      .find((l) => /^\S+\s+stdio\s/.test(l))
      ?.trim()
      .split(/\s+/);
    expect(row?.[4]).toBe(String(tools.length));
    expect(row?.[6]).toBe(`${resources.length}${nextCursor ? '+' : ''}`);
    const r = await c.callTool({ name: 'echo', arguments: { message: 'verbatim' } });
    expect(r.content).toEqual([{ type: 'text', text: 'Echo: verbatim' }]);
    await c.close();
  });

  it('evicts the oldest session beyond --max-sessions; its id answers 404', async () => {
    await using cli = await startCli([
      '--stdio',
      node(referenceServerPath('everything')),
      '--max-sessions',
      '1',
    ]);
    const first = new V1Transport(cli.url);
    const a = new V1Client({ name: 'a', version: '1' });
    await a.connect(first);
    const b = new V1Client({ name: 'b', version: '1' });
    await b.connect(new V1Transport(cli.url));
    const res = await fetch(cli.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': first.sessionId!,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(res.status).toBe(404);
    expect((await b.listTools()).tools.length).toBeGreaterThan(0);
    await b.close();
  });
});
