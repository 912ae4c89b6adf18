/**
 * Process-level helpers for the gateway e2e tests: start `node apps/gateway/dist/cli.js` as a child process,
 * obtain access tokens through the real OAuth flow (DCR, PKCE, owner login, approval, token), read the
 * child's memory, and speak raw HTTP where a client library would hide what is being tested.
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fixturesDir, freePort, stopChild } from '@mcppipe/test-utils';
import { obtainToken as obtainOwnerToken } from '@mcppipe/test-utils/oauth-flow';

/** Absolute path of the built gateway CLI. */
export const gatewayCliPath: string = join(
  fixturesDir,
  '..',
  '..',
  '..',
  'apps',
  'gateway',
  'dist',
  'cli.js',
);

/** The owner password every e2e gateway runs with. */
export const OWNER_PASSWORD = 'e2e owner passphrase';

/** A running gateway child process. */
export interface RunningGateway {
  url: string;
  port: number;
  proc: ChildProcess;
  stderr(): string;
  /** Resolves once stderr matches. */
  waitForLog(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Starts the gateway on a free loopback port with `--public-url http://127.0.0.1:PORT` and resolves once
 * it listens and every server had its first start attempt.
 *
 * @param args - extra flags (`--config` and `--data-dir` at least)
 * @param env - extra environment (limits)
 * @param options - `port`: listen on this one (a restart on the same address); default a free one. `publicUrl`:
 *   another node's URL as this one's public URL (many nodes behind one address); default its own
 */
export async function startGateway(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  options: { port?: number; publicUrl?: string } = {},
): Promise<RunningGateway> {
  const port = options.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const proc = spawn(
    process.execPath,
    [gatewayCliPath, ...args, '--public-url', options.publicUrl ?? url, '--port', String(port)],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, MCPPIPE_ADMIN_PASSWORD: OWNER_PASSWORD, ...env },
    },
  );
  let err = '';
  proc.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const waitForLog = (pattern: RegExp, timeoutMs = 60_000) =>
    new Promise<void>((resolve, reject) => {
      if (pattern.test(err)) return resolve();
      const timer = setTimeout(() => {
        proc.stderr!.off('data', check);
        reject(new Error(`gateway did not log ${String(pattern)} in time:\n${err}`));
      }, timeoutMs);
      const check = () => {
        if (!pattern.test(err)) return;
        clearTimeout(timer);
        proc.stderr!.off('data', check);
        resolve();
      };
      proc.stderr!.on('data', check);
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`gateway exited with ${String(code)}:\n${err}`));
      });
    });
  const stop = (graceMs = 15_000) => stopChild(proc, exited, graceMs);
  const gw: RunningGateway = {
    url,
    port,
    proc,
    stderr: () => err,
    waitForLog,
    stop,
    [Symbol.asyncDispose]: async () => void (await stop()),
  };
  try {
    await waitForLog(/"msg":"servers started"/, 90_000);
  } catch (e) {
    await stop();
    throw e;
  }
  return gw;
}

/**
 * Obtains an access token for one endpoint the way an agent does (registration, PKCE, the owner's login and
 * approval, the code exchange), as the owner of a gateway started by {@link startGateway}.
 *
 * @param base - the gateway origin
 * @param path - the endpoint path the token is for (`/hub`, `/servers/x/mcp`)
 * @returns the access token and the client id
 */
export function obtainToken(base: string, path: string): Promise<{ token: string; clientId: string }> {
  return obtainOwnerToken(base, path, { password: OWNER_PASSWORD, clientName: 'e2e agent' });
}

/** Resident set size of a process in KiB (Linux `/proc`). */
export function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m?.[1]) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]);
}

/** JSON-RPC POST headers for a 2025-era stateless request. */
export function rpcHeaders(token?: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
    ...(token !== undefined && { authorization: `Bearer ${token}` }),
  };
}

/**
 * Sends raw request headers announcing a `declaredBytes` body, then only `sentBytes` of it, and returns
 * the status line and headers the server answers with — proof that it answered without reading the body.
 */
export async function rawPartialPost(
  port: number,
  path: string,
  options: { declaredBytes: number; sentBytes: number; headers?: Record<string, string> },
): Promise<{ status: number; head: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer; received so far: ${received}`));
    }, 30_000);
    socket.on('error', (e) => {
      if (!received) reject(e);
    });
    socket.on('data', (c: Buffer) => {
      received += c.toString('latin1');
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      clearTimeout(timer);
      socket.destroy();
      resolve({ status: Number(received.slice(9, 12)), head: received.slice(0, end).toLowerCase() });
    });
    const extra = Object.entries(options.headers ?? {})
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    socket.write(
      `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: ${options.declaredBytes}\r\n${extra}\r\n`,
    );
    socket.write(Buffer.alloc(options.sentBytes, 0x20));
  });
}

/**
 * Runs one `mcppipe-gateway` subcommand (`accounts add …`, `keys create …`) to completion.
 *
 * @param args - the subcommand and its flags
 * @param stdin - written to its stdin, then closed (a password for `--password-stdin`)
 * @param env - added to this process's environment (e.g. `MCPPIPE_NODE_SECRET` for a server run that must fail)
 */
export function gatewayCommand(
  args: string[],
  stdin?: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [gatewayCliPath, ...args],
      { timeout: 60_000, env: { ...process.env, ...env } },
      (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin!.end(stdin ?? '');
  });
}

/** A raw HTTP/1.1 request to the gateway, with any `Host` (fetch cannot set it). Default method POST. */
export function rawRequest(
  port: number,
  options: { path: string; host: string; method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: options.path,
        method: options.method ?? 'POST',
        setHost: false,
        headers: { host: options.host, ...options.headers },
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}
