/**
 * The early start's spawns (cold start, see early.ts): each stdio upstream spawned with exactly the parameters the
 * supervisor's own transport will ask for, found by a dry run of that transport, and keyed by those parameters so
 * the supervisor's later spawn finds its child.
 *
 * @module
 */
import { spawn as nodeSpawn } from 'node:child_process';
import type { ChildProcess, SpawnOptions } from 'node:child_process';
import type { createStdioTransport } from './earlyLoad.js';
import { trace } from './trace.js';

/**
 * The key of one spawn: command, arguments and options (working directory and environment included), as JSON.
 *
 * @param command - the command
 * @param args - its arguments
 * @param options - the spawn options
 * @returns the key; two spawns with the same key start the same process
 */
export function spawnKey(command: string, args: readonly string[], options: SpawnOptions): string {
  return JSON.stringify([command, args, options]);
}

/**
 * Kills a child and its process group (it was spawned detached); only the child when the group is gone.
 *
 * @param child - the child
 */
export function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL'); // its own process group (detached)
  } catch {
    child.kill('SIGKILL');
  }
}

/**
 * Spawns the stdio upstreams as the supervisor would: a dry run of its transport (`createStdioTransport` with a
 * `spawn` that records its parameters and throws) gives each upstream's exact spawn, which is then made. An upstream
 * whose dry run spawns nothing is skipped; a child's `error` is left to the supervisor's own spawn.
 *
 * @param transport - `createStdioTransport` of `@mcppipe/supervisor/stdio` (loaded lazily by the caller)
 * @param specs - the stdio upstreams
 * @param supervisorId - the id the supervisor will use (its children's environment carries it)
 * @returns the children, by {@link spawnKey}
 */
export async function spawnEarly(
  transport: typeof createStdioTransport,
  specs: readonly Parameters<typeof createStdioTransport>[0][],
  supervisorId: string,
): Promise<Map<string, ChildProcess>> {
  const children = new Map<string, ChildProcess>();
  for (const spec of specs) {
    let captured: [string, readonly string[], SpawnOptions] | undefined;
    const dryRun = transport(spec, {
      vars: process.env,
      supervisorId,
      spawnToken: `${spec.name}/1`,
      spawn: ((command: string, args: readonly string[], options: SpawnOptions) => {
        captured = [command, args, options];
        throw new Error('dry run');
      }) as unknown as typeof nodeSpawn,
    });
    await dryRun.start().catch(() => {});
    if (!captured) continue;
    const child = nodeSpawn(...captured);
    child.on('error', () => {}); // reported by the supervisor's own spawn if this one is not handed over
    children.set(spawnKey(...captured), child);
    trace('early upstream spawned', { upstream: spec.name, pid: child.pid });
  }
  return children;
}
