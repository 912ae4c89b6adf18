import { afterEach, describe, expect, it, vi } from 'vitest';
import { pasteUrl, printReady } from './report.js';

const PUBLIC = 'http://laptop--alice.tunnel.test:3000/mcp';

/** What printReady writes to stderr. */
function ready(tunnel: Parameters<typeof printReady>[1]['tunnel']): string {
  const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  printReady('http://127.0.0.1:8808/mcp', { hub: false, metrics: undefined, mode: 'aggregate', tunnel });
  return write.mock.calls.map((c) => String(c[0])).join('');
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('printReady: the client line of a tunnel', () => {
  it('adds the key header, by variable, to the Claude Code and Inspector lines of an api-key tunnel', () => {
    const out = ready({
      line: `tunnel ${PUBLIC} (connected; auth api-key)`,
      publicUrl: PUBLIC,
      auth: 'api-key',
    });
    expect(out).toContain(
      `  add it to Claude Code:  claude mcp add --transport http mcppipe ${PUBLIC} --header "Authorization: Bearer $MCPPIPE_API_KEY"\n`,
    );
    // the Inspector CLI's --header takes "Name: Value" (before --method: the option takes several values)
    expect(out).toContain(
      `  or inspect it:          npx -y @modelcontextprotocol/inspector@2.12.0 --cli ${PUBLIC} --header "Authorization: Bearer $MCPPIPE_API_KEY" --method tools/list\n`,
    );
    // the variable is said: it may not be set where the agent runs (the key came from --api-key)
    expect(out).toContain(
      '  (set MCPPIPE_API_KEY there to an API key of your account: mcppipe-gateway keys create)\n',
    );
  });

  it('adds no header for oauth, or before the tunnel connected (the local URL is pasted)', () => {
    const oauth = ready({
      line: `tunnel ${PUBLIC} (connected; auth oauth)`,
      publicUrl: PUBLIC,
      auth: 'oauth',
    });
    expect(oauth).toContain(`claude mcp add --transport http mcppipe ${PUBLIC}\n`);
    const pending = ready({
      line: 'tunnel … (connecting; auth api-key)',
      publicUrl: undefined,
      auth: 'api-key',
    });
    expect(pending).toContain('claude mcp add --transport http mcppipe http://127.0.0.1:8808/mcp\n');
    expect(pending).not.toContain('Authorization');
    expect(oauth).not.toContain('set MCPPIPE_API_KEY');
  });
});

describe('pasteUrl', () => {
  it('is what the client lines of a tunnel on a *.localhost zone print', () => {
    const local = 'http://laptop--alice.tunnel.localhost:3000/mcp';
    const out = ready({ line: `tunnel ${local} (connected; auth oauth)`, publicUrl: local, auth: 'oauth' });
    expect(out).toContain(
      'claude mcp add --transport http mcppipe http://127.0.0.1:3000/t/laptop--alice/mcp\n',
    );
    expect(out).toContain(`mcppipe: tunnel ${local} (connected; auth oauth)`); // the table keeps the public URL
  });

  it('prints a *.localhost public URL in its path form on 127.0.0.1 (Node does not resolve *.localhost)', () => {
    expect(pasteUrl('http://laptop--alice.tunnel.localhost:3000/mcp')).toBe(
      'http://127.0.0.1:3000/t/laptop--alice/mcp',
    );
    expect(pasteUrl('https://laptop--alice.mcp.example.com/mcp')).toBe(
      'https://laptop--alice.mcp.example.com/mcp',
    );
  });
});
