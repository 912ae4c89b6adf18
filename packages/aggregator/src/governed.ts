/**
 * Policy enforcement for hosts that forward an upstream's names verbatim (the per-server proxy, single mode):
 * the rules still name tools `<upstream>__<tool>` (P3), so each name is prefixed before the gate is asked.
 *
 * @module
 */
import type { Caller } from '@mcppipe/policy';
import { unknownNameError } from './errors.js';
import type { PolicyGate } from './policyGate.js';

type Obj = Record<string, unknown>;

const LIST_FIELDS: Readonly<Record<string, 'tools' | 'prompts' | 'resources' | 'resourceTemplates'>> = {
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
};

/** One upstream's names as the policy sees them: `prefix` is `<upstream>__`. */
export interface VerbatimTarget {
  upstream: string;
  prefix: string;
}

/** A request being governed: the gate, the upstream it goes to and who sent it. */
export interface Governed extends VerbatimTarget {
  gate: PolicyGate;
  caller: Caller;
}

/**
 * Checks a request before it is forwarded: a denied tool or prompt is refused as an unknown name (-32602
 * `Unknown tool: "<tool>"`), a denied upstream's resource as an unknown resource; a `tools/call` takes a token.
 *
 * @throws McpPipeError `MCPP_AGG_UNKNOWN_NAME` or `MCPP_POLICY_RATE_LIMITED`
 */
export function governRequest(
  governed: Governed,
  request: { method: string; params: Obj | undefined },
): void {
  const { gate, caller, prefix, upstream } = governed;
  const { method, params } = request;
  if (method === 'tools/call' || method === 'prompts/get') {
    const original = String(params?.['name']);
    const label = method === 'tools/call' ? 'tool' : 'prompt';
    const exposed = prefix + original;
    gate.check({ kind: label, name: exposed, caller }, () => unknownNameError(label, original));
    if (label === 'tool') gate.take(exposed, caller);
  } else if (method === 'resources/read' || method === 'resources/subscribe') {
    const uri = String(params?.['uri']);
    gate.check({ kind: 'resource', name: upstream, caller }, () => unknownNameError('resource', uri));
  }
}

/**
 * A forwarded list result as `caller` may see it: the same object when nothing is hidden.
 *
 * @param method - the request's method; results of other methods are returned as they are
 */
export function governResult(governed: Governed, method: string, result: Obj): Obj {
  const { gate, caller, prefix, upstream } = governed;
  const field = LIST_FIELDS[method];
  const items = field === undefined ? undefined : result[field];
  if (field === undefined || !Array.isArray(items)) return result;
  const list = items as Obj[];
  const visible =
    field === 'tools' || field === 'prompts'
      ? gate.filter(list, {
          kind: field === 'tools' ? 'tool' : 'prompt',
          caller,
          nameOf: (t) => prefix + String(t['name']),
        })
      : gate.filter(list, { kind: 'resource', caller, nameOf: () => upstream });
  return visible === list ? result : { ...result, [field]: visible };
}
