import type { ChildProcess, SpawnOptions } from 'node:child_process';
import type { Layout } from '@mcppipe/config';
import { earlySources } from './earlySources.js';
import type { SourceArgs } from './earlySources.js';
import { killGroup, spawnEarly, spawnKey } from './earlySpawn.js';
import { trace } from './trace.js';

/**
 * Cold start: `mcppipe up` with explicit sources spawns its stdio upstreams before it loads yargs, the SDK, pino and
 * the serving side, so the children's own start (hundreds of milliseconds of module loading) overlaps ours.
 *
 * Correctness never rests on this module's reading of the command line: an early child is handed to the supervisor
 * only when the supervisor, after the real parse and layout resolution, asks to spawn exactly the same command,
 * arguments, working directory and environment (the supervisor's id is chosen here for that). Every child not
 * handed over is killed. The spawns themselves (a dry run of the supervisor's transport, then the real spawn) are
 * earlySpawn.ts.
 */

/** Children spawned ahead of the supervisor, waiting to be handed over. */
export interface EarlyStart {
  /** The id the supervisor must use (its children's environment carries it). */
  readonly supervisorId: string;
  /** Whether orphans of a crashed run were already reaped (the supervisor need not scan again). */
  readonly reaped: boolean;
  /** The early child spawned with exactly these parameters, if any (each is handed over once). */
  adopt(command: string, args: readonly string[], options: SpawnOptions): ChildProcess | undefined;
  /** The layout read early, when `flags` are the sources it was read from (no second read of the file). */
  layoutFor(flags: SourceArgs): Layout | undefined;
  /** Kills every child not handed over. Idempotent. */
  discard(): void;
  /**
   * Until this is called, SIGINT/SIGTERM kill the early children and exit (a signal's default action would leave
   * them running in their own process groups); the caller installs its own handlers right after.
   */
  handOverSignals(): void;
}

let current: EarlyStart | undefined;

/** Takes the early start, if `mcppipe up` made one (once). */
export function takeEarlyStart(): EarlyStart | undefined {
  const e = current;
  current = undefined;
  return e;
}

/**
 * Reads the layout and spawns its stdio upstreams, exactly as the supervisor would. Orphans of a crashed run are
 * reaped right after the spawn, not before (a scan of `/proc`, ~3 ms, off the path to the first spawn): the reaper
 * never touches the children of a live supervisor, so ours are safe; should it find any, the early children are
 * discarded and the supervisor spawns its own once the orphans are gone, as without an early start. Never throws:
 * any problem means no early start, and the normal path reports it.
 *
 * @param argv - the arguments after `node cli.js`
 */
export async function startEarly(argv: readonly string[]): Promise<void> {
  try {
    const flags = earlySources(argv, process.env);
    if (!flags) return;
    const load = await import('./earlyLoad.js');
    const sources = load.resolveCliSources(flags);
    if (sources.source === 'none') return;
    const layout = await load.readLayout(sources);
    const specs = layout.upstreams.filter((u) => u.transport === 'stdio');
    if (specs.length === 0) return;
    trace('early layout read');
    const supervisorId = load.earlySupervisorId();
    const children = await spawnEarly(load.createStdioTransport, specs, supervisorId);
    let done = false;
    const discard = () => {
      if (done) return;
      done = true;
      for (const child of children.values()) killGroup(child);
      children.clear();
    };
    process.once('exit', discard);
    const onSignal = (signal: NodeJS.Signals) => {
      discard();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    };
    const handOverSignals = () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    const reaped = await load.reapOrphans(1_000).catch(() => undefined);
    if (reaped === undefined || reaped.length > 0) {
      discard(); // orphans were running (or the scan failed): the supervisor spawns its own, after them
      trace('early upstreams discarded', { orphans: reaped ?? 'scan failed' });
      handOverSignals();
      return;
    }
    current = {
      handOverSignals,
      supervisorId,
      reaped: true,
      layoutFor: (f) =>
        JSON.stringify([f.upstream, f.stdio, f.upstreamsFile]) ===
        JSON.stringify([flags.upstream, flags.stdio, flags.upstreamsFile])
          ? layout
          : undefined,
      adopt(command, args, options) {
        const key = spawnKey(command, args, options);
        const child = children.get(key);
        if (!child) return undefined;
        children.delete(key);
        if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) {
          killGroup(child);
          return undefined;
        }
        // the new owner waits for 'spawn', which this child emitted long ago
        process.nextTick(() => child.emit('spawn'));
        return child;
      },
      discard,
    };
  } catch {
    // no early start
  }
}
