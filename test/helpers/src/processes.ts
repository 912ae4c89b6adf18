import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { fixturePath } from './servers.js';

/** A fixture HTTP server running as a child process; stop it with `close()` or `await using`. */
export interface RunningFixtureServer extends AsyncDisposable {
  port: number;
  pid: number;
  /** `http://127.0.0.1:<port><path>` */
  url(path?: string): string;
  close(): Promise<void>;
}

/**
 * Starts a fixture server that prints `{"port":N}` on its first stdout line (e.g. `sup-http-forgetful.mjs`) on a
 * random loopback port.
 *
 * @param name - file in `test/helpers/fixtures`
 * @param args - extra arguments
 * @param timeoutMs - how long to wait for the port line. Default 15 000.
 */
export async function startFixtureServer(
  name: string,
  args: string[] = [],
  timeoutMs = 15_000,
): Promise<RunningFixtureServer> {
  const child = spawn(process.execPath, [fixturePath(name), '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr.resume();
  const port = await new Promise<number>((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(
      () => reject(new Error(`${name} printed no port within ${timeoutMs} ms`)),
      timeoutMs,
    );
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before printing its port`)));
    child.stdout.on('data', (chunk: Buffer) => {
      buf += chunk.toString('utf8');
      const nl = buf.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve((JSON.parse(buf.slice(0, nl)) as { port: number }).port);
      }
    });
  });
  child.stdout.resume();
  const close = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  };
  return {
    port,
    pid: child.pid ?? 0,
    url: (path = '/mcp') => `http://127.0.0.1:${port}${path}`,
    close,
    [Symbol.asyncDispose]: close,
  };
}

function procStat(pid: number): { ppid: number; pgid: number; state: string } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: f[0] ?? '?', ppid: Number(f[1]), pgid: Number(f[2]) };
  } catch {
    return undefined;
  }
}

/**
 * Every live (non-zombie) process in the tree under `pid` (itself included) plus every member of its process group,
 * read from `/proc` (Linux).
 *
 * @param pid - the root of the tree
 */
export function processTreePids(pid: number): number[] {
  const all = new Map<number, { ppid: number; pgid: number; state: string }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = procStat(Number(name));
    if (s && s.state !== 'Z') all.set(Number(name), s);
  }
  const out = new Set<number>();
  if (all.has(pid)) out.add(pid);
  for (let grew = true; grew;) {
    grew = false;
    for (const [p, s] of all) {
      if (!out.has(p) && (out.has(s.ppid) || s.pgid === pid)) {
        out.add(p);
        grew = true;
      }
    }
  }
  return [...out];
}

/**
 * Whether a process exists and is not a zombie.
 *
 * @param pid - a process id
 */
export function isPidRunning(pid: number): boolean {
  const s = procStat(pid);
  return s !== undefined && s.state !== 'Z';
}

/**
 * Stops a child process: SIGTERM, then SIGKILL if it has not exited after `graceMs`.
 *
 * @param proc - the child
 * @param exited - resolves with its exit code when it exits (registered when it was spawned)
 * @param graceMs - how long SIGTERM gets, in ms
 * @returns its exit code (null when a signal ended it)
 */
export async function stopChild(
  proc: ChildProcess,
  exited: Promise<number | null>,
  graceMs: number,
): Promise<number | null> {
  if (proc.exitCode !== null || proc.signalCode !== null) return proc.exitCode;
  proc.kill('SIGTERM');
  const t = setTimeout(() => proc.kill('SIGKILL'), graceMs);
  const code = await exited;
  clearTimeout(t);
  return code;
}
