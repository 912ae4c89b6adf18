/**
 * The one forwarding path from an agent request to an upstream (used by the aggregate, the per-server proxy
 * and `@mcppipe/hub`): `_meta` goes along (the agent's progress token is replaced by the SDK's own), progress
 * comes back under the agent's token, the agent's cancellation is forwarded at once, and the result is returned
 * raw (the supervisor's `passthroughSchema`). Errors leave as they came ({@link forwardUpstream}) or mapped
 * once to the wire by {@link toJsonRpcError} ({@link forwardForAgent}, {@link forwardRequest}).
 *
 * @module
 */
import type { UpstreamRegistry } from '@mcppipe/supervisor';
import type { ServerContext } from '@modelcontextprotocol/server';
import { toJsonRpcError } from './errors.js';

type Obj = Record<string, unknown>;

/**
 * Re-emits upstream progress to one agent request under the agent's own token. The target can change
 * (a 2026-07-28 flow spans several agent requests) or be absent (progress between legs is dropped).
 * Notifications are chained, so `flush()` resolves once the last one was handed to the transport.
 */
export class ProgressRelay {
  private target: { ctx: ServerContext; token: string | number } | undefined;
  private chain: Promise<void> = Promise.resolve();

  /** @param onDropped - told about a notification the agent's transport refused (default: ignored) */
  constructor(private readonly onDropped?: (err: unknown) => void) {}

  /** Points the relay at an agent request; a request without a progress token receives nothing. */
  bind(ctx: ServerContext): void {
    const token = ctx.mcpReq._meta?.progressToken;
    this.target = token === undefined ? undefined : { ctx, token };
  }

  /** Stops relaying (the agent request answered). */
  unbind(): void {
    this.target = undefined;
  }

  /** Relays one progress notification (the upstream's params without its token). */
  send(progress: Obj): void {
    const target = this.target;
    if (target === undefined) return;
    const params = { ...progress, progressToken: target.token };
    const onDropped = this.onDropped;
    this.chain = this.chain
      .then(() => target.ctx.mcpReq.notify({ method: 'notifications/progress', params } as never))
      .catch((err: unknown) => onDropped?.(err));
  }

  /** Resolves when every relayed notification was sent. */
  flush(): Promise<void> {
    return this.chain;
  }
}

/** The request params for the upstream: the agent's progress token removed (the SDK mints its own). */
export function upstreamParams(params: Obj | undefined): Obj | undefined {
  const meta = params?.['_meta'];
  if (params === undefined || typeof meta !== 'object' || meta === null || !('progressToken' in meta))
    return params;
  const { progressToken: _drop, ...rest } = meta as Obj;
  const next: Obj = { ...params };
  if (Object.keys(rest).length > 0) next['_meta'] = rest;
  else delete next['_meta'];
  return next;
}

/**
 * Links an agent request's abort signal to a controller for the upstream request; call the returned
 * function on completion (per-request instances abort the handler signal after the response is sent).
 */
export function linkAbort(signal: AbortSignal, controller: AbortController): () => void {
  if (signal.aborted) {
    controller.abort(signal.reason);
    return () => undefined;
  }
  const onAbort = () => controller.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  return () => signal.removeEventListener('abort', onAbort);
}

/** Which upstream, and how long it may stay silent. */
export interface ForwardTarget {
  registry: UpstreamRegistry;
  upstream: string;
  /** Idle timeout of the upstream request in ms, restarted by every progress notification. */
  timeoutMs: number;
}

/** What {@link forwardUpstream} and {@link forwardRequest} need besides the request. */
export interface ForwardOptions extends ForwardTarget {
  /** Aborts the upstream request (the SDK sends `notifications/cancelled`). */
  signal: AbortSignal;
  /** Receives the upstream's progress. */
  relay?: ProgressRelay;
  /** Called on every upstream progress notification; when set, progress is requested even without a relay. */
  onProgress?: () => void;
}

/**
 * Sends one request to an upstream and returns its raw result; failures are rethrown as they came.
 *
 * @param method - the JSON-RPC method
 * @param params - the params as they go upstream (see {@link upstreamParams})
 * @param options - the upstream, timeout, abort signal and progress receivers
 * @returns the upstream's result, unknown fields included
 * @throws whatever `registry.request` rejects with (`MCPP_SUP_*`, the upstream's `ProtocolError`, SDK errors)
 */
export function forwardUpstream(
  method: string,
  params: Obj | undefined,
  options: ForwardOptions,
): Promise<Obj> {
  const { registry, upstream, relay, onProgress, signal } = options;
  const wantsProgress = relay !== undefined || onProgress !== undefined;
  return registry.request(upstream, params === undefined ? { method } : { method, params }, {
    signal,
    timeoutMs: options.timeoutMs,
    resetTimeoutOnProgress: true,
    ...(wantsProgress && {
      onprogress: (progress: Obj) => {
        if (signal.aborted) return;
        onProgress?.();
        relay?.send(progress);
      },
    }),
  });
}

/**
 * The wire error for a failed forward: {@link toJsonRpcError} with the upstream's phase as its state machine
 * says now (read only on this failure path).
 *
 * @param err - what the forward rejected with
 * @param target - the registry and the upstream
 * @returns the `ProtocolError` to answer with
 */
export function forwardError(err: unknown, target: Pick<ForwardTarget, 'registry' | 'upstream'>) {
  const snapshot = target.registry.get(target.upstream);
  return toJsonRpcError(err, target.upstream, snapshot);
}

/**
 * {@link forwardUpstream} with failures mapped to the wire ({@link forwardError}).
 *
 * @throws ProtocolError - the upstream's JSON-RPC error unchanged, or the mapped local error
 */
export async function forwardRequest(
  method: string,
  params: Obj | undefined,
  options: ForwardOptions,
): Promise<Obj> {
  try {
    return await forwardUpstream(method, params, options);
  } catch (err) {
    throw forwardError(err, options);
  }
}

/** Options of {@link forwardForAgent}. */
export interface AgentForwardOptions extends ForwardTarget {
  /** Aborts the upstream request besides the agent's own signal (a caller's timer, a closing host). */
  signal?: AbortSignal;
  /** Called on every upstream progress notification; when set, progress is requested even if the agent asked none. */
  onProgress?: () => void;
  /** Told about a progress notification the agent's transport refused. */
  onProgressDropped?: (err: unknown) => void;
  /** `false` rethrows failures as they came (the caller maps them); default: mapped by {@link forwardError}. */
  mapErrors?: boolean;
}

/**
 * Forwards an agent request for the lifetime of one handler call: the agent request's own signal cancels
 * the upstream request (the upstream request ends before the handler does, so an abort of the handler
 * signal after the response reaches nothing), progress is relayed under the agent's token, and the last
 * progress notification is awaited before returning.
 *
 * @param request - method and params as the agent sent them (its progress token is replaced)
 * @param ctx - the agent request's handler context
 * @param options - the upstream, timeout and optional extra abort signal and progress hook
 * @returns the upstream's raw result
 * @throws ProtocolError - mapped by {@link forwardError}; with `mapErrors: false`, whatever the registry threw
 */
export async function forwardForAgent(
  request: { method: string; params: Obj | undefined },
  ctx: ServerContext,
  options: AgentForwardOptions,
): Promise<Obj> {
  const params = upstreamParams(request.params);
  const agentSignal = ctx.mcpReq.signal;
  let signal = agentSignal;
  let unlink: (() => void) | undefined;
  if (options.signal !== undefined) {
    const both = new AbortController();
    const unlinkAgent = linkAbort(agentSignal, both);
    const unlinkExtra = linkAbort(options.signal, both);
    unlink = () => {
      unlinkAgent();
      unlinkExtra();
    };
    signal = both.signal;
  }
  let relay: ProgressRelay | undefined;
  if (ctx.mcpReq._meta?.progressToken !== undefined) {
    relay = new ProgressRelay(options.onProgressDropped);
    relay.bind(ctx);
  }
  const forward: ForwardOptions = {
    registry: options.registry,
    upstream: options.upstream,
    timeoutMs: options.timeoutMs,
    signal,
    ...(relay !== undefined && { relay }),
    ...(options.onProgress !== undefined && { onProgress: options.onProgress }),
  };
  try {
    return await forwardUpstream(request.method, params, forward);
  } catch (err) {
    if (options.mapErrors === false) throw err;
    throw forwardError(err, options);
  } finally {
    unlink?.();
    if (relay !== undefined) {
      await relay.flush();
      relay.unbind();
    }
  }
}
