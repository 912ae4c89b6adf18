/**
 * `@mcppipe/supervisor/stdio`: the Node-only stdio side of the supervisor — spawning upstream processes in their own
 * process group, killing whole trees, draining stderr, and reaping orphans of a crashed run. Every export here is
 * public API. The root entry loads this module lazily, only when a stdio upstream is started, so the root stays free
 * of `child_process`.
 *
 * @module
 */
import type { VariableSource } from '@mcppipe/config';
import { MARK_CHILD, MARK_ID, MARK_PID, MARK_START, selfStartTime } from './stdio/processTree.js';
import type { StdioProcessOptions } from './stdio/transport.js';
import { StdioProcessTransport } from './stdio/transport.js';
import { resolveCommand } from './stdio/command.js';
import { inheritedEnvironment } from './stdio/environment.js';
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
export type { ExcerptOptions } from './stdio/textTail.js';
export { INHERITED_ENV_VARS, inheritedEnvironment } from './stdio/environment.js';

let startTime: string | undefined;

/** Options of {@link createStdioTransport}. */
export interface CreateStdioTransportOptions extends Pick<
  StdioProcessOptions,
  'spawn' | 'killGraceMs' | 'stderrTailBytes' | 'onSkippedLine'
> {
  /**
   * The parent environment: the source of `${VAR}` expansion (in `command`, `args`, `env` values, `cwd`) and of the
   * few variables a child inherits ({@link INHERITED_ENV_VARS}); nothing else of it reaches the child.
   */
  vars: VariableSource;
  /** The supervisor instance id, written into the child's environment (with this process's pid and start time). */
  supervisorId: string;
  /** A per-spawn token, e.g. `<upstream>/<n>`. */
  spawnToken: string;
}

/**
 * Builds the transport for a stdio upstream: splits and expands the command and builds the child's environment — the
 * allow-listed variables of `vars` ({@link INHERITED_ENV_VARS}: `HOME`, `PATH`, … as the SDK's `getDefaultEnvironment`),
 * then the upstream's configured `env`, then the `MCPPIPE_SUPERVISOR_*` marks used to find orphans later. Nothing
 * else of the parent environment is passed (no `MCPPIPE_*` secrets, `PUBLIC_URL`, API keys; SECURITY-REFERENCE §5
 * E8); an operator passes a variable through on purpose with `env = { NAME = "${NAME}" }`.
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
  const env = inheritedEnvironment(options.vars);
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
