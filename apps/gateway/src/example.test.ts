import { fileURLToPath } from 'node:url';
import { loadMcpJson } from '@mcppipe/config';
import { describe, expect, it } from 'vitest';

const example = (name: string) =>
  fileURLToPath(new URL(`../../../examples/gateway/${name}`, import.meta.url));

describe('examples/gateway', () => {
  it('mcp.json (the default example) is a valid config of local stdio servers only: nothing reaches the internet', async () => {
    const layout = await loadMcpJson(example('mcp.json'));
    expect(layout.upstreams.map((u) => u.name)).toEqual(['everything', 'files', 'memory']);
    expect(layout.upstreams.find((u) => u.name === 'files')?.hub).toBe(false);
    expect(layout.upstreams.map((u) => u.transport)).toEqual(['stdio', 'stdio', 'stdio']);
  });

  it('mcp.remote.json holds the remote HTTP server', async () => {
    const layout = await loadMcpJson(example('mcp.remote.json'));
    expect(layout.upstreams.map((u) => u.name)).toEqual(['github', 'memory']);
    expect(layout.upstreams.find((u) => u.name === 'github')?.transport).toBe('http');
  });
});
