import { globProblem } from './glob.js';
import { parseRate } from './rate.js';

const ACTIONS = ['allow', 'deny'];
const KINDS = ['tool', 'prompt', 'resource'];
const SCOPES = ['caller', 'tool', 'caller+tool', 'all'];
const RULE_KEYS = new Set(['match', 'callers', 'kind', 'action']);
const LIMIT_KEYS = new Set(['scope', 'match', 'rate', 'burst']);
const TOP_KEYS = new Set(['default', 'rules', 'limits']);
const MAX_BURST = 1_000_000;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const oneOf = (values: string[]): string => values.map((v) => JSON.stringify(v)).join(' or ');

function unknownKeys(obj: Obj, allowed: Set<string>, path: string): string[] {
  return Object.keys(obj)
    .filter((key) => !allowed.has(key))
    .map((key) => `${path}.${key}: unknown field (allowed: ${[...allowed].join(', ')})`);
}

function checkRule(rule: unknown, path: string, out: string[]): void {
  if (!isObj(rule)) {
    out.push(`${path}: must be an object { match, action, callers?, kind? }`);
    return;
  }
  out.push(...unknownKeys(rule, RULE_KEYS, path));
  const glob = globProblem(rule['match']);
  if (glob !== undefined) out.push(`${path}.match: ${glob}`);
  if (!ACTIONS.includes(rule['action'] as string))
    out.push(`${path}.action: must be ${oneOf(ACTIONS)}, got ${JSON.stringify(rule['action'])}`);
  if (rule['kind'] !== undefined && !KINDS.includes(rule['kind'] as string))
    out.push(`${path}.kind: must be ${oneOf(KINDS)}, got ${JSON.stringify(rule['kind'])}`);
  const callers = rule['callers'];
  if (callers === undefined) return;
  if (!Array.isArray(callers) || callers.length === 0) {
    out.push(`${path}.callers: must be a non-empty list of client ids, key names, "anonymous" or "*"`);
    return;
  }
  callers.forEach((c, j) => {
    if (typeof c !== 'string' || c.length === 0)
      out.push(`${path}.callers[${j}]: must be a non-empty string`);
  });
}

function checkLimit(limit: unknown, path: string, out: string[]): void {
  if (!isObj(limit)) {
    out.push(`${path}: must be an object { scope, rate, burst?, match? }`);
    return;
  }
  out.push(...unknownKeys(limit, LIMIT_KEYS, path));
  if (!SCOPES.includes(limit['scope'] as string))
    out.push(`${path}.scope: must be ${oneOf(SCOPES)}, got ${JSON.stringify(limit['scope'])}`);
  if (limit['match'] !== undefined) {
    const glob = globProblem(limit['match']);
    if (glob !== undefined) out.push(`${path}.match: ${glob}`);
  }
  if (parseRate(limit['rate']) === undefined)
    out.push(
      `${path}.rate: must be "<n>/<s|min|h>" with n from 1 to 999999 (e.g. "10/min", "5/s", "100/h"), got ${JSON.stringify(limit['rate'])}`,
    );
  const burst = limit['burst'];
  if (
    burst !== undefined &&
    !(Number.isInteger(burst) && (burst as number) >= 1 && (burst as number) <= MAX_BURST)
  )
    out.push(`${path}.burst: must be an integer from 1 to ${MAX_BURST}, got ${JSON.stringify(burst)}`);
}

/**
 * Validates a `policies` configuration section without compiling it, for hosts that collect every problem of a
 * larger configuration (e.g. into `MCPP_CFG_INVALID`).
 *
 * @param config - the section as parsed from JSON or TOML
 * @param path - the dot-path of the section in the host's file (`"policies"`); default: none
 * @returns every problem, each starting with its dot-path (`policies.rules[2].match: …`); empty when valid
 */
export function validatePolicyConfig(config: unknown, path = ''): string[] {
  const out: string[] = [];
  const at = (key: string): string => (path === '' ? key : `${path}.${key}`);
  if (!isObj(config))
    return [`${path === '' ? '(policy)' : path}: must be an object { default?, rules?, limits? }`];
  for (const key of Object.keys(config))
    if (!TOP_KEYS.has(key)) out.push(`${at(key)}: unknown field (allowed: default, rules, limits)`);
  const def = config['default'];
  if (def !== undefined && !ACTIONS.includes(def as string))
    out.push(`${at('default')}: must be ${oneOf(ACTIONS)}, got ${JSON.stringify(def)}`);
  for (const [key, check] of [
    ['rules', checkRule],
    ['limits', checkLimit],
  ] as const) {
    const list = config[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) out.push(`${at(key)}: must be a list`);
    else list.forEach((item: unknown, i) => check(item, `${at(key)}[${i}]`, out));
  }
  return out;
}
