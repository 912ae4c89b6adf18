/**
 * Aggregate-mode request handling (DESIGN.md A3, A4): merged lists from the per-upstream caches, and the
 * routing of calls to the one upstream their prefix or wrapped URI names. Names are joined and split only
 * by `@mcppipe/namespace`; shortened names resolve through the upstream's table.
 */
import { splitName, unwrapResourceTemplate, unwrapResourceUri } from '@mcppipe/namespace';
import type { Caller } from '@mcppipe/policy';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { UpstreamNotificationEvent } from '@mcppipe/supervisor';
import type { JSONRPCRequest } from '@modelcontextprotocol/server';
import type { AgentCall, Core } from './core.js';
import type { NameKind } from './errors.js';
import { unknownNameError } from './errors.js';
import { pageOf } from './paging.js';
import { wholeListResult } from './serialized.js';
import { singleUpstream } from './single.js';
import { isObj, wrapCallToolResult, wrapPromptResult, wrapReadResult, tryWrap } from './rewrite.js';
import type { ListKind } from './types.js';

type Obj = Record<string, unknown>;

/** An unknown name is looked up again after a refresh only if the table is older than this. */
const REFRESH_ON_MISS_AFTER_MS = 1000;

const LIST_METHODS: Record<string, ListKind> = {
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
};

const KEY_FIELD: Record<ListKind, string> = {
  tools: 'name',
  prompts: 'name',
  resources: 'uri',
  resourceTemplates: 'uriTemplate',
};

/** -32602 in the host's wording for a schema failure (`agentSafeMessage` in `@mcppipe/http`; docs/cli.md "Errors"). */
const invalidParams = (method: string, path: string) =>
  new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Invalid params for ${method}: the field "${path}" is missing or has the wrong type`,
  );

/**
 * `params[name]` (at `path`, e.g. `params.ref`) as a string.
 *
 * @throws ProtocolError -32602 `Invalid params for <method>: the field "<path>.<name>" …` when it is not one
 */
function stringParam(params: Obj | undefined, name: string, at: { method: string; path?: string }): string {
  const v = params?.[name];
  if (typeof v !== 'string') throw invalidParams(at.method, `${at.path ?? 'params'}.${name}`);
  return v;
}

/**
 * Checks `params.arguments` before a call is routed (MCP: an object for `tools/call`, an object of strings for
 * `prompts/get`), so an agent gets the documented -32602 instead of whatever the upstream's validator says.
 *
 * @throws ProtocolError -32602 naming the first offending field
 */
function checkArguments(method: 'tools/call' | 'prompts/get', params: Obj | undefined): void {
  const args = params?.['arguments'];
  if (args === undefined) return;
  if (!isObj(args)) throw invalidParams(method, 'params.arguments');
  if (method !== 'prompts/get') return;
  for (const [k, v] of Object.entries(args))
    if (typeof v !== 'string') throw invalidParams(method, `params.arguments.${k}`);
}

const noUpstreamError = (kind: NameKind, exposed: string, upstream: string) =>
  unknownNameError(kind, exposed, `no upstream named ${JSON.stringify(upstream)}`);

function knownUpstream(core: Core, kind: NameKind, target: { exposed: string; upstream: string }): void {
  if (core.registry.get(target.upstream) === undefined)
    throw noUpstreamError(kind, target.exposed, target.upstream);
}

/** The caller of the agent request, when a policy is set (P1). */
function callerOf(core: Core, call: AgentCall): Caller | undefined {
  return core.options.policy?.callerOf(call.ctx);
}

/**
 * Refuses a resource (read, subscribe, completion) whose upstream the policy denies to `caller`, exactly as a
 * resource of an unknown upstream is refused (P2).
 */
function checkResource(core: Core, call: AgentCall, target: { exposed: string; upstream: string }): void {
  const gate = core.options.policy;
  if (gate === undefined) return;
  const { exposed, upstream } = target;
  gate.check({ kind: 'resource', name: upstream, caller: gate.callerOf(call.ctx) }, () =>
    noUpstreamError('resource', exposed, upstream),
  );
}

const upstreamOfUri = (item: Obj) => unwrapResourceUri(String(item['uri'])).upstream;
const upstreamOfTemplate = (item: Obj) => unwrapResourceTemplate(String(item['uriTemplate'])).upstream;
const exposedNameOf = (item: Obj) => String(item['name']);

/** The merged list of `kind` as the request's caller may see it (the same array when the policy hides nothing). */
async function visibleList(core: Core, call: AgentCall, kind: ListKind): Promise<readonly Obj[]> {
  const merged = await core.lists.mergedList(kind);
  const gate = core.options.policy;
  if (gate === undefined) return merged;
  const caller = gate.callerOf(call.ctx);
  switch (kind) {
    case 'tools':
      return gate.filter(merged, { kind: 'tool', caller, nameOf: exposedNameOf });
    case 'prompts':
      return gate.filter(merged, { kind: 'prompt', caller, nameOf: exposedNameOf });
    case 'resources':
      return gate.filter(merged, { kind: 'resource', caller, nameOf: upstreamOfUri });
    case 'resourceTemplates':
      return gate.filter(merged, { kind: 'resource', caller, nameOf: upstreamOfTemplate });
  }
}

/**
 * Resolves an exposed tool or prompt name to its upstream and original name. A name the policy denies to
 * `caller` is refused here, before any upstream traffic, with the error an unknown name of a known upstream gets.
 *
 * @throws McpPipeError `MCPP_AGG_UNKNOWN_NAME` for an unknown prefix or name, or a denied name
 */
export async function resolveName(
  core: Core,
  kind: 'tools' | 'prompts',
  asked: { exposed: string; caller: Caller | undefined },
): Promise<{ upstream: string; name: string }> {
  const { exposed, caller } = asked;
  const label: NameKind = kind === 'tools' ? 'tool' : 'prompt';
  let split: { upstream: string; name: string };
  try {
    split = splitName(exposed);
  } catch {
    throw unknownNameError(label, exposed, 'it has no <upstream>__ prefix');
  }
  const snap = core.registry.get(split.upstream);
  if (snap === undefined)
    throw unknownNameError(label, exposed, `no upstream named ${JSON.stringify(split.upstream)}`);
  if (caller !== undefined)
    core.options.policy?.check({ kind: label === 'tool' ? 'tool' : 'prompt', name: exposed, caller }, () =>
      unknownNameError(label, exposed),
    );
  let entry = await core.lists.get(split.upstream, kind);
  let name = entry?.names.get(exposed);
  if (
    name === undefined &&
    snap.phase === 'available' &&
    (entry === undefined || Date.now() - entry.report.fetchedAt > REFRESH_ON_MISS_AFTER_MS)
  ) {
    core.lists.invalidate(split.upstream, kind);
    entry = await core.lists.get(split.upstream, kind);
    name = entry?.names.get(exposed);
  }
  if (name !== undefined) return { upstream: split.upstream, name };
  // Not available and never listed: let the registry answer -32000 at once.
  if (snap.phase !== 'available' && entry === undefined) return split;
  throw unknownNameError(label, exposed);
}

/** Where a URI agents subscribe to lives upstream (identity in single mode). */
export function unwrapForSubscription(core: Core, uri: string): { upstream: string; uri: string } {
  return core.options.mode === 'single' ? { upstream: singleUpstream(core), uri } : unwrapUri(core, uri);
}

function unwrapUri(core: Core, uri: string): { upstream: string; uri: string } {
  let target: { upstream: string; uri: string };
  try {
    target = unwrapResourceUri(uri);
  } catch (err) {
    throw unknownNameError('resource', uri, err instanceof Error ? err.message : undefined);
  }
  knownUpstream(core, 'resource', { exposed: uri, upstream: target.upstream });
  return target;
}

async function completion(core: Core, call: AgentCall, params: Obj | undefined): Promise<Obj> {
  const ref = params?.['ref'] as Obj | undefined;
  if (ref?.['type'] === 'ref/prompt') {
    const { upstream, name } = await resolveName(core, 'prompts', {
      exposed: stringParam(ref, 'name', { method: 'completion/complete', path: 'params.ref' }),
      caller: callerOf(core, call),
    });
    return core.routed(call, upstream, {
      method: 'completion/complete',
      params: { ...params, ref: { ...ref, name } },
    });
  }
  if (ref?.['type'] === 'ref/resource') {
    const uri = stringParam(ref, 'uri', { method: 'completion/complete', path: 'params.ref' });
    let target: { upstream: string; uri: string };
    try {
      const t = unwrapResourceTemplate(uri);
      target = { upstream: t.upstream, uri: t.template };
    } catch {
      target = unwrapUri(core, uri);
    }
    knownUpstream(core, 'resource template', { exposed: uri, upstream: target.upstream });
    checkResource(core, call, { exposed: uri, upstream: target.upstream });
    return core.routed(call, target.upstream, {
      method: 'completion/complete',
      params: { ...params, ref: { ...ref, uri: target.uri } },
    });
  }
  throw new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    'params.ref must be a ref/prompt or ref/resource reference',
  );
}

/**
 * Answers one agent request in aggregate mode.
 *
 * @throws anything; the server maps it with `toJsonRpcError`
 */
export async function dispatchAggregate(core: Core, request: JSONRPCRequest, call: AgentCall): Promise<Obj> {
  const params = request.params as Obj | undefined;
  const listKind = LIST_METHODS[request.method];
  if (listKind !== undefined) {
    const merged = await visibleList(core, call, listKind);
    const cursor = params?.['cursor'];
    const field = KEY_FIELD[listKind];
    const page = pageOf(merged, typeof cursor === 'string' ? cursor : undefined, {
      pageSize: core.options.pageSize,
      keyOf: (item) => String(item[field]),
    });
    if (page.nextCursor === undefined) {
      // the whole list in one page: one result object (and one JSON text) per list version
      return page.items === merged ? wholeListResult(listKind, merged) : { [listKind]: page.items };
    }
    return { [listKind]: page.items, nextCursor: page.nextCursor };
  }
  switch (request.method) {
    case 'tools/call': {
      const exposed = stringParam(params, 'name', request);
      checkArguments('tools/call', params);
      const caller = callerOf(core, call);
      const { upstream, name } = await resolveName(core, 'tools', { exposed, caller });
      if (caller !== undefined) core.options.policy?.take(exposed, caller);
      const result = await core.routed(call, upstream, { method: 'tools/call', params: { ...params, name } });
      return result['resultType'] === 'input_required' ? result : wrapCallToolResult(upstream, result);
    }
    case 'prompts/get': {
      const exposed = stringParam(params, 'name', request);
      checkArguments('prompts/get', params);
      const { upstream, name } = await resolveName(core, 'prompts', {
        exposed,
        caller: callerOf(core, call),
      });
      const result = await core.routed(call, upstream, {
        method: 'prompts/get',
        params: { ...params, name },
      });
      return result['resultType'] === 'input_required' ? result : wrapPromptResult(upstream, result);
    }
    case 'resources/read': {
      const exposed = stringParam(params, 'uri', request);
      const target = unwrapUri(core, exposed);
      checkResource(core, call, { exposed, upstream: target.upstream });
      const result = await core.routed(call, target.upstream, {
        method: 'resources/read',
        params: { ...params, uri: target.uri },
      });
      if (result['resultType'] === 'input_required') return result;
      return wrapReadResult(target.upstream, result, { original: target.uri, exposed });
    }
    case 'completion/complete':
      return completion(core, call, params);
    case 'resources/subscribe': {
      const exposed = stringParam(params, 'uri', request);
      const target = unwrapUri(core, exposed);
      checkResource(core, call, { exposed, upstream: target.upstream });
      await core.subscriptions.subscribe(call.server, exposed, target);
      return {};
    }
    case 'resources/unsubscribe': {
      const exposed = stringParam(params, 'uri', request);
      await core.subscriptions.unsubscribe(call.server, unwrapUri(core, exposed));
      return {};
    }
    default:
      throw new ProtocolError(ProtocolErrorCode.MethodNotFound, `Method not found: ${request.method}`);
  }
}

/** Handles an upstream notification in aggregate mode: invalidation, updates, logging. */
export function onUpstreamNotification(core: Core, event: UpstreamNotificationEvent): void {
  const { upstream, method, params } = event;
  switch (method) {
    case 'notifications/tools/list_changed':
      core.lists.invalidate(upstream, 'tools');
      core.lists.warm(upstream, ['tools']);
      core.listChanged('tools');
      return;
    case 'notifications/prompts/list_changed':
      core.lists.invalidate(upstream, 'prompts');
      core.lists.warm(upstream, ['prompts']);
      core.listChanged('prompts');
      return;
    case 'notifications/resources/list_changed':
      core.lists.invalidate(upstream, 'resources');
      core.lists.invalidate(upstream, 'resourceTemplates');
      core.lists.warm(upstream, ['resources', 'resourceTemplates']);
      core.listChanged('resources');
      return;
    case 'notifications/resources/updated': {
      const uri = params?.['uri'];
      const wrapped = tryWrap(upstream, uri);
      if (typeof uri === 'string' && wrapped !== undefined)
        core.resourceUpdated({ upstream, uri, params: params ?? {}, exposed: wrapped });
      return;
    }
    case 'notifications/message': {
      const logger = params?.['logger'];
      core.logMessage({
        ...params,
        logger: typeof logger === 'string' && logger !== '' ? `${upstream}/${logger}` : upstream,
      });
      return;
    }
    default:
      core.logger.debug({ upstream, method }, 'ignored an upstream notification');
  }
}
