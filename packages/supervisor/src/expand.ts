import { McpPipeError } from '@mcppipe/errors';
import type { UpstreamSpec } from './types.js';

/** Where `${VAR}` references are read from (`process.env` fits). */
export type VariableSource = Readonly<Record<string, string | undefined>>;

const REFERENCE = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Expands variable references in `text`:
 *
 * - `${VAR}`: the value of `VAR` (an empty value is kept); unset is an error.
 * - `${VAR:-default}`: the value of `VAR`, or `default` when `VAR` is unset or empty.
 * - `$${`: a literal `${`.
 *
 * Anything else (`$VAR`, `${1}`, `${a-b}`) is left as it is; defaults are not expanded again. The same rules as
 * `@mcppipe/config`, so a layout means the same wherever it is expanded.
 *
 * @param text - the string to expand
 * @param env - where variables come from, e.g. `process.env`
 * @returns the expanded string
 * @throws McpPipeError `MCPP_CFG_UNSET_VARIABLE` naming the variable (`data: { variable }`)
 * @example
 * ```ts
 * expandVariables('Bearer ${GITHUB_TOKEN}', process.env);
 * expandVariables('${PORT:-3001}', {}); // '3001'
 * ```
 */
export function expandVariables(text: string, env: VariableSource): string {
  if (!text.includes('${')) return text;
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
 * An expander for the fields of one upstream: `expand(value, field)` prefixes errors with `<upstream>.<field>: `
 * and adds `{ upstream, field }` to their data.
 *
 * @param upstream - the upstream name
 * @param env - where variables come from
 * @returns `(value, field) => expanded`, e.g. `expand('${TOKEN}', 'env.TOKEN')`
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
 * Expands every string of an upstream that may hold references: `url` and `headers` values (HTTP); `args`, `env`
 * values and `cwd` (stdio). A stdio `command` without `args` is expanded word by word after shell-words splitting,
 * by the stdio launcher, so a value with spaces stays one argument; with `args` it is expanded here.
 *
 * @param spec - an upstream with raw strings
 * @param env - where variables come from
 * @returns a copy with expanded strings
 * @throws McpPipeError `MCPP_CFG_UNSET_VARIABLE`: `github.headers.Authorization: ${GITHUB_TOKEN} is not set; …`
 *   with `data: { variable, upstream, field }`
 * @example
 * ```ts
 * const ready = expandUpstreamSpec(spec, process.env);
 * ```
 */
export function expandUpstreamSpec<S extends UpstreamSpec>(spec: S, env: VariableSource): S {
  const expand = fieldExpander(spec.name, env);
  if (spec.transport === 'http') {
    const headers = expandMap(spec.headers, expand, 'headers');
    return { ...spec, url: expand(spec.url, 'url'), ...(headers && { headers }) };
  }
  const env2 = expandMap(spec.env, expand, 'env');
  return {
    ...spec,
    ...(spec.args && {
      command: expand(spec.command, 'command'),
      args: spec.args.map((a, i) => expand(a, `args[${i}]`)),
    }),
    ...(env2 && { env: env2 }),
    ...(spec.cwd !== undefined && { cwd: expand(spec.cwd, 'cwd') }),
  };
}
