// `mcppipe up --transport stdio` spawned by the v1 SDK client's StdioClientTransport (as Claude Desktop or Cursor
// would) over two real stdio upstreams: list, call, progress, cancellation, an upstream SIGKILLed and back, and the
// end of stdin stopping every process. Under `--log-level trace` (pretty logs, startup tracing) stdout carries
// nothing but JSON-RPC (issue 21.1).
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  cliPath,
  fixturePath,
  isPidRunning,
  processTreePids,
  referenceServerPath,
  runCli,
  waitFor,
} from '@mcppipe/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const node = (script: string) => [process.execPath, script].map((a) => JSON.stringify(a)).join(' ');
const text = (r: unknown) =>
  ((r as { content?: { type: string; text?: string }[] }).content ?? []).find((c) => c.type === 'text')
    ?.text ?? '';

const probeLog = join(mkdtempSync(join(tmpdir(), 'mcppipe-stdio-')), 'probe.log');
let client: V1Client;
let transport: StdioClientTransport;
let child: ChildProcess;
let stdout = '';
let stderr = '';
const clientErrors: Error[] = [];

beforeAll(async () => {
  transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      cliPath,
      'up',
      '--transport',
      'stdio',
      '--log-level',
      'trace',
      '--log-format',
      'pretty',
      '--stdio',
      `everything=${node(referenceServerPath('everything'))}`,
      '--stdio',
      `probe=env PROBE_LOG=\${PROBE_LOG} ${node(fixturePath('e2e-probe.mjs'))}`,
    ],
    env: { ...(process.env as Record<string, string>), PROBE_LOG: probeLog, MCPPIPE_TRACE_STARTUP: '1' },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  client = new V1Client({ name: 'e2e-stdio-v1', version: '1' });
  client.onerror = (err) => clientErrors.push(err);
  await client.connect(transport, { timeout: 60_000 });
  // the raw bytes the CLI writes to stdout, as the client reads them
  child = (transport as unknown as { _process: ChildProcess })._process;
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
}, 90_000);

afterAll(async () => {
  await client?.close().catch(() => {});
});

describe('mcppipe up --transport stdio', () => {
  it('lists the namespaced tools of both stdio upstreams', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of ['everything__echo', 'probe__pid', 'probe__wait']) expect(names).toContain(n);
    expect(new Set(names.map((n) => n.slice(0, n.indexOf('__'))))).toEqual(new Set(['everything', 'probe']));
  });

  it('routes calls to the upstream in the prefix', async () => {
    expect(text(await client.callTool({ name: 'everything__echo', arguments: { message: 'hi' } }))).toBe(
      'Echo: hi',
    );
    expect(text(await client.callTool({ name: 'probe__echo', arguments: { text: 'over stdio' } }))).toBe(
      'over stdio',
    );
  });

  it('delivers progress under the agent token', async () => {
    const seen: number[] = [];
    const r = await client.callTool(
      { name: 'everything__trigger-long-running-operation', arguments: { duration: 1, steps: 4 } },
      undefined,
      { onprogress: (p) => seen.push(p.progress), timeout: 30_000 },
    );
    expect(text(r)).toContain('Long running operation completed');
    expect(seen.length).toBeGreaterThanOrEqual(3); // the SDK client may drop the last one (probe §6.1)
    expect(seen.slice(0, 3)).toEqual([1, 2, 3]);
  });

  it('forwards cancellation to the owning upstream', async () => {
    const ac = new AbortController();
    const call = client.callTool(
      { name: 'probe__wait', arguments: { ms: 30_000, tag: 'stdio-cancel' } },
      undefined,
      { signal: ac.signal },
    );
    setTimeout(() => ac.abort(), 300);
    await expect(call).rejects.toBeDefined();
    await waitFor(
      () => {
        try {
          return readFileSync(probeLog, 'utf8').includes('cancelled stdio-cancel');
        } catch {
          return false;
        }
      },
      { timeoutMs: 10_000, message: 'the upstream to see the cancellation' },
    );
  });

  it('survives SIGKILL of one upstream: the other answers, then it comes back', async () => {
    const oldPid = Number(text(await client.callTool({ name: 'probe__pid', arguments: {} })));
    expect(isPidRunning(oldPid)).toBe(true);
    process.kill(oldPid, 'SIGKILL');
    const failure = await waitFor(
      async () => {
        try {
          await client.callTool({ name: 'probe__pid', arguments: {} });
          return undefined;
        } catch (err) {
          return err as { code?: number; data?: { upstream?: string } };
        }
      },
      { timeoutMs: 10_000, intervalMs: 5, message: 'a fail-fast error from the killed upstream' },
    );
    expect(failure.code).toBe(-32000);
    expect(failure.data?.upstream).toBe('probe');
    expect(text(await client.callTool({ name: 'everything__echo', arguments: { message: 'still' } }))).toBe(
      'Echo: still',
    );
    const newPid = await waitFor(
      async () => {
        try {
          return Number(text(await client.callTool({ name: 'probe__pid', arguments: {} })));
        } catch {
          return undefined;
        }
      },
      { timeoutMs: 60_000, intervalMs: 100, message: 'the killed upstream to come back' },
    );
    expect(newPid).not.toBe(oldPid);
  }, 90_000);

  it('writes nothing but JSON-RPC to stdout under --log-level trace (logs, table and ready line on stderr)', () => {
    expect(stderr).toContain('mcppipe: serving MCP on stdin/stdout');
    expect(stderr).toMatch(/UPSTREAM\s+TRANSPORT/);
    expect(stderr).toContain('mcppipe-trace');
    expect(stdout.length).toBeGreaterThan(0);
    const lines = stdout.split('\n').filter((l) => l !== '');
    for (const line of lines) expect((JSON.parse(line) as { jsonrpc?: string }).jsonrpc).toBe('2.0');
    // the v1 SDK client's own race (typescript-sdk #2580, research/SDK-V1-PROBE.md 7): a final progress
    // notification read in the same chunk as its result is reported as an unknown token; anything else fails
    const sdkRace = /^Received a progress notification for an unknown token/;
    expect(clientErrors.filter((e) => !sdkRace.test(e.message))).toEqual([]);
  });

  it('stops when stdin closes: exit 0, every child gone', async () => {
    const pid = transport.pid!;
    const tree = processTreePids(pid);
    expect(tree.length).toBeGreaterThanOrEqual(3); // mcppipe, everything, probe
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((r) =>
      child.once('exit', (code, signal) => r([code, signal])),
    );
    await client.close(); // ends stdin; SIGTERM only after 2 s without an exit
    expect(await exited).toEqual([0, null]);
    expect(stderr).toContain('stdin closed: the client has gone');
    expect(stderr).not.toContain('SIGTERM');
    await waitFor(() => tree.every((p) => !isPidRunning(p)), {
      timeoutMs: 15_000,
      message: 'every process of the tree to exit',
    });
  }, 30_000);
});

describe('mcppipe up --transport stdio, raw lines', () => {
  it('answers an initialize written at once before anything else: no list_changed overtakes it', async () => {
    const proc = spawn(
      process.execPath,
      [
        cliPath,
        'up',
        '--transport',
        'stdio',
        '--log-level',
        'silent',
        ...(['everything', 'memory'] as const).flatMap((n) => [
          '--stdio',
          `${n}=${node(referenceServerPath(n))}`,
        ]),
        '--stdio',
        `fs=${node(referenceServerPath('filesystem'))} ${JSON.stringify(tmpdir())}`,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    const lines: Record<string, unknown>[] = [];
    createInterface({ input: proc.stdout! }).on('line', (l) => lines.push(JSON.parse(l)));
    const exited = new Promise((r) => proc.once('exit', r));
    const send = (m: object) => proc.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
    send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    try {
      await waitFor(() => lines.some((l) => l['id'] === 1), {
        timeoutMs: 30_000,
        message: 'initialize result',
      });
      expect(lines[0]).toMatchObject({ id: 1, result: { serverInfo: { name: 'mcppipe' } } });
      send({ method: 'notifications/initialized' });
      send({ id: 2, method: 'tools/list' });
      await waitFor(() => lines.some((l) => l['id'] === 2), { timeoutMs: 30_000, message: 'tools/list' });
    } finally {
      proc.stdin!.end();
      await exited;
    }
  }, 60_000);
});

describe('mcppipe up --transport stdio flags', () => {
  it('refuses --hub with stdio before starting anything (exit 2, says what to change)', async () => {
    const r = await runCli(['up', '--transport', 'stdio', '--hub', '--stdio', 'x=true']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--hub applies only to --transport http');
  });

  it('reads MCPPIPE_TRANSPORT', async () => {
    const r = await runCli(['up', '--stateless', '--stdio', 'x=true'], {
      env: { MCPPIPE_TRANSPORT: 'stdio' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--stateless applies only to --transport http');
  });

  it('refuses --host, --port and --allowed-origins when given (flag or variable), as it refuses --hub', async () => {
    const [flags, env] = await Promise.all([
      runCli([
        'up',
        '--transport',
        'stdio',
        '--stdio',
        'x=true',
        '--port',
        '19100',
        '--allowed-origins',
        '*',
      ]),
      runCli(['up', '--transport', 'stdio', '--stdio', 'x=true'], { env: { MCPPIPE_HOST: '127.0.0.1' } }),
    ]);
    expect(flags.code).toBe(2);
    expect(flags.stdout).toBe('');
    expect(flags.stderr).toContain(
      'mcppipe: --port and --allowed-origins apply only to --transport http (stdio serves one client on stdin/stdout); drop them or use --transport http (or MCPPIPE_TRANSPORT=http)',
    );
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('mcppipe: MCPPIPE_HOST applies only to --transport http');
  });
});

describe('mcppipe config snippet', () => {
  it('prints the Claude Desktop entry for the current sources: this node and this CLI by absolute path (from a checkout)', async () => {
    const r = await runCli(['config', 'snippet', '--client', 'claude-desktop', '--stdio', 'fs=npx -y x']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { mcpServers: { mcppipe: { command: string; args: string[] } } };
    expect(doc.mcpServers.mcppipe).toEqual({
      command: process.execPath,
      args: [cliPath, 'up', '--transport', 'stdio', '--stdio', 'fs=npx -y x'],
    });
  });

  it('refuses sources that `up` refuses, with the same message (exit 2): ambiguous, duplicate or invalid names', async () => {
    for (const sources of [
      ['--stdio', 'node a.js', '--upstream', 'http://127.0.0.1:1/mcp'],
      ['--stdio', 'b=node a.js', '--stdio', 'b=node b.js'],
      ['--stdio', 'Bad=node a.js', '--stdio', 'Bad=node b.js'],
    ]) {
      const [snippet, up] = await Promise.all([
        runCli(['config', 'snippet', '--client', 'cursor', ...sources]),
        runCli(['up', '--transport', 'stdio', '--log-format', 'json', ...sources]),
      ]);
      expect(up.code).toBe(2);
      expect(up.stderr).toMatch(/^mcppipe: (ambiguous sources|upstream name|--stdio Bad=)/);
      expect({ code: snippet.code, stdout: snippet.stdout, stderr: snippet.stderr }).toEqual({
        code: 2,
        stdout: '',
        stderr: up.stderr,
      });
    }
  });

  it('copies --deny-tool, --allow-tool and --log-level into the entry (a stdio client needs its tool policy there)', async () => {
    const r = await runCli([
      'config',
      'snippet',
      '--client',
      'claude-desktop',
      '--stdio',
      'files=npx -y x',
      '--deny-tool',
      'files__write_*',
      '--allow-tool',
      'files__*',
      '--log-level',
      'debug',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { mcpServers: { mcppipe: { args: string[] } } };
    expect(doc.mcpServers.mcppipe.args.slice(1)).toEqual([
      'up',
      '--transport',
      'stdio',
      '--stdio',
      'files=npx -y x',
      '--deny-tool',
      'files__write_*',
      '--allow-tool',
      'files__*',
      '--log-level',
      'debug',
    ]);
  });

  it("refuses up's flags that a stdio entry does not use, saying why (exit 2)", async () => {
    const r = await runCli([
      'config',
      'snippet',
      '--client',
      'cursor',
      '--stdio',
      'x=npx -y x',
      '--port',
      '46000',
    ]);
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'mcppipe: --port is not used by config snippet (the snippet runs mcppipe with --transport stdio)\n',
    });
  });

  it('warns about a relative path in a --stdio command, and copies the command unchanged', async () => {
    const stdio = 'fs=npx -y @modelcontextprotocol/server-filesystem .';
    const r = await runCli(['config', 'snippet', '--client', 'cursor', '--stdio', stdio]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `mcppipe: warning: --stdio ${JSON.stringify(stdio)} has a relative path (.): the client starts the entry in another directory; give an absolute path\n`,
    );
    expect(
      (JSON.parse(r.stdout) as { mcpServers: { mcppipe: { args: string[] } } }).mcpServers.mcppipe.args,
    ).toContain(stdio);
  });

  it('refuses to print an entry without sources (exit 2)', async () => {
    const r = await runCli(['config', 'snippet', '--client', 'cursor']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('needs the sources to serve');
  });
});
