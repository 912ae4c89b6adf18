/**
 * A routed call served to a 2026-07-28 agent, which has no server→client request channel. When the
 * upstream asks for sampling, elicitation or roots while the call runs, the request is parked and the agent
 * gets `input_required` with the parked requests and `requestState` = the flow id; the agent fulfils them
 * and retries the call with `inputResponses`, which resolve the parked requests, and the same upstream call
 * goes on. Between legs the flow waits at most `ttlMs`, then cancels the upstream call.
 */
import { randomUUID } from 'node:crypto';
import type { ForwardedRequest } from '@mcppipe/supervisor';
import { CLIENT_CAPABILITIES_META_KEY, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { ClientCapabilities, ServerContext } from '@modelcontextprotocol/server';
import type { BridgeTarget } from './bridge.js';
import { requireAgentCapability } from './bridge.js';
import { ProgressRelay, linkAbort } from './forward.js';

type Obj = Record<string, unknown>;

interface Parked {
  request: ForwardedRequest;
  resolve(value: Obj): void;
  reject(reason: unknown): void;
}

type Settled = { ok: true; value: Obj } | { ok: false; error: unknown };

/** The neutral input request for one parked upstream request. */
function inputRequestOf(request: ForwardedRequest): Obj {
  const params = request.params;
  if (request.method === 'elicitation/create' && params !== undefined && params['mode'] === undefined) {
    return { method: request.method, params: { ...params, mode: 'form' } };
  }
  return params === undefined ? { method: request.method } : { method: request.method, params };
}

/** One multi-round-trip call (see the module comment). */
export class Flow implements BridgeTarget {
  /** Aborting it cancels the upstream call. */
  readonly controller = new AbortController();
  /** Receives the upstream's progress; bound to the current leg. */
  readonly relay = new ProgressRelay();
  private idValue: string | undefined;
  private readonly parked = new Map<string, Parked>();
  private seq = 0;
  private settled: Settled | undefined;
  private wake: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private capabilities: ClientCapabilities | undefined;

  constructor(
    readonly upstream: string,
    readonly method: string,
    private readonly options: { ttlMs: number; onEnd: (flow: Flow) => void },
  ) {}

  /** The flow id, minted when the flow first needs the agent. */
  get id(): string {
    this.idValue ??= randomUUID();
    return this.idValue;
  }

  /** Whether an id was minted (the flow is registered for retries). */
  get hasId(): boolean {
    return this.idValue !== undefined;
  }

  /** Starts following the upstream call. */
  attach(call: Promise<Obj>): void {
    call.then(
      (value) => this.settle({ ok: true, value }),
      (error: unknown) => this.settle({ ok: false, error }),
    );
  }

  private settle(settled: Settled): void {
    this.settled = settled;
    this.wake?.();
  }

  /** Parks an upstream request until the agent answers it in a retry. */
  bridge(request: ForwardedRequest, signal: AbortSignal): Promise<Obj> {
    requireAgentCapability(request.method, this.capabilities);
    return new Promise<Obj>((resolve, reject) => {
      const key = `r${++this.seq}`;
      this.parked.set(key, { request, resolve, reject });
      signal.addEventListener(
        'abort',
        () => {
          if (this.parked.delete(key)) reject(signal.reason);
        },
        { once: true },
      );
      this.wake?.();
    });
  }

  /**
   * Serves one agent request of the flow: delivers its input responses, then resolves with the upstream
   * result, or with `input_required` when the upstream asks the agent something.
   */
  async leg(ctx: ServerContext): Promise<Obj> {
    this.clearTimer();
    this.capabilities = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[
      CLIENT_CAPABILITIES_META_KEY
    ] as ClientCapabilities | undefined;
    const responses = ctx.mcpReq.inputResponses;
    if (responses !== undefined) {
      for (const [key, value] of Object.entries(responses)) {
        const parked = this.parked.get(key);
        if (parked === undefined) continue;
        this.parked.delete(key);
        parked.resolve(value as Obj);
      }
    }
    this.relay.bind(ctx);
    const unlink = linkAbort(ctx.mcpReq.signal, this.controller);
    try {
      for (;;) {
        const settled = this.settled;
        if (settled !== undefined) {
          this.end();
          if (settled.ok) return settled.value;
          throw settled.error;
        }
        if (this.parked.size > 0) {
          this.armTimer();
          const inputRequests: Obj = {};
          for (const [key, parked] of this.parked) inputRequests[key] = inputRequestOf(parked.request);
          return { resultType: 'input_required', inputRequests, requestState: this.id };
        }
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        this.wake = undefined;
      }
    } finally {
      unlink();
      await this.relay.flush();
      this.relay.unbind();
    }
  }

  /** Ends the flow: cancels the upstream call if still running, refuses parked requests. */
  end(reason?: string): void {
    this.clearTimer();
    if (this.settled === undefined) this.controller.abort(new Error(reason ?? 'flow ended'));
    if (this.parked.size > 0) {
      // created only when some request is still parked (a completed call has none)
      const error = new ProtocolError(ProtocolErrorCode.InternalError, reason ?? 'the agent request ended');
      for (const parked of this.parked.values()) parked.reject(error);
      this.parked.clear();
    }
    this.options.onEnd(this);
  }

  private armTimer(): void {
    this.clearTimer();
    this.timer = setTimeout(
      () => this.end('the agent did not answer the input request in time'),
      this.options.ttlMs,
    );
    this.timer.unref();
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
