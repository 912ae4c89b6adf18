import { spawn as nodeSpawn } from 'node:child_process';
import type { SpawnOptions } from 'node:child_process';
import type { EarlyStart } from './early.js';
import { trace } from './trace.js';

/** The supervisor's `spawn`, counting stdio children, and a promise settled once all of them are spawned. */
export interface CountedSpawns {
  /** Spawns (or adopts an early child) and counts it. */
  readonly spawn: typeof nodeSpawn;
  /** Resolves once `expected` children were spawned (at once when there are none). */
  readonly allSpawned: Promise<void>;
}

/**
 * Cold start: the serving side loads only once every stdio upstream has been spawned, so the children start their
 * own (long) module loading first instead of waiting behind ours. The returned `spawn` hands over an early child
 * spawned with exactly the same parameters, if there is one.
 *
 * @param expected - how many stdio upstreams the layout has
 * @param early - the early start, if `mcppipe up` made one
 * @returns the counting `spawn` and the `allSpawned` promise
 */
export function countSpawns(expected: number, early: EarlyStart | undefined): CountedSpawns {
  let toSpawn = expected;
  let resolve!: () => void;
  const allSpawned = new Promise<void>((r) => (resolve = r));
  if (toSpawn === 0) resolve();
  const spawn = ((command: string, argv: readonly string[], options: SpawnOptions) => {
    const adopted = early?.adopt(command, argv, options);
    const child = adopted ?? nodeSpawn(command, argv, options);
    trace(adopted ? 'upstream handed over' : 'upstream spawned', { pid: child.pid });
    if (--toSpawn === 0) resolve();
    return child;
  }) as typeof nodeSpawn;
  return { spawn, allSpawned };
}
