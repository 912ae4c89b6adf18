/**
 * Single-upstream mode (DESIGN.md A7, A8): one upstream forwarded verbatim, with no prefixes, no wrapping
 * and no caches. Only what must be per agent is kept here: resource subscriptions (counted, so agents do not
 * unsubscribe each other) and the bridging of server→client requests.
 */
import type { UpstreamNotificationEvent } from '@mcppipe/supervisor';
import type { JSONRPCRequest } from '@modelcontextprotocol/server';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { prefixName } from '@mcppipe/namespace';
import type { AgentCall, Core } from './core.js';
import { governRequest, governResult } from './governed.js';

type Obj = Record<string, unknown>;

/** The one upstream of a single-mode registry. */
export function singleUpstream(core: Core): string {
  // per request: remember the one name instead of building every snapshot again (single mode never re-lays out)
  const known = singleNames.get(core);
  if (known !== undefined) return known;
  const [only] = core.registry.list();
  if (only === undefined)
    throw new ProtocolError(ProtocolErrorCode.InternalError, 'no upstream is configured');
  singleNames.set(core, only.name);
  return only.name;
}

const singleNames = new WeakMap<Core, string>();
/** `<upstream>__` of the one upstream, for policy rules (computed once). */
const singlePrefixes = new WeakMap<Core, string>();

/**
 * Answers one agent request in single mode: everything is forwarded as is.
 *
 * @throws anything; the server maps it with `toJsonRpcError`
 */
export async function dispatchSingle(core: Core, request: JSONRPCRequest, call: AgentCall): Promise<Obj> {
  const upstream = singleUpstream(core);
  const params = request.params as Obj | undefined;
  const gate = core.options.policy;
  if (gate !== undefined) {
    // Names are verbatim here, but rules still name tools `<upstream>__<tool>` (P3).
    const caller = gate.callerOf(call.ctx);
    let prefix = singlePrefixes.get(core);
    if (prefix === undefined) singlePrefixes.set(core, (prefix = prefixName(upstream, '')));
    const governed = { gate, caller, upstream, prefix };
    governRequest(governed, { method: request.method, params });
    return governResult(governed, request.method, await forwardSingle(core, request, call));
  }
  return forwardSingle(core, request, call);
}

async function forwardSingle(core: Core, request: JSONRPCRequest, call: AgentCall): Promise<Obj> {
  const upstream = singleUpstream(core);
  const params = request.params as Obj | undefined;
  if (request.method === 'resources/subscribe' || request.method === 'resources/unsubscribe') {
    const uri = params?.['uri'];
    if (typeof uri !== 'string')
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'params.uri must be a string');
    if (request.method === 'resources/subscribe')
      await core.subscriptions.subscribe(call.server, uri, { upstream, uri });
    else await core.subscriptions.unsubscribe(call.server, { upstream, uri });
    return {};
  }
  return core.routed(call, upstream, { method: request.method, params });
}

/** Handles an upstream notification in single mode: re-emitted unchanged. */
export function onSingleNotification(core: Core, event: UpstreamNotificationEvent): void {
  const { upstream, method, params } = event;
  switch (method) {
    case 'notifications/tools/list_changed':
      core.listChanged('tools');
      return;
    case 'notifications/prompts/list_changed':
      core.listChanged('prompts');
      return;
    case 'notifications/resources/list_changed':
      core.listChanged('resources');
      return;
    case 'notifications/resources/updated': {
      const uri = params?.['uri'];
      if (typeof uri === 'string')
        core.resourceUpdated({ upstream, uri, params: params ?? {}, exposed: uri });
      return;
    }
    case 'notifications/message':
      core.logMessage(params ?? {});
      return;
    default:
      core.logger.debug({ upstream, method }, 'ignored an upstream notification');
  }
}
