import type { PolicyGate } from '@mcppipe/aggregator';
import { McpPipeError, isMcpPipeError } from '@mcppipe/errors';
import { prefixName } from '@mcppipe/namespace';
import type { Caller } from '@mcppipe/policy';
import type { UpstreamRegistry, UpstreamSnapshot } from '@mcppipe/supervisor';
import type { CallToolResult, ServerContext } from '@modelcontextprotocol/server';
import { closeMatches } from './closeMatches.js';
import { unavailableError, unknownServerError, unknownToolError } from './errors.js';
import { forwardCall, mapFailure } from './forwardCall.js';
import { parseMetaToolArgs } from './metaTools.js';
import type { MetaToolName } from './metaTools.js';
import { oneLine } from './summary.js';
import { errorMessage } from './toolCache.js';
import type { ToolCache, UpstreamTool } from './toolCache.js';
import type { GetToolResult, HubLogger, ListServersResult, ListToolsResult, ServerSummary } from './types.js';

/** What the meta-tool handlers share. */
export interface HandlerDeps {
  registry: UpstreamRegistry;
  logger: HubLogger;
  cache: ToolCache;
  isVisible: (snapshot: UpstreamSnapshot) => boolean;
  callTimeoutMs: number;
  hubSignal: AbortSignal;
  /** Tool policies and rate limits on `<server>__<tool>` (P3); undefined: none. */
  policy?: PolicyGate | undefined;
}

/** One meta-tool: raw `arguments` in, a tool result out; hub errors are thrown as `McpPipeError`. */
export type MetaToolHandler = (args: unknown, ctx: ServerContext) => Promise<CallToolResult>;

/** A success result: compact JSON text for the model and the same object as `structuredContent`. */
function ok(value: object): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: { ...value } };
}

/**
 * The four meta-tool handlers over one registry and cache.
 *
 * @param deps - registry, cache, visibility rule, call timeout and the hub's close signal
 * @returns a handler per meta-tool name
 */
export function createHandlers(deps: HandlerDeps): Record<MetaToolName, MetaToolHandler> {
  const { registry, cache, isVisible, logger, policy } = deps;

  /** The tools of `server` that `caller` may see (all without a policy); the same array when none is hidden. */
  const visibleTools = (
    server: string,
    tools: UpstreamTool[],
    caller: Caller | undefined,
  ): UpstreamTool[] => {
    if (policy === undefined || caller === undefined) return tools;
    const prefix = prefixName(server, '');
    return policy.filter(tools, { kind: 'tool', caller, nameOf: (t) => prefix + t.name }) as UpstreamTool[];
  };

  const visibleSnapshots = () => registry.list().filter((s) => isVisible(s));

  /** The visible server named `name`; a hidden one is refused exactly like an unknown one. */
  const resolveServer = (name: string): UpstreamSnapshot => {
    const snapshot = registry.get(name);
    if (snapshot && isVisible(snapshot)) return snapshot;
    const visible = visibleSnapshots().map((s) => s.name);
    throw unknownServerError(name, closeMatches(name, visible), visible);
  };

  /** The server's tools: current cache, else fetched; while it is not available, the last ones seen (if `stale`). */
  const toolsOf = async (snapshot: UpstreamSnapshot, stale: boolean): Promise<UpstreamTool[]> => {
    const { name, phase } = snapshot;
    const current = cache.peek(name);
    if (current) return current;
    if (phase !== 'available') {
      const last = stale ? cache.last(name) : undefined;
      if (last) return last;
      throw unavailableError(name, phase, snapshot.retryAfterMs);
    }
    try {
      return await cache.get(name);
    } catch (err) {
      throw mapFailure(registry, { server: name }, err);
    }
  };

  /** The tool named `tool`; on a miss the list is fetched once more (it may have changed since it was cached). */
  const findTool = async (
    snapshot: UpstreamSnapshot,
    tool: string,
    seen: { stale: boolean; caller: Caller | undefined },
  ): Promise<UpstreamTool> => {
    const { stale, caller } = seen;
    let tools = visibleTools(snapshot.name, await toolsOf(snapshot, stale), caller);
    let found = tools.find((t) => t.name === tool);
    if (!found && registry.get(snapshot.name)?.phase === 'available') {
      try {
        tools = visibleTools(snapshot.name, await cache.reload(snapshot.name), caller);
      } catch (err) {
        throw mapFailure(registry, { server: snapshot.name }, err);
      }
      found = tools.find((t) => t.name === tool);
    }
    if (found) return found;
    const names = tools.map((t) => t.name);
    throw unknownToolError({
      server: snapshot.name,
      tool,
      suggestions: closeMatches(tool, names),
      toolCount: names.length,
    });
  };

  const summarize = async (
    snapshot: UpstreamSnapshot,
    caller: Caller | undefined,
  ): Promise<ServerSummary> => {
    const { name, phase, serverInfo, instructions } = snapshot;
    let tools = cache.peek(name) ?? cache.last(name);
    if (!cache.peek(name) && phase === 'available') {
      tools = await cache.get(name).catch((err: unknown) => {
        logger.warn({ upstream: name, err: errorMessage(err) }, 'hub: tools/list failed for list_servers');
        return cache.last(name);
      });
    }
    const title = typeof serverInfo?.['title'] === 'string' ? serverInfo['title'] : undefined;
    const description = oneLine(serverInfo?.['description']) ?? oneLine(instructions);
    return {
      name,
      phase,
      ...(title !== undefined ? { title } : {}),
      ...(description !== undefined ? { description } : {}),
      toolCount: tools ? visibleTools(name, tools, caller).length : null,
    };
  };

  return {
    async list_servers(args, ctx) {
      const parsed = parseMetaToolArgs('list_servers', args);
      if (!parsed.ok) throw parsed.error;
      const caller = policy?.callerOf(ctx);
      const result: ListServersResult = {
        servers: await Promise.all(visibleSnapshots().map((s) => summarize(s, caller))),
      };
      return ok(result);
    },

    async list_tools(args, ctx) {
      const parsed = parseMetaToolArgs('list_tools', args);
      if (!parsed.ok) throw parsed.error;
      const snapshot = resolveServer(parsed.args.server);
      const tools = visibleTools(snapshot.name, await toolsOf(snapshot, true), policy?.callerOf(ctx));
      const result: ListToolsResult = {
        server: snapshot.name,
        phase: registry.get(snapshot.name)?.phase ?? snapshot.phase,
        tools: tools.map((t) => {
          const description = oneLine(t['description']);
          return description === undefined ? { name: t.name } : { name: t.name, description };
        }),
      };
      return ok(result);
    },

    async get_tool(args, ctx) {
      const parsed = parseMetaToolArgs('get_tool', args);
      if (!parsed.ok) throw parsed.error;
      const snapshot = resolveServer(parsed.args.server);
      const tool = await findTool(snapshot, parsed.args.tool, { stale: true, caller: policy?.callerOf(ctx) });
      const result: GetToolResult = { server: snapshot.name, tool };
      return ok(result);
    },

    async call_tool(args, ctx) {
      const parsed = parseMetaToolArgs('call_tool', args);
      if (!parsed.ok) throw parsed.error;
      const { server, tool, arguments: toolArgs } = parsed.args;
      const snapshot = resolveServer(server);
      const caller = policy?.callerOf(ctx);
      const exposed = policy === undefined ? '' : prefixName(snapshot.name, tool);
      // A denied tool is refused before anything else, exactly as an unknown tool (its suggestions and count
      // from the tools the caller may see); its phase is never revealed either.
      if (policy !== undefined && caller !== undefined && !policy.allows('tool', exposed, caller)) {
        const names = visibleTools(server, cache.peek(server) ?? cache.last(server) ?? [], caller).map(
          (t) => t.name,
        );
        policy.check({ kind: 'tool', name: exposed, caller }, () =>
          unknownToolError({ server, tool, suggestions: closeMatches(tool, names), toolCount: names.length }),
        );
      }
      if (snapshot.phase !== 'available')
        throw unavailableError(server, snapshot.phase, snapshot.retryAfterMs);
      try {
        await findTool(snapshot, tool, { stale: false, caller });
      } catch (err) {
        // Only a definite "no such tool" stops the call; a failed tools/list must not block a call that may work.
        if (isMcpPipeError(err, 'MCPP_HUB_UNKNOWN_TOOL')) throw err;
        logger.warn(
          { upstream: server, err: errorMessage(err) },
          'hub: could not check the tool name; forwarding',
        );
      }
      if (policy !== undefined && caller !== undefined) policy.take(exposed, caller);
      const outcome = await forwardCall({
        registry,
        logger,
        server,
        tool,
        args: toolArgs,
        timeoutMs: deps.callTimeoutMs,
        ctx,
        hubSignal: deps.hubSignal,
      });
      if (outcome instanceof McpPipeError) throw outcome;
      return outcome;
    },
  };
}
