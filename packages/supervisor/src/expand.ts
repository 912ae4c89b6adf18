import type { VariableSource } from '@mcppipe/config';
import { expandVariables } from '@mcppipe/config';
import { McpPipeError } from '@mcppipe/errors';
import type { UpstreamSpec } from './types.js';

// `${VAR}` expansion is @mcppipe/config's (one implementation for config files and spawn time).
export { expandVariables } from '@mcppipe/config';
export type { VariableSource } from '@mcppipe/config';

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
