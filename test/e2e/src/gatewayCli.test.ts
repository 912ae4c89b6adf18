/**
 * The `mcppipe-gateway` command line: flag errors exit 2 with a message naming the fix, `hash-password`
 * prints a bcrypt hash, and `LOG_FILE` receives the same log lines as stderr — without any token in them.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { referenceServerPath } from '@mcppipe/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayCliPath, obtainToken, rpcHeaders, startGateway } from './gatewayProcess.js';

async function run(args: string[], input?: string, env: NodeJS.ProcessEnv = {}) {
  const proc = spawn(process.execPath, [gatewayCliPath, ...args], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  proc.stdin.end(input ?? '');
  const timer = setTimeout(() => proc.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((r) => proc.once('exit', (c) => r(c)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcppipe-gw-cli-'));
  await writeFile(
    join(dir, 'mcp.json'),
    JSON.stringify({
      mcpServers: { everything: { command: process.execPath, args: [referenceServerPath('everything')] } },
    }),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('mcppipe-gateway flags', () => {
  it('requires PUBLIC_URL on a non-loopback bind', async () => {
    const r = await run(['--config', join(dir, 'mcp.json'), '--host', '0.0.0.0']);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 2, stderr: expect.any(String) });
    expect(r.stderr).toContain('PUBLIC_URL (--public-url) is required when binding 0.0.0.0');
  });

  it('--help lists the settings read from the environment only (the secrets a node refuses to start without)', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    for (const name of [
      'MCPPIPE_ADMIN_PASSWORD',
      'MCPPIPE_API_TOKEN',
      'MCPPIPE_NODE_SECRET',
      'MCPPIPE_WEBHOOKS_ALLOW_PRIVATE',
    ])
      expect(r.stdout).toContain(`\n  ${name}`);
  });

  it('refuses a hop count in TRUSTED_PROXIES', async () => {
    const r = await run(['--config', join(dir, 'mcp.json')], '', { TRUSTED_PROXIES: '1' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('a hop count is not accepted');
  });

  it('names every problem of an invalid config and exits 2', async () => {
    await writeFile(
      join(dir, 'bad.json'),
      JSON.stringify({ mcpServers: { Bad: { command: 'x' }, ok: { url: 'ftp://x' } } }),
    );
    const r = await run(['--config', join(dir, 'bad.json'), '--data-dir', join(dir, 'data-bad')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('(2 problems)');
    expect(r.stderr.split('mcpServers.Bad:')).toHaveLength(2);
    expect(r.stderr.split('mcpServers.ok.url:')).toHaveLength(2);
  });

  it('prints the one problem of an invalid config exactly once (issue 13.7)', async () => {
    await writeFile(join(dir, 'one.json'), JSON.stringify({ mcpServers: { Bad: { command: 'x' } } }));
    const r = await run(['--config', join(dir, 'one.json'), '--data-dir', join(dir, 'data-one')]);
    expect(r.code).toBe(2);
    expect(r.stderr.split('mcpServers.Bad: upstream name "Bad" is invalid')).toHaveLength(2);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('  - '))).toEqual([]);
  });

  it('G1: duplicate server keys in mcp.json exit 2 at boot, naming both JSON paths and lines', async () => {
    const memory = `{ "command": ${JSON.stringify(process.execPath)}, "args": [] }`;
    await writeFile(
      join(dir, 'dup.json'),
      ['{', '  "mcpServers": {', `    "memory": ${memory},`, `    "memory": ${memory}`, '  }', '}'].join(
        '\n',
      ),
    );
    const r = await run(['--config', join(dir, 'dup.json'), '--data-dir', join(dir, 'data-dup')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('mcpServers.memory at line 3 and mcpServers.memory at line 4');
  });

  it('hash-password prints a bcrypt hash of stdin', async () => {
    const r = await run(['hash-password'], 'correct horse battery staple\n');
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\$2[aby]\$12\$[./A-Za-z0-9]{53}$/);
  });
});

describe('LOG_FILE', () => {
  it('receives the log lines, and no token ever appears in them', async () => {
    const logFile = join(dir, 'logs', 'gateway.log');
    const gw = await startGateway(
      ['--config', join(dir, 'mcp.json'), '--data-dir', join(dir, 'data-log'), '--log-level', 'debug'],
      { LOG_FILE: logFile },
    );
    try {
      const { token } = await obtainToken(gw.url, '/servers/everything/mcp');
      const res = await fetch(`${gw.url}/servers/everything/mcp`, {
        method: 'POST',
        headers: { ...rpcHeaders(token), cookie: 'sid=cookie-secret' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(res.status).toBe(200);
      await fetch(`${gw.url}/servers/everything/mcp`, {
        method: 'POST',
        headers: rpcHeaders('not-a-valid-token'),
        body: '{}',
      });
    } finally {
      expect(await gw.stop()).toBe(0);
    }
    const logged = await readFile(logFile, 'utf8');
    expect(logged).toContain('gateway listening on');
    expect(logged).toContain('"msg":"stopped"');
    expect(gw.stderr()).toContain('gateway listening on');
    expect(logged).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\./); // no JWT
    expect(logged).not.toContain('cookie-secret');
    expect(logged).not.toContain('not-a-valid-token');
    expect(gw.stderr()).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\./);
  });
});
