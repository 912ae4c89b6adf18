/**
 * The startup of `mcppipe up --tunnel` while the relay is unreachable (docs/cli.md "Tunnel"), all real processes:
 * the serving line and the client lines come right after the table, as without a tunnel (at most ~1.5 s of wait for
 * the tunnel, not the 10 s table wait), the tunnel line shows its state, the client lines use the local URL; once
 * the relay (the gateway with `--tunnel-zone`) is up on that port, a log line gives the public URL.
 */
import { fixturePath, startCli, waitFor } from '@mcppipe/test-utils';
import type { RunningCli } from '@mcppipe/test-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { startGateway } from './gatewayProcess.js';
import { ZONE, node, startTunnelGateway } from './tunnelStack.js';
import type { TunnelGateway } from './tunnelStack.js';

describe('mcppipe up --tunnel with the relay unreachable at startup', () => {
  let stack: TunnelGateway | undefined;
  let cli: RunningCli | undefined;
  afterAll(async () => {
    await cli?.stop();
    await stack?.close();
  });

  it('prints the serving and client lines right after the table; says when the tunnel connects later', async () => {
    stack = await startTunnelGateway({
      name: 'tunnel-startup',
      accounts: { alice: 'alice tunnel startup passphrase' },
      keys: { alice: ['alice'] },
    });
    const { port } = stack.gw;
    await stack.gw.stop(); // the relay is down: its port refuses connections
    const relay = `http://127.0.0.1:${port}`;
    const startedAt = Date.now();
    cli = await startCli(
      [
        ...['--stdio', `probe=${node(fixturePath('e2e-probe.mjs'))}`],
        ...['--tunnel', relay, '--api-key', stack.keys['alice']!, '--subdomain', 'late'],
      ],
      { timeoutMs: 30_000 },
    );
    expect(Date.now() - startedAt).toBeLessThan(8_000); // the 10 s table wait no longer holds the serving line
    const text = cli
      .stderr()
      .split('\n')
      .filter((l) => !l.startsWith('{'));
    const at = text.findIndex((l) => l.startsWith('mcppipe: serving '));
    const local = cli.url.href;
    expect(text[at - 2]).toMatch(/^probe\s+stdio\s/); // the table's row, then its blank line, then the ready lines
    expect(text.slice(at, at + 2)).toEqual([
      `mcppipe: serving ${local} (single upstream, forwarded verbatim)`,
      expect.stringMatching(
        new RegExp(
          `^mcppipe: tunnel ${relay}/tunnel/connect \\((connecting|reconnecting: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}); auth oauth\\)$`,
        ),
      ),
    ]);
    expect(text[at + 2]).toBe(`  add it to Claude Code:  claude mcp add --transport http mcppipe ${local}`);

    stack.gw = await startGateway(stack.args, {}, { port }); // the relay comes up on the same address
    const connected = `tunnel connected: http://late--alice.${ZONE}:${port}/mcp`;
    await waitFor(() => cli!.stderr().includes(connected), { timeoutMs: 45_000, message: connected });
  });
});
