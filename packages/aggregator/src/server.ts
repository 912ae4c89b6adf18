/**
 * The SDK `Server` an aggregator hands out: a low-level v2 `Server` whose every request goes through
 * `fallbackRequestHandler` (so requests and results are forwarded raw, without the SDK's per-method
 * parsing and result re-validation), with two hooks on SDK seams: the handshake (`initialize` on 2025-era
 * sessions, `server/discover` on 2026-07-28) asks the registry to retry failed upstreams (A12), and closing
 * forgets the session (its subscriptions are released).
 */
import { SHARED_MODERN_SERVER } from '@mcppipe/http';
import { Server } from '@modelcontextprotocol/server';
import type {
  Implementation,
  JSONRPCRequest,
  Notification,
  Result,
  ServerCapabilities,
  ServerContext,
} from '@modelcontextprotocol/server';
import type { Core, SessionServer } from './core.js';
import { toJsonRpcError } from './errors.js';
import { dispatchAggregate } from './route.js';
import { dispatchSingle, singleUpstream } from './single.js';

type Handler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>;

/** The first protocol revision of the modern era (no sessions, `input_required` instead of server→client requests). */
const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** One agent-facing server: per 2025-era session or per 2026-07-28 request. */
export class AggregatorServer extends Server implements SessionServer {
  /**
   * Shareable across concurrent 2026-07-28 requests: the handlers read nothing per instance but the era (the
   * request's envelope, auth info, signal and progress token come from its context), and the capabilities and
   * instructions that are computed per instance only answer `server/discover`, which hosts serve per request.
   */
  readonly [SHARED_MODERN_SERVER] = true;

  #initialized = false;
  readonly #agentHandshake: boolean;

  constructor(
    private readonly core: Core,
    private readonly eraHint: 'legacy' | 'modern',
    init: {
      info: Implementation;
      capabilities: ServerCapabilities;
      instructions?: string;
      /** Whether a handshake here is an agent's (A12: retries failed upstreams); not for the host's own session. */
      agentHandshake: boolean;
    },
  ) {
    super(init.info, {
      capabilities: init.capabilities,
      ...(init.instructions === undefined ? {} : { instructions: init.instructions }),
    });
    const dispatch = core.options.mode === 'single' ? dispatchSingle : dispatchAggregate;
    this.fallbackRequestHandler = async (request, ctx) => {
      try {
        return (await dispatch(core, request, { server: this, ctx })) as Result;
      } catch (err) {
        throw toJsonRpcError(err);
      }
    };
    this.#agentHandshake = init.agentHandshake;
    this.fallbackNotificationHandler = (notification) => this.onAgentNotification(notification);
    // the SDK's own handler calls `oninitialized`; this one also opens the session to notifications
    this.setNotificationHandler('notifications/initialized', () => {
      this.#initialized = true;
      this.oninitialized?.();
    });
  }

  /** Whether the agent sent `notifications/initialized` (notifications wait for it, see `SessionServer`). */
  get initialized(): boolean {
    return this.#initialized;
  }

  /**
   * The era this instance serves: what the SDK bound it to (a serving entry binds 2026-07-28 instances before
   * the first request, `initialize` binds 2025-era ones), else the hint given to `createServer`. Hosts that
   * do not pass `ctx.era` through still get the right bridging and notification behaviour.
   */
  get era(): 'legacy' | 'modern' {
    const version = this.getNegotiatedProtocolVersion();
    if (version === undefined) return this.eraHint;
    return version >= MODERN_PROTOCOL_VERSION ? 'modern' : 'legacy';
  }

  /** Wraps the SDK's handshake handlers so an agent's fresh handshake reinitializes failed upstreams. */
  protected override _wrapHandler(method: string, handler: Handler): Handler {
    const wrapped = super._wrapHandler(method, handler);
    if (method !== 'initialize' && method !== 'server/discover') return wrapped;
    return (request, ctx) => {
      if (this.#agentHandshake) this.core.handshake();
      return wrapped(request, ctx);
    };
  }

  protected override _onclose(): void {
    this.core.forgetSession(this);
    super._onclose();
  }

  override async close(): Promise<void> {
    this.core.forgetSession(this);
    await super.close();
  }

  /** Agent notifications the SDK does not handle itself: roots changes go to the upstreams. */
  private async onAgentNotification(notification: Notification): Promise<void> {
    const core = this.core;
    const forward = (upstream: string) =>
      core.registry
        .notify(upstream, notification as { method: string; params?: Record<string, unknown> })
        .catch(() => undefined);
    if (core.options.mode === 'single') {
      await forward(singleUpstream(core));
      return;
    }
    if (notification.method !== 'notifications/roots/list_changed') return;
    await Promise.all(
      core.registry
        .list()
        .filter((s) => s.phase === 'available')
        .map((s) => forward(s.name)),
    );
  }
}
