/**
 * Test-only: the real `Supervisor` (`@mcppipe/supervisor`) over real stdio upstreams, started and checked for the
 * hub's tests. Not exported by the package.
 */
import { Supervisor } from '@mcppipe/supervisor';
import type { StdioUpstreamSpec } from '@mcppipe/supervisor';
import { waitFor } from '@mcppipe/test-utils';
import { gatewayPolicy } from '@mcppipe/upstream-state';

/** One stdio upstream: a node script run with `process.execPath`. */
export interface TestUpstream {
  name: string;
  /** Script and arguments. */
  args: string[];
  env?: Record<string, string>;
  /** `false` hides it from the hub (the gateway's `"hub": false`). */
  hub?: boolean;
}

/** Options of {@link startSupervisor}. */
export interface StartSupervisorOptions {
  /** Delay before a restart, in ms (no jitter). Default 200. */
  restartDelayMs?: number;
}

/**
 * Starts a real supervisor over `upstreams` and waits until every one is `available`. Liveness probes are off
 * (tests are short) and restarts use a fixed delay, so "while it is down" windows are predictable.
 *
 * @returns the supervisor; `await using` or `stop()` it
 */
export async function startSupervisor(
  upstreams: TestUpstream[],
  options: StartSupervisorOptions = {},
): Promise<Supervisor> {
  const specs: StdioUpstreamSpec[] = upstreams.map((u) => ({
    name: u.name,
    transport: 'stdio',
    command: process.execPath,
    args: u.args,
    startTimeoutMs: 30_000,
    ...(u.env ? { env: u.env } : {}),
    ...(u.hub === undefined ? {} : { hub: u.hub }),
  }));
  const supervisor = new Supervisor({
    upstreams: specs,
    policy: gatewayPolicy({
      initialBackoffMs: options.restartDelayMs ?? 200,
      jitterRatio: 0,
      probeIntervalMs: 0,
    }),
    killGraceMs: 500,
  });
  try {
    await supervisor.start();
    await waitFor(() => supervisor.list().every((s) => s.phase === 'available'), {
      timeoutMs: 30_000,
      message: 'every upstream to be available',
    });
  } catch (err) {
    await supervisor.stop();
    throw err;
  }
  return supervisor;
}

/**
 * Kills an upstream's process with SIGKILL (a crash); the supervisor restarts it.
 *
 * @param supervisor - the supervisor running it
 * @param name - the upstream
 */
export function killUpstream(supervisor: Supervisor, name: string): void {
  const pid = supervisor.get(name)?.pid;
  if (pid === undefined) throw new Error(`${name} has no process`);
  process.kill(pid, 'SIGKILL');
}
