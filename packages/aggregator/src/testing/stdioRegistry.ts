/**
 * Test-only `UpstreamRegistry`: one real SDK v2 `Client` per upstream over stdio, real processes, real
 * protocol. It has no lifecycle machine: tests move phases by hand (`setPhase`) and restart upstreams
 * (`restart`) to exercise fail-fast and reconnect paths. Not part of the package's public API.
 */
import { EventEmitter } from 'node:events';
import { McpPipeError } from '@mcppipe/errors';
import type {
  ForwardedRequest,
  SupervisorEvents,
  UpstreamRegistry,
  UpstreamRequestHandler,
  UpstreamRequestOptions,
  UpstreamSnapshot,
} from '@mcppipe/supervisor';
import type { Phase } from '@mcppipe/upstream-state';
import { Client, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { passthroughSchema as RAW } from '@mcppipe/supervisor';

/** One upstream to start. */
export interface TestUpstreamSpec {
  name: string;
  /** Script run with `process.execPath`. */
  script: string;
  args?: string[];
  env?: Record<string, string>;
}

interface Upstream {
  spec: TestUpstreamSpec;
  client: Client | undefined;
  phase: Phase;
  generation: number;
  retryAfterMs: number | undefined;
  lastChangeAt: number;
}

/**
 * Defers responses by one microtask so that a progress notification read in the same chunk as the
 * response is dispatched first (the SDK dispatches notifications in a microtask and responses at once,
 * which drops such a final progress event; SDK-V1-PROBE.md §0.7).
 */
function deferResponses(transport: Transport): void {
  const deliver = transport.onmessage;
  if (deliver === undefined) return;
  transport.onmessage = (message: JSONRPCMessage, extra) => {
    if ('id' in message && !('method' in message)) queueMicrotask(() => deliver(message, extra));
    else deliver(message, extra);
  };
}

/** The test registry (see the module comment). */
export class StdioTestRegistry implements UpstreamRegistry {
  private readonly upstreams = new Map<string, Upstream>();
  private readonly events = new EventEmitter();
  private handler: UpstreamRequestHandler | undefined;
  /** Names passed to `reinitialize`, in order. */
  readonly reinitialized: string[] = [];

  /** Starts every upstream and waits for their handshakes. */
  static async start(specs: readonly TestUpstreamSpec[]): Promise<StdioTestRegistry> {
    const registry = new StdioTestRegistry();
    for (const spec of specs) {
      registry.upstreams.set(spec.name, {
        spec,
        client: undefined,
        phase: 'connecting',
        generation: 0,
        retryAfterMs: undefined,
        lastChangeAt: Date.now(),
      });
    }
    try {
      await Promise.all(specs.map((spec) => registry.connect(spec.name)));
    } catch (err) {
      await registry.close();
      throw err;
    }
    return registry;
  }

  private upstream(name: string): Upstream {
    const u = this.upstreams.get(name);
    if (u === undefined)
      throw new McpPipeError('MCPP_SUP_UNKNOWN_UPSTREAM', `no upstream named ${JSON.stringify(name)}`, {
        data: { upstream: name },
      });
    return u;
  }

  private async connect(name: string): Promise<void> {
    const u = this.upstream(name);
    const client = new Client(
      { name: 'mcppipe-test-registry', version: '0.0.0' },
      { capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } } },
    );
    client.fallbackNotificationHandler = async (n) => {
      this.events.emit('notification', {
        upstream: name,
        method: n.method,
        params: n.params as Record<string, unknown> | undefined,
      });
    };
    client.fallbackRequestHandler = async (request, ctx) => {
      if (this.handler === undefined)
        throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'no upstream request handler');
      const forwarded: ForwardedRequest = {
        method: request.method,
        ...(request.params ? { params: request.params } : {}),
      };
      return this.handler(name, forwarded, { signal: ctx.mcpReq.signal });
    };
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [u.spec.script, ...(u.spec.args ?? [])],
      env: { ...(process.env as Record<string, string>), ...u.spec.env },
      stderr: 'ignore',
    });
    await client.connect(transport);
    deferResponses(transport);
    u.client = client;
    u.generation += 1;
    this.setPhase(name, 'available');
  }

  list(): UpstreamSnapshot[] {
    return [...this.upstreams.keys()].sort().map((name) => this.snapshot(this.upstream(name)));
  }

  get(name: string): UpstreamSnapshot | undefined {
    const u = this.upstreams.get(name);
    return u === undefined ? undefined : this.snapshot(u);
  }

  private snapshot(u: Upstream): UpstreamSnapshot {
    const client = u.client;
    // Asserted rather than annotated: the snapshot type grows while the supervisor is being written.
    const snapshot = {
      name: u.spec.name,
      spec: {
        name: u.spec.name,
        transport: 'stdio',
        command: process.execPath,
        args: [u.spec.script, ...(u.spec.args ?? [])],
      },
      phase: u.phase,
      client,
      capabilities: client?.getServerCapabilities() as Record<string, unknown> | undefined,
      serverInfo: client?.getServerVersion() as UpstreamSnapshot['serverInfo'],
      instructions: client?.getInstructions(),
      protocolVersion: client === undefined ? undefined : '2025-11-25',
      era: client === undefined ? undefined : 'legacy',
      lastError: undefined,
      lastChangeAt: u.lastChangeAt,
      pid: undefined,
      generation: u.generation,
      connectedVia: client === undefined ? undefined : 'stdio',
      retryAfterMs: u.phase === 'recovering' ? (u.retryAfterMs ?? 0) : undefined,
      stderrTail: [],
    };
    return snapshot as UpstreamSnapshot;
  }

  async request(
    name: string,
    request: ForwardedRequest,
    options: UpstreamRequestOptions = {},
  ): Promise<Record<string, unknown>> {
    const u = this.upstream(name);
    if (u.phase !== 'available' || u.client === undefined) {
      throw new McpPipeError('MCPP_SUP_UNAVAILABLE', `upstream ${JSON.stringify(name)} is ${u.phase}`, {
        data: { upstream: name, phase: u.phase, retryAfterMs: u.retryAfterMs },
      });
    }
    return u.client.request(
      { method: request.method, ...(request.params ? { params: request.params } : {}) },
      RAW,
      {
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onprogress ? { onprogress: options.onprogress } : {}),
        timeout: options.timeoutMs ?? 60_000,
        resetTimeoutOnProgress: options.resetTimeoutOnProgress ?? false,
        ...(options.maxTotalTimeoutMs ? { maxTotalTimeout: options.maxTotalTimeoutMs } : {}),
      },
    );
  }

  async notify(name: string, notification: ForwardedRequest): Promise<void> {
    await this.upstream(name).client?.notification(notification as { method: string });
  }

  async reinitialize(name: string): Promise<void> {
    this.reinitialized.push(name);
    const u = this.upstream(name);
    if (u.phase !== 'failed') return;
    this.setPhase(name, 'connecting');
    await u.client?.close().catch(() => undefined);
    u.client = undefined;
    await this.connect(name);
  }

  setUpstreamRequestHandler(handler: UpstreamRequestHandler | undefined): void {
    this.handler = handler;
  }

  on<E extends keyof SupervisorEvents>(event: E, listener: (...args: SupervisorEvents[E]) => void): this {
    this.events.on(event, listener as (...args: unknown[]) => void);
    return this;
  }

  off<E extends keyof SupervisorEvents>(event: E, listener: (...args: SupervisorEvents[E]) => void): this {
    this.events.off(event, listener as (...args: unknown[]) => void);
    return this;
  }

  /** Test control: moves an upstream to a phase (the client stays connected) and emits `state_changed`. */
  setPhase(name: string, phase: Phase, retryAfterMs?: number): void {
    const u = this.upstream(name);
    const from = u.phase;
    u.phase = phase;
    u.retryAfterMs = retryAfterMs;
    u.lastChangeAt = Date.now();
    if (from !== phase)
      this.events.emit('state_changed', { upstream: name, from, to: phase, at: u.lastChangeAt });
  }

  /** Test control: a new process and connection (a reconnect: the generation goes up). */
  async restart(name: string): Promise<void> {
    const u = this.upstream(name);
    this.setPhase(name, 'recovering', 0);
    await u.client?.close().catch(() => undefined);
    u.client = undefined;
    await this.connect(name);
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.upstreams.values()].map((u) => u.client?.close()));
    for (const u of this.upstreams.values()) u.client = undefined;
    this.events.removeAllListeners();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
