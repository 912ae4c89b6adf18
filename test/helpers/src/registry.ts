/**
 * The one test registry: an `UpstreamRegistry` (`@mcppipe/supervisor`'s consumer contract) whose upstreams are
 * either **fakes** that answer from a handler (`add`) or **real stdio processes** behind a real SDK v2 `Client`
 * (`TestRegistry.start`). It has no lifecycle machine: tests move phases by hand (`setPhase`) and restart upstreams
 * (`restart`) to exercise fail-fast and reconnect paths.
 *
 * Typed structurally (test-utils imports no package whose tests import it, see the README): pass the snapshot type
 * of the registry under test, `new TestRegistry<UpstreamSnapshot>()`, and the instance is an `UpstreamRegistry`.
 *
 * @module
 */
import { EventEmitter } from 'node:events';
import { McpPipeError } from '@mcppipe/errors';
import { Client, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { z } from 'zod';

/** The lifecycle phases of `@mcppipe/upstream-state`. */
export type TestPhase = 'connecting' | 'available' | 'recovering' | 'failed';

/** A forwarded JSON-RPC request: method and raw params. */
export interface TestRequest {
  method: string;
  params?: Record<string, unknown>;
}

/** The options of one forwarded request (the shape of the supervisor's `UpstreamRequestOptions`). */
export interface TestRequestOptions {
  signal?: AbortSignal;
  onprogress?: (progress: {
    progress: number;
    total?: number;
    message?: string;
    [key: string]: unknown;
  }) => void;
  timeoutMs?: number;
  resetTimeoutOnProgress?: boolean;
  maxTotalTimeoutMs?: number;
}

/** What this registry needs of a snapshot type `S` (the supervisor's `UpstreamSnapshot` has all of it). */
export interface SnapshotBase {
  name: string;
  spec: { name: string };
  phase: string;
  client: Client | undefined;
  generation: number;
  retryAfterMs: number | undefined;
}

/**
 * The default snapshot type: the fields above plus whatever else `blank` fills (every field of the supervisor's
 * `UpstreamSnapshot`). Tests pass that type instead: `new TestRegistry<UpstreamSnapshot>()`.
 */
export type TestSnapshot = SnapshotBase & { [field: string]: unknown };

/** Answers one forwarded request of a fake upstream. */
export type FakeHandler = (
  request: TestRequest,
  options: TestRequestOptions,
) => Promise<Record<string, unknown>>;

/** Answers a server→client request (sampling, elicitation, roots) from a stdio upstream. */
export type TestUpstreamRequestHandler = (
  upstream: string,
  request: TestRequest,
  extra: { signal: AbortSignal },
) => Promise<Record<string, unknown>>;

/** One real stdio upstream: a script run with `process.execPath`. */
export interface TestUpstreamSpec {
  name: string;
  script: string;
  args?: string[];
  env?: Record<string, string>;
}

/** Options of a {@link TestRegistry}. */
export interface TestRegistryOptions {
  /** `retryAfterMs` in the fail-fast error of an upstream that is not available, when its snapshot has none. */
  retryAfterMs?: number;
}

/** Results come back raw: every field the upstream sent is kept (zod's loose object is a Standard Schema). */
export const RAW = z.looseObject({});

/**
 * Defers responses by one microtask so that a progress notification read in the same chunk as the response is
 * dispatched first (the SDK dispatches notifications in a microtask and responses at once; SDK-V1-PROBE.md §0.7).
 */
function deferResponses(transport: Transport): void {
  const deliver = transport.onmessage;
  if (deliver === undefined) return;
  transport.onmessage = (message: JSONRPCMessage, extra) => {
    if ('id' in message && !('method' in message)) queueMicrotask(() => deliver(message, extra));
    else deliver(message, extra);
  };
}

/** The test registry (see the module comment). `S` is the snapshot type of the registry contract under test. */
export class TestRegistry<S extends SnapshotBase = TestSnapshot> extends EventEmitter {
  /** Every upstream's snapshot by name; tests may replace one (no event is emitted). */
  readonly snapshots = new Map<string, S>();
  /** Fake upstreams' handlers by name. */
  readonly handlers = new Map<string, FakeHandler>();
  /** Every forwarded request, in order. */
  readonly requests: { name: string; request: TestRequest; options: TestRequestOptions }[] = [];
  /** Names passed to `reinitialize`, in order. */
  readonly reinitialized: string[] = [];
  /** When set, requests fail fast with this phase although snapshots still say `available` (a race). */
  requestPhase: TestPhase | undefined;
  private readonly stdio = new Map<string, TestUpstreamSpec>();
  private upstreamHandler: TestUpstreamRequestHandler | undefined;

  constructor(private readonly options: TestRegistryOptions = {}) {
    super();
  }

  /**
   * Starts one real stdio upstream per spec and waits for their handshakes.
   *
   * @throws whatever the SDK throws when a handshake fails (every started upstream is closed first)
   */
  static async start<S extends SnapshotBase = TestSnapshot>(
    specs: readonly TestUpstreamSpec[],
    options: TestRegistryOptions = {},
  ): Promise<TestRegistry<S>> {
    const registry = new TestRegistry<S>(options);
    for (const spec of specs) {
      registry.stdio.set(spec.name, spec);
      registry.snapshots.set(
        spec.name,
        registry.blank(spec.name, {
          spec: {
            name: spec.name,
            transport: 'stdio',
            command: process.execPath,
            args: [spec.script, ...(spec.args ?? [])],
          },
          phase: 'connecting',
          capabilities: undefined,
          serverInfo: undefined,
          protocolVersion: undefined,
          era: undefined,
          connectedVia: undefined,
          generation: 0,
          lastChangeAt: Date.now(),
        } as unknown as Partial<S>),
      );
    }
    try {
      await Promise.all(specs.map((spec) => registry.connect(spec.name)));
    } catch (err) {
      await registry.close();
      throw err;
    }
    return registry;
  }

  private blank(name: string, extra: Partial<S>): S {
    const snapshot = {
      name,
      spec: { name, transport: 'stdio', command: 'fake' },
      phase: 'available',
      client: undefined,
      capabilities: { tools: {} },
      serverInfo: { name: `${name}-server`, version: '1.2.3' },
      instructions: undefined,
      protocolVersion: '2025-11-25',
      era: 'legacy',
      lastError: undefined,
      lastChangeAt: 0,
      pid: undefined,
      generation: 1,
      connectedVia: 'stdio',
      retryAfterMs: undefined,
      stderrTail: [],
    };
    return { ...snapshot, ...extra } as unknown as S;
  }

  /**
   * Adds a fake upstream answering from `handler`, `available` at generation 1 unless `extra` says otherwise;
   * `extra.hub` goes into the spec (the gateway's `"hub": false`).
   *
   * @returns this registry (chainable)
   */
  add(name: string, handler: FakeHandler, extra: Partial<S> & { hub?: boolean } = {}): this {
    const { hub, ...rest } = extra;
    const spec = { name, transport: 'stdio', command: 'fake', ...(hub === undefined ? {} : { hub }) };
    this.snapshots.set(name, this.blank(name, { spec, ...rest } as unknown as Partial<S>));
    this.handlers.set(name, handler);
    return this;
  }

  private snapshot(name: string): S {
    const s = this.snapshots.get(name);
    if (s === undefined)
      throw new McpPipeError('MCPP_SUP_UNKNOWN_UPSTREAM', `no upstream named ${JSON.stringify(name)}`, {
        data: { upstream: name },
      });
    return s;
  }

  private async connect(name: string): Promise<void> {
    const spec = this.stdio.get(name)!;
    const client = new Client(
      { name: 'mcppipe-test-registry', version: '0.0.0' },
      { capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } } },
    );
    client.fallbackNotificationHandler = async (n) => {
      this.emit('notification', {
        upstream: name,
        method: n.method,
        params: n.params as Record<string, unknown> | undefined,
      });
    };
    client.fallbackRequestHandler = async (request, ctx) => {
      if (this.upstreamHandler === undefined)
        throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'no upstream request handler');
      const forwarded: TestRequest = {
        method: request.method,
        ...(request.params ? { params: request.params } : {}),
      };
      return this.upstreamHandler(name, forwarded, { signal: ctx.mcpReq.signal });
    };
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [spec.script, ...(spec.args ?? [])],
      env: { ...(process.env as Record<string, string>), ...spec.env },
      stderr: 'ignore',
    });
    await client.connect(transport);
    deferResponses(transport);
    const s = this.snapshot(name);
    this.snapshots.set(name, {
      ...s,
      client,
      capabilities: client.getServerCapabilities() as Record<string, unknown> | undefined,
      serverInfo: client.getServerVersion(),
      instructions: client.getInstructions(),
      protocolVersion: '2025-11-25',
      era: 'legacy',
      connectedVia: 'stdio',
      generation: s.generation + 1,
    });
    this.setPhase(name, 'available');
  }

  list(): S[] {
    return [...this.snapshots.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  get(name: string): S | undefined {
    return this.snapshots.get(name);
  }

  /**
   * Forwards a request: a fake's handler, or a stdio upstream's client (raw result).
   *
   * @throws McpPipeError `MCPP_SUP_UNKNOWN_UPSTREAM` for an unknown name; `MCPP_SUP_UNAVAILABLE` (data: upstream,
   *   phase, retryAfterMs) when the upstream (or {@link TestRegistry.requestPhase}) is not `available`
   */
  async request(
    name: string,
    request: TestRequest,
    options: TestRequestOptions = {},
  ): Promise<Record<string, unknown>> {
    this.requests.push({ name, request, options });
    const s = this.snapshot(name);
    const phase = this.requestPhase ?? s.phase;
    if (phase !== 'available') {
      throw new McpPipeError('MCPP_SUP_UNAVAILABLE', `upstream ${JSON.stringify(name)} is ${phase}`, {
        data: { upstream: name, phase, retryAfterMs: s.retryAfterMs ?? this.options.retryAfterMs },
      });
    }
    const handler = this.handlers.get(name);
    if (handler !== undefined) return handler(request, options);
    if (s.client === undefined)
      throw new McpPipeError('MCPP_SUP_UNAVAILABLE', `upstream ${name} has no client`);
    return s.client.request(
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

  async notify(name: string, notification: TestRequest): Promise<void> {
    await this.snapshots.get(name)?.client?.notification(notification as { method: string });
  }

  /** Records the call; a `failed` stdio upstream reconnects (a new process). */
  async reinitialize(name: string): Promise<void> {
    this.reinitialized.push(name);
    const s = this.snapshots.get(name);
    if (s?.phase !== 'failed' || !this.stdio.has(name)) return;
    this.setPhase(name, 'connecting');
    await this.disconnect(name);
    await this.connect(name);
  }

  setUpstreamRequestHandler(handler: TestUpstreamRequestHandler | undefined): void {
    this.upstreamHandler = handler;
  }

  /** Test control: moves an upstream to a phase (a stdio client stays connected) and emits `state_changed`. */
  setPhase(name: string, phase: TestPhase, retryAfterMs?: number): void {
    const s = this.snapshot(name);
    const at = Date.now();
    this.snapshots.set(name, { ...s, phase, retryAfterMs, lastChangeAt: at });
    if (s.phase !== phase) this.emit('state_changed', { upstream: name, from: s.phase, to: phase, at });
  }

  /** Test control: an upstream's `notifications/tools/list_changed`. */
  listChanged(name: string): void {
    this.emit('notification', { upstream: name, method: 'notifications/tools/list_changed' });
  }

  /** Test control: a new process and connection for a stdio upstream (a reconnect: the generation goes up). */
  async restart(name: string): Promise<void> {
    this.setPhase(name, 'recovering', 0);
    await this.disconnect(name);
    await this.connect(name);
  }

  private async disconnect(name: string): Promise<void> {
    const s = this.snapshot(name);
    await s.client?.close().catch(() => undefined);
    this.snapshots.set(name, {
      ...s,
      client: undefined,
      capabilities: undefined,
      serverInfo: undefined,
      instructions: undefined,
      protocolVersion: undefined,
      era: undefined,
      connectedVia: undefined,
    });
  }

  /** Closes every stdio client (their processes end) and drops all listeners. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.stdio.keys()].map((name) => this.disconnect(name)));
    this.removeAllListeners();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
