/**
 * Forwards one agent request to one upstream: `_meta` goes along (the agent's progress token is replaced
 * by the SDK's own), progress comes back under the agent's token, cancellation is forwarded at once, and
 * the result is returned raw. Errors are mapped once, by {@link toJsonRpcError}.
 */
import type { UpstreamRegistry } from '@mcppipe/supervisor';
import type { ServerContext, StandardSchemaV1 } from '@modelcontextprotocol/server';
import { toJsonRpcError } from './errors.js';

type Obj = Record<string, unknown>;

/** An identity Standard Schema: results pass through exactly as received (unknown fields kept). */
export const RAW: StandardSchemaV1<Obj, Obj> = {
  '~standard': { version: 1, vendor: 'mcppipe', validate: (value) => ({ value: value as Obj }) },
};

/**
 * Re-emits upstream progress to one agent request under the agent's own token. The target can change
 * (a 2026-07-28 flow spans several agent requests) or be absent (progress between legs is dropped).
 * Notifications are chained, so `flush()` resolves once the last one was handed to the transport.
 */
export class ProgressRelay {
  private target: { ctx: ServerContext; token: string | number } | undefined;
  private chain: Promise<void> = Promise.resolve();

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
    this.chain = this.chain
      .then(() => target.ctx.mcpReq.notify({ method: 'notifications/progress', params } as never))
      .catch(() => undefined);
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

/** What {@link forwardRequest} needs besides the request. */
export interface ForwardOptions {
  registry: UpstreamRegistry;
  upstream: string;
  timeoutMs: number;
  /** Aborts the upstream request (sends `notifications/cancelled`). */
  signal: AbortSignal;
  /** Receives the upstream's progress; none means no progress is requested. */
  relay?: ProgressRelay;
}

/**
 * Sends one request to an upstream and returns its raw result.
 *
 * @throws ProtocolError - the upstream's JSON-RPC error unchanged, or the mapped local error
 */
export async function forwardRequest(
  method: string,
  params: Obj | undefined,
  options: ForwardOptions,
): Promise<Obj> {
  const { registry, upstream, relay } = options;
  try {
    return await registry.request(upstream, params === undefined ? { method } : { method, params }, {
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      resetTimeoutOnProgress: true,
      ...(relay === undefined ? {} : { onprogress: (p) => relay.send(p) }),
    });
  } catch (err) {
    throw toJsonRpcError(err, upstream);
  }
}

/**
 * Forwards an agent request for the lifetime of one handler call: the agent request's own signal cancels
 * the upstream request (the upstream request ends before the handler does, so an abort of the handler
 * signal after the response reaches nothing), progress is relayed under the agent's token, and the last
 * progress notification is awaited before returning.
 */
export async function forwardForAgent(
  request: { method: string; params: Obj | undefined },
  ctx: ServerContext,
  options: Omit<ForwardOptions, 'signal' | 'relay'>,
): Promise<Obj> {
  const params = upstreamParams(request.params);
  if (ctx.mcpReq._meta?.progressToken === undefined)
    return forwardRequest(request.method, params, { ...options, signal: ctx.mcpReq.signal });
  const relay = new ProgressRelay();
  relay.bind(ctx);
  try {
    return await forwardRequest(request.method, params, { ...options, signal: ctx.mcpReq.signal, relay });
  } finally {
    await relay.flush();
    relay.unbind();
  }
}
