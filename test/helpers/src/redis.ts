import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { freePort } from './net.js';
import { waitFor } from './wait.js';

/** A `redis-server` child on loopback; stop it with `stop()` (by PID) or `await using`. */
export interface RunningRedis extends AsyncDisposable {
  port: number;
  pid: number;
  /** `redis://127.0.0.1:<port>` */
  url: string;
  /** Kills the process (SIGKILL, by PID) and waits for it to exit. Idempotent. */
  stop(): Promise<void>;
}

/** Options of {@link startRedis}. */
export interface StartRedisOptions {
  /** The port (to restart a stopped server on the same address). Default: a free random port. */
  port?: number;
  /** How long to wait for it to accept connections, ms. Default 15 000. */
  timeoutMs?: number;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ port, host: '127.0.0.1' });
    s.once('connect', () => {
      s.write('PING\r\n');
    });
    s.once('data', (d: Buffer) => {
      s.destroy();
      resolve(d.toString('utf8').startsWith('+PONG'));
    });
    s.once('error', () => resolve(false));
  });
}

/**
 * Starts Debian's `redis-server` on a random loopback port, without persistence
 * (`--bind 127.0.0.1 --save '' --appendonly no`), and waits until it answers `PING`.
 *
 * @param options - `port`, `timeoutMs`
 * @returns the running server
 * @throws Error when `redis-server` is not installed (`.ci/run` installs it) or does not come up in time
 */
export async function startRedis(options: StartRedisOptions = {}): Promise<RunningRedis> {
  const port = options.port ?? (await freePort());
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--protected-mode',
      'yes',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  child.stderr.resume();
  let failed: Error | undefined;
  child.once('error', (err) => (failed = err));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    process.kill(child.pid, 'SIGKILL');
    await exited;
  };
  try {
    await waitFor(
      async () => {
        if (failed)
          throw new Error(
            `redis-server could not start: ${failed.message} (install it: apt-get install redis-server)`,
          );
        if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
        return accepts(port);
      },
      { timeoutMs: options.timeoutMs ?? 15_000, intervalMs: 25, message: `redis-server on port ${port}` },
    );
  } catch (err) {
    await stop();
    throw failed ?? err;
  }
  return { port, pid: child.pid ?? 0, url: `redis://127.0.0.1:${port}`, stop, [Symbol.asyncDispose]: stop };
}
