/**
 * `${VAR}` and `${VAR:-default}` expansion for configuration strings. Layouts keep strings raw; the
 * supervisor (or a caller) expands them at spawn/connect time, so a changed environment needs no
 * config change and secrets never sit in a parsed config.
 */
import { McpPipeError } from '@mcppipe/errors';
import type { UpstreamConfig } from './types.js';

/** The environment to expand from (`process.env` fits). */
export type VariableSource = Readonly<Record<string, string | undefined>>;

const REFERENCE = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Expands variable references in `text`:
 *
 * - `${VAR}`: the value of `VAR` (an empty value is kept); unset is an error.
 * - `${VAR:-default}`: the value of `VAR`, or `default` when `VAR` is unset or empty.
 * - `$${`: a literal `${`.
 *
 * Anything else (`$VAR`, `${1}`, `${a-b}`) is left as it is. Defaults are not expanded again.
 *
 * @param text - the string to expand
 * @param env - where variables come from, e.g. `process.env`
 * @returns the expanded string
 * @throws McpPipeError `MCPP_CFG_UNSET_VARIABLE` naming the variable (`data: { variable }`)
 * @example Expanding a header
 * ```ts
 * expandVariables('Bearer ${GITHUB_TOKEN}', process.env);
 * expandVariables('${PORT:-3001}', {}); // '3001'
 * ```
 */
export function expandVariables(text: string, env: VariableSource): string {
  return text.replace(REFERENCE, (match: string, name: string | undefined, fallback: string | undefined) => {
    if (name === undefined) return '${';
    const value = Object.hasOwn(env, name) ? env[name] : undefined;
    if (fallback !== undefined) return value === undefined || value === '' ? fallback : value;
    if (value === undefined) {
      throw new McpPipeError(
        'MCPP_CFG_UNSET_VARIABLE',
        `${match} is not set; set ${name} in the environment or write \${${name}:-default}`,
        { data: { variable: name } },
      );
    }
    return value;
  });
}

/**
 * An expander for the fields of one upstream: `expand(value, field)` is {@link expandVariables}, with errors
 * prefixed `<upstream>.<field>: ` and `{ upstream, field }` added to their data. The supervisor's stdio launcher
 * uses it for the words of a split command line.
 *
 * @param upstream - the upstream name
 * @param env - where variables come from
 * @returns `(value, field) => expanded`, e.g. `expand('${TOKEN}', 'env.TOKEN')`
 * @throws McpPipeError `MCPP_CFG_UNSET_VARIABLE` (from the returned function) with `data: { variable, upstream, field }`
 */
export function fieldExpander(
  upstream: string,
  env: VariableSource,
): (value: string, field: string) => string {
  return (value, field) => {
    try {
      return expandVariables(value, env);
    } catch (err) {
      const variable = (err as McpPipeError<'MCPP_CFG_UNSET_VARIABLE', { variable: string }>).data?.variable;
      throw new McpPipeError('MCPP_CFG_UNSET_VARIABLE', `${upstream}.${field}: ${(err as Error).message}`, {
        data: { variable, upstream, field },
      });
    }
  };
}

function expandMap(
  map: Readonly<Record<string, string>> | undefined,
  expand: (value: string, field: string) => string,
  field: string,
): Record<string, string> | undefined {
  if (map === undefined) return undefined;
  return Object.fromEntries(Object.entries(map).map(([k, v]) => [k, expand(v, `${field}.${k}`)]));
}

/**
 * Expands every string of an upstream that may hold references: `url` and `headers` values (HTTP); `command` and
 * `args`, `env` values and `cwd` (stdio). A stdio `command` without `args` is a whole command line: it is kept raw
 * here and expanded word by word after shell-words splitting (by the supervisor's stdio launcher, with
 * {@link fieldExpander}), so a value with spaces stays one argument. Names, keys and other fields are kept.
 *
 * @param upstream - an upstream with raw strings
 * @param env - where variables come from, e.g. `process.env`
 * @returns a new upstream with expanded strings
 * @throws McpPipeError `MCPP_CFG_UNSET_VARIABLE`: `github.headers.Authorization: ${GITHUB_TOKEN} is not set; …`
 *   with `data: { variable, upstream, field }`
 * @example Expanding before a connect
 * ```ts
 * const spec = expandUpstream(layout.upstreams[0], process.env);
 * ```
 */
export function expandUpstream<U extends UpstreamConfig>(upstream: U, env: VariableSource): U {
  const expand = fieldExpander(upstream.name, env);
  if (upstream.transport === 'http') {
    const headers = expandMap(upstream.headers, expand, 'headers');
    return { ...upstream, url: expand(upstream.url, 'url'), ...(headers && { headers }) };
  }
  const env2 = expandMap(upstream.env, expand, 'env');
  return {
    ...upstream,
    ...(upstream.args && {
      command: expand(upstream.command, 'command'),
      args: upstream.args.map((a, i) => expand(a, `args[${i}]`)),
    }),
    ...(env2 && { env: env2 }),
    ...(upstream.cwd !== undefined && { cwd: expand(upstream.cwd, 'cwd') }),
  };
}
