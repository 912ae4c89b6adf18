import { fileURLToPath } from 'node:url';
import { loadMcpJson } from '@mcppipe/config';
import { describe, expect, it } from 'vitest';

describe('examples/gateway/mcp.json', () => {
  it('is a valid gateway config with one hub-hidden server and one HTTP server', async () => {
    const path = fileURLToPath(new URL('../../../examples/gateway/mcp.json', import.meta.url));
    const layout = await loadMcpJson(path);
    expect(layout.upstreams.map((u) => u.name)).toEqual(['everything', 'files', 'github', 'memory']);
    expect(layout.upstreams.find((u) => u.name === 'files')?.hub).toBe(false);
    expect(layout.upstreams.find((u) => u.name === 'github')?.transport).toBe('http');
  });
});
