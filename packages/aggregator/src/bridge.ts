/**
 * Bridges server→client requests of upstreams (sampling, elicitation, roots) to the agent whose call is in
 * flight on that upstream. Stdio carries no correlation for such requests, so the most recent call still
 * in flight on the upstream gets it (DESIGN.md "The SDK line and the two protocol eras"). A 2025-era agent
 * receives a real server→client request on the call's stream; a 2026-07-28 agent receives an
 * `input_required` result (see `flow.ts`).
 */
import type { ForwardedRequest, UpstreamRequestHandler } from '@mcppipe/supervisor';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { ClientCapabilities, ServerContext } from '@modelcontextprotocol/server';
import { BRIDGE_REQUEST_TIMEOUT_MS } from './defaults.js';
import { passthroughSchema } from '@mcppipe/supervisor';

type Obj = Record<string, unknown>;

/** Something an upstream's server→client request can be handed to. */
export interface BridgeTarget {
  bridge(request: ForwardedRequest, signal: AbortSignal): Promise<Obj>;
}

/** The calls in flight per upstream, most recent last. */
export class InflightCalls {
  private readonly byUpstream = new Map<string, BridgeTarget[]>();

  /** Registers a call; the returned function removes it. */
  add(upstream: string, target: BridgeTarget): () => void {
    let list = this.byUpstream.get(upstream);
    if (list === undefined) {
      list = [];
      this.byUpstream.set(upstream, list);
    }
    list.push(target);
    return () => {
      const current = this.byUpstream.get(upstream);
      const at = current?.lastIndexOf(target) ?? -1;
      if (current === undefined || at < 0) return;
      current.splice(at, 1);
      if (current.length === 0) this.byUpstream.delete(upstream);
    };
  }

  /** The most recent call in flight on `upstream`. */
  latest(upstream: string): BridgeTarget | undefined {
    return this.byUpstream.get(upstream)?.at(-1);
  }

  clear(): void {
    this.byUpstream.clear();
  }
}

const CAPABILITY_OF: Record<string, keyof ClientCapabilities> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

/**
 * Throws unless the agent declared the client capability `method` needs.
 *
 * @throws ProtocolError -32601 naming the method and the missing capability
 */
export function requireAgentCapability(method: string, capabilities: ClientCapabilities | undefined): void {
  const capability = CAPABILITY_OF[method];
  if (capability === undefined) {
    throw new ProtocolError(ProtocolErrorCode.MethodNotFound, `mcppipe does not bridge ${method} to agents`);
  }
  if (capabilities?.[capability] === undefined) {
    throw new ProtocolError(
      ProtocolErrorCode.MethodNotFound,
      `the agent does not support ${capability} (needed for ${method})`,
    );
  }
}

/** A 2025-era agent call: upstream requests become real server→client requests related to the call. */
export class LegacyBridge implements BridgeTarget {
  constructor(
    private readonly ctx: ServerContext,
    private readonly capabilities: () => ClientCapabilities | undefined,
  ) {}

  bridge(request: ForwardedRequest, signal: AbortSignal): Promise<Obj> {
    requireAgentCapability(request.method, this.capabilities());
    return this.ctx.mcpReq.send(
      { method: request.method, ...(request.params ? { params: request.params } : {}) },
      passthroughSchema,
      {
        signal: AbortSignal.any([signal, this.ctx.mcpReq.signal]),
        timeout: BRIDGE_REQUEST_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
      },
    );
  }
}

/**
 * The handler installed with `registry.setUpstreamRequestHandler`.
 *
 * @param inflight - the calls in flight
 * @returns a handler that bridges to the latest call on the requesting upstream
 */
export function upstreamRequestHandler(inflight: InflightCalls): UpstreamRequestHandler {
  return async (upstream, request, extra) => {
    const target = inflight.latest(upstream);
    if (target === undefined) {
      throw new ProtocolError(
        ProtocolErrorCode.MethodNotFound,
        `no agent request is in flight on upstream ${JSON.stringify(upstream)} to answer ${request.method}`,
      );
    }
    return target.bridge(request, extra.signal);
  };
}
