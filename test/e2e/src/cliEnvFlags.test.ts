/**
 * `mcppipe up`'s flags set by their `MCPPIPE_*` variables, as a user sets them: booleans as `1`/`true`/`yes`/`on` (or
 * `0`/`false`/`no`/`off`/empty), lists comma-separated.
 */
import { createServer } from 'node:net';
import { fixturePath, runCli, startCli } from '@mcppipe/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';

/** A free port of 127.0.0.1 in 46500-46999 (where this suite may listen). */
async function port(): Promise<number> {
  for (let p = 46500 + (process.pid % 400); ; p = p >= 46999 ? 46500 : p + 1) {
    const free = await new Promise<boolean>((resolve) => {
      const srv = createServer();
      srv.once('error', () => resolve(false));
      srv.listen(p, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
    if (free) return p;
  }
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } },
};

/** POSTs an `initialize` to `url`. */
async function post(url: URL): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(initialize),
  });
}

const upstream = () => `h=${process.execPath} ${fixturePath('hub-fixture.mjs')}`;

describe('mcppipe up: boolean flags by variable', () => {
  it('MCPPIPE_HUB=1 serves /hub, MCPPIPE_HUB=0 does not', async () => {
    for (const [value, status] of [
      ['1', 200],
      ['On', 200],
      ['0', 404],
    ] as const) {
      await using cli = await startCli(['--port', String(await port()), '--stdio', upstream()], {
        env: { MCPPIPE_HUB: value },
      });
      const res = await post(new URL('/hub', cli.url));
      await res.body?.cancel();
      expect(res.status, `MCPPIPE_HUB=${value}`).toBe(status);
    }
  });

  it('MCPPIPE_STATELESS=yes issues no Mcp-Session-Id (a session without it)', async () => {
    for (const [value, session] of [
      ['yes', false],
      ['', true],
    ] as const) {
      await using cli = await startCli(['--port', String(await port()), '--stdio', upstream()], {
        env: { MCPPIPE_STATELESS: value },
      });
      const res = await post(cli.url);
      await res.body?.cancel();
      expect(res.status).toBe(200);
      expect(res.headers.has('mcp-session-id'), `MCPPIPE_STATELESS=${value}`).toBe(session);
    }
  });

  it('MCPPIPE_HUB=1 with --transport stdio is refused as --hub is (exit 2)', async () => {
    const r = await runCli(['up', '--transport', 'stdio', '--stdio', 'x=true'], {
      env: { MCPPIPE_HUB: '1' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('mcppipe: --hub applies only to --transport http');
  });

  it('any other value is a usage error naming the variable and the value (exit 2)', async () => {
    const r = await runCli(['up', '--stdio', 'x=true'], { env: { MCPPIPE_STATELESS: 'maybe' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'mcppipe: MCPPIPE_STATELESS must be 1, true, yes or on (or 0, false, no, off or empty), got "maybe"\n',
    );
  });
});

describe('mcppipe up: tool globs by variable, comma-separated', () => {
  /** The tool names an agent lists from two hub fixtures (`a`, `b`) under `env`. */
  async function listed(env: NodeJS.ProcessEnv): Promise<string[]> {
    const fixture = `${process.execPath} ${fixturePath('hub-fixture.mjs')}`;
    await using cli = await startCli(
      ['--port', String(await port()), '--stdio', `a=${fixture}`, '--stdio', `b=${fixture}`],
      { env },
    );
    const agent = new Client({ name: 'e2e-cli-env-flags', version: '1' });
    await agent.connect(new StreamableHTTPClientTransport(cli.url));
    const names = (await agent.listTools()).tools.map((t) => t.name).sort();
    await agent.close();
    return names;
  }

  it('MCPPIPE_DENY_TOOL and MCPPIPE_ALLOW_TOOL take a comma-separated list of globs', async () => {
    const denied = await listed({ MCPPIPE_DENY_TOOL: 'a__echo,b__*' });
    expect(denied).toContain('a__slow');
    expect(denied).not.toContain('a__echo');
    expect(denied.filter((n) => n.startsWith('b__'))).toEqual([]);
    expect(await listed({ MCPPIPE_ALLOW_TOOL: 'a__echo, b__fail' })).toEqual(['a__echo', 'b__fail']);
  });

  it('a bad glob in the variable is refused naming the variable, not --deny-tool (exit 2)', async () => {
    const r = await runCli(['up', '--stdio', 'x=true'], { env: { MCPPIPE_DENY_TOOL: 'a__echo b__echo' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^mcppipe: MCPPIPE_DENY_TOOL "a__echo b__echo" has whitespace/);
    expect(r.stderr).not.toContain('--deny-tool');
  });
});
