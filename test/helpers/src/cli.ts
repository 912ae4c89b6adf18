import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { stopChild } from './processes.js';
import { fixturesDir } from './servers.js';

/** Absolute path of the built CLI (`apps/cli/dist/cli.js`). */
export const cliPath: string = join(fixturesDir, '..', '..', '..', 'apps', 'cli', 'dist', 'cli.js');

/** A running `mcppipe up` child process. */
export interface RunningCli {
  /** The `/mcp` URL it printed. */
  url: URL;
  proc: ChildProcess;
  /** Everything it wrote to stderr so far. */
  stderr(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Starts `node apps/cli/dist/cli.js up …args` and resolves once it prints `serving <url>` on stderr.
 * `--port 0` (unless given, also as `MCPPIPE_PORT` in `options.env`) and `--log-format json` (unless given) are
 * added.
 *
 * @throws Error with the captured stderr when the process exits first or `timeoutMs` passes
 */
export async function startCli(
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number; cwd?: string } = {},
): Promise<RunningCli> {
  const full = ['up', ...args];
  if (!args.includes('--port') && options.env?.['MCPPIPE_PORT'] === undefined) full.push('--port', '0');
  if (!args.includes('--log-format')) full.push('--log-format', 'json');
  const proc = spawn(process.execPath, [cliPath, ...full], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
    cwd: options.cwd,
  });
  let err = '';
  proc.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  proc.stdout!.resume();
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const url = await new Promise<URL>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`mcppipe up did not start in time:\n${err}`)),
      options.timeoutMs ?? 60_000,
    );
    const check = () => {
      const m = /serving (http:\/\/\S+\/mcp)/.exec(err);
      if (m?.[1]) {
        clearTimeout(timer);
        proc.stderr!.off('data', check);
        resolve(new URL(m[1]));
      }
    };
    proc.stderr!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`mcppipe up exited with ${String(code)}:\n${err}`));
    });
  });
  const stop = (graceMs = 10_000) => stopChild(proc, exited, graceMs);
  return { url, proc, stderr: () => err, stop, [Symbol.asyncDispose]: async () => void (await stop()) };
}

/**
 * Runs the CLI to completion (for flag errors) and returns its exit code and output.
 */
export async function runCli(
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = spawn(process.execPath, [cliPath, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const timer = setTimeout(() => proc.kill('SIGKILL'), options.timeoutMs ?? 30_000);
  const code = await new Promise<number | null>((r) => proc.once('exit', (c) => r(c)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}
