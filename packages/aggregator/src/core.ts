/**
 * The state every `Server` of one aggregator shares: list caches, calls in flight, 2026-07-28 flows,
 * subscriptions, the live 2025-era sessions, and the routing of a call to its upstream with bridging.
 */
import type { UpstreamRegistry } from '@mcppipe/supervisor';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Server, ServerContext } from '@modelcontextprotocol/server';
import { InflightCalls, LegacyBridge } from './bridge.js';
import { SafeEmitter } from './emitter.js';
import { Flow } from './flow.js';
import { forwardForAgent, forwardRequest, upstreamParams } from './forward.js';
import { ListCache } from './listCache.js';
import type { PolicyGate } from './policyGate.js';
import { Subscriptions } from './subscriptions.js';
import type { ChangedKind, Logger } from './types.js';

type Obj = Record<string, unknown>;

/** Methods whose 2026-07-28 results may be `input_required` (the SDK's multi-round-trip set). */
const MRTR_METHODS = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** A session `Server` the core can notify (implemented by `AggregatorServer`). */
export interface SessionServer extends Server {
  readonly era: 'legacy' | 'modern';
  /**
   * Whether the agent sent `notifications/initialized`: no notification goes to a session before it (a
   * `list_changed` must never overtake the `initialize` result).
   */
  readonly initialized: boolean;
}

/** The agent request being served: the server it came in on and its handler context. */
export interface AgentCall {
  server: SessionServer;
  ctx: ServerContext;
}

/** A request to forward: method and raw params. */
export interface Forward {
  method: string;
  params: Obj | undefined;
}

/** An upstream `resources/updated` to deliver. */
export interface ResourceUpdate {
  upstream: string;
  /** The upstream's URI. */
  uri: string;
  params: Obj;
  /** The URI agents see when no holder subscribed with a specific form. */
  exposed: string;
}

/** Resolved options of the core. */
export interface CoreOptions {
  registry: UpstreamRegistry;
  logger: Logger;
  mode: 'aggregate' | 'single';
  maxNameLength: number;
  pageSize: number;
  maxPagesPerUpstream: number;
  listTimeoutMs: number;
  callTimeoutMs: number;
  inputRequiredTtlMs: number;
  /** Tool policies and rate limits; undefined: none. */
  policy: PolicyGate | undefined;
}

/** The shared state (see the module comment). */
export class Core {
  readonly registry: UpstreamRegistry;
  readonly logger: Logger;
  readonly lists: ListCache;
  readonly inflight = new InflightCalls();
  readonly flows = new Map<string, Flow>();
  readonly subscriptions: Subscriptions;
  readonly sessions = new Set<SessionServer>();
  readonly emitter: SafeEmitter;
  private readonly pendingChanges = new Set<ChangedKind>();
  private flushScheduled = false;
  closed = false;

  constructor(readonly options: CoreOptions) {
    this.registry = options.registry;
    this.logger = options.logger;
    this.emitter = new SafeEmitter(options.logger);
    this.subscriptions = new Subscriptions(options.registry, options.logger);
    this.lists = new ListCache({
      registry: options.registry,
      logger: options.logger,
      maxNameLength: options.maxNameLength,
      maxPages: options.maxPagesPerUpstream,
      timeoutMs: options.listTimeoutMs,
    });
  }

  /** A fresh handshake from an agent: failed upstreams go back to connecting (DESIGN.md A12). */
  handshake(): void {
    for (const snap of this.registry.list()) {
      if (snap.phase !== 'failed') continue;
      this.registry.reinitialize(snap.name).catch((err: unknown) => {
        this.logger.warn(
          { upstream: snap.name, err: String(err) },
          'could not reinitialize a failed upstream',
        );
      });
    }
  }

  /** Queues one aggregated `list_changed` per kind; bursts within one macrotask collapse into one. */
  listChanged(kind: ChangedKind): void {
    this.pendingChanges.add(kind);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      const kinds = [...this.pendingChanges];
      this.pendingChanges.clear();
      if (this.closed) return;
      for (const k of kinds) {
        this.emitter.emit('list_changed', k);
        for (const session of this.sessions) this.sendListChanged(session, k);
      }
    });
  }

  private sendListChanged(session: SessionServer, kind: ChangedKind): void {
    if (!session.initialized || session.transport === undefined || session.era === 'modern') return;
    const sent =
      kind === 'tools'
        ? session.sendToolListChanged()
        : kind === 'prompts'
          ? session.sendPromptListChanged()
          : session.sendResourceListChanged();
    sent.catch(() => undefined);
  }

  /** Delivers an upstream resource update to the holders of that resource and to listen-stream hosts. */
  resourceUpdated(update: ResourceUpdate): void {
    const { params } = update;
    const holders = this.subscriptions.holders(update.upstream, update.uri);
    const emitted = new Set<string>();
    for (const [holder, exposed] of holders ?? []) {
      emitted.add(exposed);
      if (!this.sessions.has(holder as SessionServer)) continue;
      const session = holder as SessionServer;
      if (!session.initialized || session.transport === undefined || session.era === 'modern') continue;
      session.sendResourceUpdated({ ...params, uri: exposed } as never).catch(() => undefined);
    }
    if (emitted.size === 0) emitted.add(update.exposed);
    for (const exposed of emitted) this.emitter.emit('resource_updated', exposed);
  }

  /** Forwards an upstream log message to every 2025-era session, filtered by its `logging/setLevel`. */
  logMessage(params: Obj): void {
    for (const session of this.sessions) {
      if (
        !session.initialized ||
        session.transport === undefined ||
        session.era === 'modern' ||
        session.getCapabilities().logging === undefined
      )
        continue;
      session.sendLoggingMessage(params as never, session.transport.sessionId).catch(() => undefined);
    }
  }

  /**
   * Sends an agent request to an upstream with everything the call needs: cancellation, progress under
   * the agent's token, and bridging of upstream server→client requests (a real request to a 2025-era
   * agent, `input_required` to a 2026-07-28 agent).
   */
  async routed(call: AgentCall, upstream: string, request: Forward): Promise<Obj> {
    const { server, ctx } = call;
    const options = { registry: this.registry, upstream, timeoutMs: this.options.callTimeoutMs };
    if (server.era === 'modern') {
      return MRTR_METHODS.has(request.method)
        ? this.modernLeg(ctx, upstream, request)
        : forwardForAgent(request, ctx, options);
    }
    const remove = this.inflight.add(upstream, new LegacyBridge(ctx, () => server.getClientCapabilities()));
    try {
      return await forwardForAgent(request, ctx, options);
    } finally {
      remove();
    }
  }

  private async modernLeg(ctx: ServerContext, upstream: string, request: Forward): Promise<Obj> {
    const { method, params } = request;
    const state = ctx.mcpReq.requestState();
    let flow: Flow;
    if (typeof state === 'string') {
      const found = this.flows.get(state);
      if (found === undefined || found.method !== method || found.upstream !== upstream) {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid or expired requestState', {
          reason: 'invalid_request_state',
        });
      }
      flow = found;
    } else {
      let remove: () => void = () => undefined;
      flow = new Flow(upstream, method, {
        ttlMs: this.options.inputRequiredTtlMs,
        onEnd: (ended) => {
          remove();
          if (ended.hasId) this.flows.delete(ended.id);
        },
      });
      remove = this.inflight.add(upstream, flow);
      flow.attach(
        forwardRequest(method, upstreamParams(params), {
          registry: this.registry,
          upstream,
          timeoutMs: this.options.callTimeoutMs,
          signal: flow.controller.signal,
          relay: flow.relay,
        }),
      );
    }
    const result = await flow.leg(ctx);
    if (result['resultType'] === 'input_required') this.flows.set(flow.id, flow);
    return result;
  }

  /** Forgets a session (closed): its subscriptions are released. */
  forgetSession(session: SessionServer): void {
    if (!this.sessions.delete(session)) return;
    this.subscriptions.release(session).catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const flow of [...this.flows.values()]) flow.end('the aggregator closed');
    await Promise.allSettled(
      [...this.sessions].map(async (session) => {
        this.sessions.delete(session);
        await this.subscriptions.release(session);
        await session.close();
      }),
    );
    this.flows.clear();
    this.inflight.clear();
    this.subscriptions.clear();
    this.lists.clear();
    this.emitter.clear();
  }
}
