/**
 * `@mcppipe/supervisor/stdio`: the Node-only stdio side of the supervisor — spawning upstream processes in their own
 * process group, killing whole trees, draining stderr, and reaping orphans of a crashed run. Every export here is
 * public API. The root entry loads this module lazily, only when a stdio upstream is started, so the root stays free
 * of `child_process`.
 *
 * @module
 */
import type { VariableSource } from './expand.js';
import { MARK_CHILD, MARK_ID, MARK_PID, MARK_START, selfStartTime } from './stdio/processTree.js';
import type { StdioProcessOptions } from './stdio/transport.js';
import { StdioProcessTransport } from './stdio/transport.js';
import { resolveCommand } from './stdio/command.js';
import type { StdioUpstreamSpec } from './types.js';

export { StdioProcessTransport } from './stdio/transport.js';
export type { ExitInfo, StdioProcessOptions } from './stdio/transport.js';
export { resolveCommand, splitCommand } from './stdio/command.js';
export type { ResolvedCommand } from './stdio/command.js';
export {
  MARK_CHILD,
  MARK_ID,
  MARK_PID,
  MARK_START,
  findMarked,
  groupAlive,
  groupMembers,
  listProcesses,
  reapOrphans,
  terminateGroup,
} from './stdio/processTree.js';
export type { ProcessInfo } from './stdio/processTree.js';
export { TextTail } from './stdio/textTail.js';

let startTime: string | undefined;

/** Options of {@link createStdioTransport}. */
export interface CreateStdioTransportOptions extends Pick<
  StdioProcessOptions,
  'spawn' | 'killGraceMs' | 'stderrTailBytes' | 'onSkippedLine'
> {
  /** Variables for `${VAR}` expansion. */
  vars: VariableSource;
  /** The environment the child inherits (the upstream's `env` goes on top). */
  baseEnv: VariableSource;
  /** The supervisor instance id, written into the child's environment (with this process's pid and start time). */
  supervisorId: string;
  /** A per-spawn token, e.g. `<upstream>/<n>`. */
  spawnToken: string;
}

/**
 * Builds the transport for a stdio upstream: splits and expands the command, merges the environment (inherited,
 * then the upstream's `env`, then the supervisor marks used to find orphans later).
 *
 * @param spec - the stdio upstream
 * @param options - environment, marks and process options
 * @returns a transport that is not started yet
 * @throws McpPipeError `MCPP_CFG_UNSET_VARIABLE` or `MCPP_CFG_INVALID` for a bad command or an unset variable
 */
export function createStdioTransport(
  spec: StdioUpstreamSpec,
  options: CreateStdioTransportOptions,
): StdioProcessTransport {
  const resolved = resolveCommand(spec, options.vars);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(options.baseEnv)) if (v !== undefined) env[k] = v;
  Object.assign(env, resolved.env);
  startTime ??= selfStartTime();
  env[MARK_PID] = String(process.pid);
  env[MARK_START] = startTime;
  env[MARK_ID] = options.supervisorId;
  env[MARK_CHILD] = `${options.supervisorId}/${options.spawnToken}`;
  return new StdioProcessTransport({
    command: resolved.command,
    args: resolved.args,
    env,
    cwd: resolved.cwd,
    spawn: options.spawn,
    killGraceMs: options.killGraceMs,
    stderrTailBytes: options.stderrTailBytes,
    onSkippedLine: options.onSkippedLine,
  });
}
