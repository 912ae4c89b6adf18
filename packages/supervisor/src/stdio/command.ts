import { McpPipeError } from '@mcppipe/errors';
import { parse } from 'shell-quote';
import type { VariableSource } from '@mcppipe/config';
import { fieldExpander } from '@mcppipe/config';
import type { StdioUpstreamSpec } from '../types.js';

/** A stdio upstream ready to spawn: everything expanded, argv split. */
export interface ResolvedCommand {
  command: string;
  args: string[];
  /** Only the upstream's own `env` entries (expanded); the caller merges them over the inherited environment. */
  env: Record<string, string>;
  cwd: string | undefined;
}

const DOLLAR = '\uE000';

/**
 * Splits a command line into words like a POSIX shell would (quotes, backslashes), without running a shell and
 * without expanding anything. Shell operators (`|`, `&&`, `>`, `;`, …) are rejected: there is no shell.
 *
 * @param line - e.g. `npx -y @modelcontextprotocol/server-filesystem "My Documents"`
 * @returns the words
 * @throws McpPipeError `MCPP_CFG_INVALID` for an empty command or a shell operator
 * @example
 * ```ts
 * splitCommand('node "my server.js" --port ${PORT:-3000}'); // ['node', 'my server.js', '--port', '${PORT:-3000}']
 * ```
 */
export function splitCommand(line: string): string[] {
  // `$` is hidden from the parser so it neither expands nor mangles `${…}`; restored in each word afterwards.
  const entries = parse(line.replaceAll('$', DOLLAR));
  const words: string[] = [];
  for (const entry of entries) {
    if (typeof entry === 'string') {
      words.push(entry.replaceAll(DOLLAR, '$'));
    } else if ('op' in entry && entry.op === 'glob') {
      words.push(entry.pattern.replaceAll(DOLLAR, '$'));
    } else if ('comment' in entry) {
      break;
    } else {
      const op = 'op' in entry ? entry.op : JSON.stringify(entry);
      throw new McpPipeError(
        'MCPP_CFG_INVALID',
        `command: shell operator ${JSON.stringify(op)} is not supported (commands run without a shell); wrap it in a script`,
        { data: { errors: [`command: shell operator ${JSON.stringify(op)} is not supported`] } },
      );
    }
  }
  if (words.length === 0) {
    throw new McpPipeError('MCPP_CFG_INVALID', 'command: is empty', {
      data: { errors: ['command: is empty'] },
    });
  }
  return words;
}

/**
 * Resolves a stdio spec: splits `command` when `args` is absent, then expands `${VAR}` / `${VAR:-default}` in the
 * command, every argument, every `env` value and `cwd`.
 *
 * @param spec - the stdio upstream
 * @param vars - where variables come from
 * @returns the command ready to spawn
 * @throws McpPipeError `MCPP_CFG_UNSET_VARIABLE` naming the variable and field, or `MCPP_CFG_INVALID`
 */
export function resolveCommand(spec: StdioUpstreamSpec, vars: VariableSource): ResolvedCommand {
  const expand = fieldExpander(spec.name, vars);
  let words: string[];
  if (spec.args) {
    words = [expand(spec.command, 'command'), ...spec.args.map((a, i) => expand(a, `args[${i}]`))];
  } else {
    let split: string[];
    try {
      split = splitCommand(spec.command);
    } catch (err) {
      throw new McpPipeError('MCPP_CFG_INVALID', `${spec.name}.${(err as Error).message}`, {
        data: (err as McpPipeError).data,
      });
    }
    words = split.map((w) => expand(w, 'command'));
  }
  const [command = '', ...args] = words;
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(spec.env ?? {})) env[key] = expand(value, `env.${key}`);
  const cwd = spec.cwd === undefined ? undefined : expand(spec.cwd, 'cwd');
  return { command, args, env, cwd };
}
