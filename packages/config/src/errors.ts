/**
 * The errors `@mcppipe/config` throws. Every code is listed, with its meaning, in `@mcppipe/errors`
 * (`packages/errors/src/codes.ts`) and `docs/errors.md`:
 *
 * - `MCPP_CFG_INVALID`: a file or flag value breaks a rule; `data.errors` lists every problem, each starting
 *   with its dot-path (or flag), `data.warnings` the warnings, `data.path` the file.
 * - `MCPP_CFG_SYNTAX`: TOML or JSON syntax; the message starts `file:line:column:`, `data` is `{ path, line, column }`.
 * - `MCPP_CFG_READ_FAILED`: a file cannot be read; `data.path`.
 * - `MCPP_CFG_UNSET_VARIABLE`: `${VAR}` without a default and `VAR` unset; `data.variable`.
 * - `MCPP_CFG_AMBIGUOUS_SOURCES`, `MCPP_CFG_BARE_SOURCE`, `MCPP_CFG_SOURCE_CONFLICT`: the CLI source rules
 *   (A7, A8), thrown by `resolveCliSources` with messages built in `cliSources.ts`.
 * - `MCPP_CFG_NO_SOURCES`: nothing to serve after auto-detection (`layoutFromDetected`).
 * - `MCPP_NS_INVALID_NAME`, `MCPP_NS_DUPLICATE_NAME`: a CLI source's name (the rule is `@mcppipe/namespace`'s;
 *   `resolveCliSources` adds the flag to the message).
 *
 * Messages never echo header values, environment values or file contents (they may be secrets).
 */
import { McpPipeError } from '@mcppipe/errors';

/** Why a file could not be read, in a few words (`no such file (ENOENT)`). */
export function describeReadError(err: unknown): string {
  const reasons: Readonly<Record<string, string>> = {
    ENOENT: 'no such file',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EISDIR: 'it is a directory',
  };
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string') return `${reasons[code] ?? 'read failed'} (${code})`;
  return err instanceof Error ? err.message : String(err);
}

/** `MCPP_CFG_READ_FAILED` for `path`. */
export function readFailedError(
  path: string,
  cause: unknown,
): McpPipeError<'MCPP_CFG_READ_FAILED', { path: string }> {
  return new McpPipeError('MCPP_CFG_READ_FAILED', `cannot read ${path}: ${describeReadError(cause)}`, {
    data: { path },
    cause,
  });
}

/** `MCPP_CFG_SYNTAX`: `file:line:column: invalid TOML|JSON: detail`. */
export function syntaxError(
  format: 'TOML' | 'JSON',
  where: { path: string; line: number; column: number },
  detail: string,
): McpPipeError<'MCPP_CFG_SYNTAX', { path: string; line: number; column: number }> {
  const { path, line, column } = where;
  return new McpPipeError('MCPP_CFG_SYNTAX', `${path}:${line}:${column}: invalid ${format}: ${detail}`, {
    data: { path, line, column },
  });
}

/**
 * `MCPP_CFG_INVALID` listing every problem of `what` (a file name): `what is invalid: problem`, or a
 * bulleted list for several.
 */
export function invalidConfigError(
  what: string,
  errors: readonly string[],
  options: { warnings?: readonly string[]; path?: string } = {},
): McpPipeError<'MCPP_CFG_INVALID', { errors: string[]; warnings: string[]; path?: string }> {
  const message =
    errors.length === 1
      ? `${what} is invalid: ${errors[0]}`
      : `${what} is invalid (${errors.length} problems):\n${errors.map((e) => `  - ${e}`).join('\n')}`;
  return new McpPipeError('MCPP_CFG_INVALID', message, {
    data: {
      errors: [...errors],
      warnings: [...(options.warnings ?? [])],
      ...(options.path !== undefined && { path: options.path }),
    },
  });
}
