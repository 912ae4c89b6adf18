/**
 * `mcppipe-gateway` startup errors a user can fix: each exits 2 with one line naming what the user typed (the flag,
 * or the variable when the value came from the environment) and what to change.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayCommand } from './gatewayProcess.js';

let dir: string;
let config: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcppipe-gw-errors-'));
  config = join(dir, 'mcp.json');
  await writeFile(
    config,
    JSON.stringify({ mcpServers: { idle: { command: process.execPath, args: ['-e', ''] } } }),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs the gateway with `args` (after `--config`) and `env`; the errors tested here stop it before it listens. */
async function fails(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = await gatewayCommand(
    ['--config', config, '--data-dir', join(dir, 'data'), '--port', '45601', ...args],
    '',
    env,
  );
  return { code: r.code, stderr: r.stderr };
}

describe('a bad value names the flag or the variable the user gave', () => {
  const size = ': "lots" is not a size in bytes (e.g. 4194304 or 4mb)';
  const proxies = `: "1" is not an address or CIDR (a hop count is not accepted; list the proxies' addresses, e.g. 10.0.0.0/8)`;

  it('--body-limit lots / MCP_BODY_LIMIT=lots', async () => {
    expect(await fails(['--body-limit', 'lots'])).toEqual({
      code: 2,
      stderr: `mcppipe-gateway: --body-limit${size}\n`,
    });
    expect(await fails([], { MCP_BODY_LIMIT: 'lots' })).toEqual({
      code: 2,
      stderr: `mcppipe-gateway: MCP_BODY_LIMIT${size}\n`,
    });
  });

  it('--trusted-proxies 1 / TRUSTED_PROXIES=1', async () => {
    expect(await fails(['--trusted-proxies', '1'])).toEqual({
      code: 2,
      stderr: `mcppipe-gateway: --trusted-proxies${proxies}\n`,
    });
    expect(await fails([], { TRUSTED_PROXIES: '1' })).toEqual({
      code: 2,
      stderr: `mcppipe-gateway: TRUSTED_PROXIES${proxies}\n`,
    });
  });

  it('a flag wins over its variable, and only the flag is named', async () => {
    expect(await fails(['--body-limit', 'lots'], { MCP_BODY_LIMIT: '1mb' })).toEqual({
      code: 2,
      stderr: `mcppipe-gateway: --body-limit${size}\n`,
    });
  });
});

describe('--log-level', () => {
  const valid = 'use one of trace, debug, info, warn, error, fatal, silent';

  it('an unknown level is a usage error naming the flag, exit 2 (it was a crash: "please report this")', async () => {
    expect(await fails(['--log-level', 'bogus'])).toEqual({
      code: 2,
      stderr: `mcppipe-gateway: --log-level: "bogus" is not a log level; ${valid}\n`,
    });
  });

  it('or naming LOG_LEVEL when it came from the environment', async () => {
    expect(await fails([], { LOG_LEVEL: 'verbose' })).toEqual({
      code: 2,
      stderr: `mcppipe-gateway: LOG_LEVEL: "verbose" is not a log level; ${valid}\n`,
    });
  });
});

/** Listens on the first free port from 45700 up (this suite's range), to hold it while the gateway tries it. */
async function squat(): Promise<{ server: Server; port: number }> {
  for (let port = 45_700; port < 45_800; port++) {
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false)).listen(port, '127.0.0.1', () => resolve(true));
    });
    if (bound) return { server, port };
  }
  throw new Error('no free port in 45700-45799');
}

/** The last line of stderr: the error, after any log lines. */
const lastLine = (stderr: string): string => stderr.trimEnd().split('\n').at(-1) ?? '';

describe('startup failures the user can fix exit 2, like the usage errors', () => {
  const env = { MCPPIPE_ADMIN_PASSWORD: 'a long passphrase xyz' };

  it('a port in use names the address and says to choose another --port (or PORT)', async () => {
    const { server, port } = await squat();
    try {
      const r = await gatewayCommand(
        ['--config', config, '--data-dir', join(dir, 'data-port'), '--port', String(port)],
        '',
        env,
      );
      expect({ code: r.code, error: lastLine(r.stderr) }).toEqual({
        code: 2,
        error: `mcppipe-gateway: cannot listen on 127.0.0.1:${port}: the address is already in use; choose another with --port (or PORT)`,
      });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a corrupt jwt-key.pem names the file and says deleting it generates a new key (signing tokens out)', async () => {
    const data = join(dir, 'data-key');
    await mkdir(data, { recursive: true });
    await writeFile(join(data, 'jwt-key.pem'), 'not a key\n', { mode: 0o600 });
    const r = await gatewayCommand(['--config', config, '--data-dir', data, '--port', '45602'], '', env);
    expect({ code: r.code, stderr: r.stderr }).toEqual({
      code: 2,
      stderr:
        `mcppipe-gateway: ${join(data, 'jwt-key.pem')} is corrupt: it is not a PEM private key. The gateway refuses ` +
        'to start rather than mint a new key silently. Restore it from a backup, or delete it: the gateway then ' +
        'generates a new key, which signs out every existing token (each client must authorize again).\n',
    });
  });
});

describe('a mistyped flag', () => {
  it('--confg is refused with a hint for --config, exit 2, as `mcppipe` does', async () => {
    const r = await gatewayCommand(['--confg', config, '--port', '45603']);
    expect({ code: r.code, stderr: r.stderr }).toEqual({
      code: 2,
      stderr: 'mcppipe-gateway: Unknown argument: confg (did you mean --config?)\n',
    });
  });

  it('each of several unknown flags gets its own hint; one close to nothing gets none', async () => {
    const r = await gatewayCommand([
      '--config',
      config,
      '--prot',
      '45604',
      '--log-levle',
      'info',
      '--zzzzzz',
    ]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({
      code: 2,
      stderr:
        'mcppipe-gateway: Unknown arguments: prot, log-levle, logLevle, zzzzzz (--prot: did you mean --port?; ' +
        '--log-levle: did you mean --log-level?)\n',
    });
  });
});
