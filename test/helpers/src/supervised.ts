/**
 * The real `Supervisor` (`@mcppipe/supervisor`) over real stdio upstreams, started and checked for a test. The
 * caller passes the `Supervisor` class: test-utils does not import the supervisor (its tests import test-utils).
 *
 * @module
 */
import { gatewayPolicy } from '@mcppipe/upstream-state';
import { waitFor } from './wait.js';

/** A stdio upstream spec as `@mcppipe/config`'s `StdioUpstreamConfig` has it (the fields this helper sets). */
export interface TestStdioSpec {
  name: string;
  transport: 'stdio';
  command: string;
  args: string[];
  startTimeoutMs: number;
  env?: Record<string, string>;
  hub?: boolean;
}

/** What a supervisor constructor is given here. */
export interface TestSupervisorOptions {
  upstreams: TestStdioSpec[];
  policy: ReturnType<typeof gatewayPolicy>;
  killGraceMs: number;
}

/** What this helper needs of a supervisor (the `Supervisor` class has it). */
export interface SupervisorLike {
  start(): Promise<void>;
  stop(): Promise<void>;
  list(): { phase: string }[];
  get(name: string): { pid: number | undefined } | undefined;
}

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
 * @param Supervisor - the `Supervisor` class of `@mcppipe/supervisor`
 * @returns the supervisor; `await using` or `stop()` it
 * @throws Error when an upstream is not `available` within 30 s (the supervisor is stopped first)
 */
export async function startSupervisor<T extends SupervisorLike>(
  Supervisor: new (options: TestSupervisorOptions) => T,
  upstreams: TestUpstream[],
  options: StartSupervisorOptions = {},
): Promise<T> {
  const specs: TestStdioSpec[] = upstreams.map((u) => ({
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
export function killUpstream(supervisor: SupervisorLike, name: string): void {
  const pid = supervisor.get(name)?.pid;
  if (pid === undefined) throw new Error(`${name} has no process`);
  process.kill(pid, 'SIGKILL');
}
