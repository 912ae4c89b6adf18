// E8 (SECURITY-REFERENCE §5): what a stdio server started by the gateway or by `mcppipe up` finds in its own
// /proc/<pid>/environ — the allow-list (PATH, HOME, …) and its configured env, never the operator's secrets.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixturePath, processTreePids, startCli, waitFor } from '@mcppipe/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OWNER_PASSWORD, startGateway } from './gatewayProcess.js';

const T = 120_000;
const secrets = {
  MCPPIPE_FOO: 'foo-e8',
  PUBLIC_URL: 'https://gw.example',
  DATA_DIR: '/var/lib/mcppipe-e8',
  SOME_API_KEY: 'sk-e8',
  PASSED_ON_PURPOSE: 'on-purpose-e8',
};

/** The environment of the first descendant of `pid` that runs `script`, read from /proc. */
async function childEnviron(pid: number, script: string): Promise<Record<string, string>> {
  let child: number | undefined;
  await waitFor(
    () =>
      (child = processTreePids(pid).find((p) => {
        try {
          return p !== pid && readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(script);
        } catch {
          return false;
        }
      })) !== undefined,
    { timeoutMs: 30_000, message: `a child running ${script}` },
  );
  const raw = readFileSync(`/proc/${child}/environ`, 'utf8');
  return Object.fromEntries(
    raw
      .split('\0')
      .filter((e) => e.includes('='))
      .map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]),
  );
}

// the CLI reads MCPPIPE_* as flags (an unknown one is a usage error): a real one stands in for MCPPIPE_FOO
const { MCPPIPE_FOO: _foo, ...rest } = secrets;
const cliEnv = { ...rest, MCPPIPE_UPSTREAM_MAX_ATTEMPTS: '20' };

function expectClean(env: Record<string, string>): void {
  for (const key of [
    'MCPPIPE_ADMIN_PASSWORD',
    'MCPPIPE_FOO',
    'MCPPIPE_UPSTREAM_MAX_ATTEMPTS',
    'PUBLIC_URL',
    'DATA_DIR',
    'SOME_API_KEY',
  ])
    expect(env[key], key).toBeUndefined();
  expect(Object.values(env)).not.toContain(OWNER_PASSWORD);
  expect(
    Object.keys(env).filter((k) => k.startsWith('MCPPIPE_') && !k.startsWith('MCPPIPE_SUPERVISOR_')),
  ).toEqual([]);
  expect(env['PATH']).toBe(process.env['PATH']);
  expect(env['HOME']).toBe(process.env['HOME']);
  expect(env['CONFIGURED']).toBe('yes');
  expect(env['TOKEN']).toBe('on-purpose-e8');
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcppipe-e8-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('E8: stdio children get an allow-listed environment', () => {
  it(
    'E8: the gateway started with MCPPIPE_ADMIN_PASSWORD does not hand it (or other secrets) to its servers',
    async () => {
      const layout = {
        mcpServers: {
          basic: {
            command: process.execPath,
            args: [fixturePath('sup-basic.mjs')],
            env: { CONFIGURED: 'yes', TOKEN: '${PASSED_ON_PURPOSE}' },
          },
        },
      };
      await writeFile(join(dir, 'mcp.json'), JSON.stringify(layout));
      await using gw = await startGateway(
        ['--config', join(dir, 'mcp.json'), '--data-dir', join(dir, 'data')],
        secrets,
      );
      expectClean(await childEnviron(gw.proc.pid!, 'sup-basic.mjs'));
    },
    T,
  );

  it(
    'E8: mcppipe up does not hand its environment to its servers (upstreams file and --stdio)',
    async () => {
      const file = join(dir, 'upstreams.toml');
      const script = fixturePath('sup-basic.mjs');
      await writeFile(
        file,
        [
          '[upstreams.basic]',
          `stdio = ${JSON.stringify([process.execPath, script])}`,
          'env = { CONFIGURED = "yes", TOKEN = "${PASSED_ON_PURPOSE}" }',
          '',
        ].join('\n'),
      );
      {
        await using cli = await startCli(['--upstreams-file', file], {
          env: cliEnv,
        });
        expectClean(await childEnviron(cli.proc.pid!, 'sup-basic.mjs'));
      }
      {
        await using cli = await startCli(
          [
            '--stdio',
            `basic=env CONFIGURED=yes TOKEN=\${PASSED_ON_PURPOSE} ${JSON.stringify(process.execPath)} ${JSON.stringify(script)}`,
          ],
          { env: cliEnv },
        );
        expectClean(await childEnviron(cli.proc.pid!, 'sup-basic.mjs'));
      }
    },
    T,
  );
});
