/**
 * Test-only: a small {@link UpstreamRegistry} over real stdio upstreams, each a real SDK v2 `Client`. It stands in
 * for `@mcppipe/supervisor` in the hub's tests: phases, generations, `state_changed` and `notification` events,
 * fail-fast requests when not available, and a bounded restart after an upstream exits. Not exported by the
 * package.
 */
import { EventEmitter } from 'node:events';
import { McpPipeError } from '@mcppipe/errors';
import type {
  ForwardedRequest,
  StdioUpstreamSpec,
  SupervisorEvents,
  UpstreamRegistry,
  UpstreamRequestOptions,
  UpstreamSnapshot,
} from '@mcppipe/supervisor';
import type { Phase } from '@mcppipe/upstream-state';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';

/** One upstream of a {@link StdioTestRegistry}: a node script (run with `process.execPath`). */
export interface TestUpstream {
  name: string;
  /** Script and arguments; the command is `process.execPath`. */
  args: string[];
  env?: Record<string, string>;
  /** `false` hides it from the hub (the gateway's `"hub": false`). */
  hub?: boolean;
}

const RAW = {
  '~standard': { version: 1 as const, vendor: 'mcppipe-test', validate: (value: unknown) => ({ value }) },
};
const START_TIMEOUT_MS = 30_000;
const MAX_RESTARTS = 5;

interface State {
  spec: StdioUpstreamSpec;
  env: Record<string, string> | undefined;
  phase: Phase;
  client: Client | undefined;
  transport: StdioClientTransport | undefined;
  generation: number;
  restarts: number;
  lastChangeAt: number;
  lastError: string | undefined;
}

/** A registry of real stdio upstreams; `await using registry = await StdioTestRegistry.start([...])`. */
export class StdioTestRegistry implements UpstreamRegistry {
  readonly #events = new EventEmitter();
  readonly #states = new Map<string, State>();
  readonly #restartDelayMs: number;
  #closed = false;

  private constructor(upstreams: TestUpstream[], restartDelayMs: number) {
    this.#restartDelayMs = restartDelayMs;
    for (const u of [...upstreams].sort((a, b) => a.name.localeCompare(b.name))) {
      const spec: StdioUpstreamSpec = {
        name: u.name,
        transport: 'stdio',
        command: process.execPath,
        args: u.args,
        ...(u.hub === undefined ? {} : { hub: u.hub }),
      };
      this.#states.set(u.name, {
        spec,
        env: u.env,
        phase: 'connecting',
        client: undefined,
        transport: undefined,
        generation: 0,
        restarts: 0,
        lastChangeAt: Date.now(),
        lastError: undefined,
      });
    }
  }

  /** Starts every upstream and resolves once all are available (rejects if one fails to start). */
  static async start(
    upstreams: TestUpstream[],
    options: { restartDelayMs?: number } = {},
  ): Promise<StdioTestRegistry> {
    const registry = new StdioTestRegistry(upstreams, options.restartDelayMs ?? 200);
    try {
      await Promise.all([...registry.#states.values()].map((s) => registry.#connect(s)));
    } catch (err) {
      await registry.close();
      throw err;
    }
    return registry;
  }

  list(): UpstreamSnapshot[] {
    return [...this.#states.values()].map((s) => this.#snapshot(s));
  }

  get(name: string): UpstreamSnapshot | undefined {
    const state = this.#states.get(name);
    return state && this.#snapshot(state);
  }

  async request(
    name: string,
    request: ForwardedRequest,
    options: UpstreamRequestOptions = {},
  ): Promise<Record<string, unknown>> {
    const state = this.#states.get(name);
    if (!state) throw new McpPipeError('MCPP_SUP_UNKNOWN_UPSTREAM', `no upstream named ${name}`);
    if (state.phase !== 'available' || !state.client) {
      throw new McpPipeError('MCPP_SUP_UNAVAILABLE', `upstream ${name} is ${state.phase}`, {
        data: { upstream: name, phase: state.phase, retryAfterMs: this.#restartDelayMs },
      });
    }
    const result = await state.client.request(
      { method: request.method, params: request.params ?? {} } as Parameters<Client['request']>[0],
      RAW,
      {
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onprogress ? { onprogress: options.onprogress } : {}),
        timeout: options.timeoutMs ?? 60_000,
        resetTimeoutOnProgress: options.resetTimeoutOnProgress ?? false,
        ...(options.maxTotalTimeoutMs === undefined ? {} : { maxTotalTimeout: options.maxTotalTimeoutMs }),
      },
    );
    return result as Record<string, unknown>;
  }

  async notify(name: string, notification: ForwardedRequest): Promise<void> {
    await this.#states
      .get(name)
      ?.client?.notification({ method: notification.method, params: notification.params });
  }

  async reinitialize(): Promise<void> {}

  setUpstreamRequestHandler(): void {}

  on<E extends keyof SupervisorEvents>(event: E, listener: (...args: SupervisorEvents[E]) => void): this {
    this.#events.on(event, listener as (...args: unknown[]) => void);
    return this;
  }

  off<E extends keyof SupervisorEvents>(event: E, listener: (...args: SupervisorEvents[E]) => void): this {
    this.#events.off(event, listener as (...args: unknown[]) => void);
    return this;
  }

  /** The pid of an upstream's process, while it runs. */
  pid(name: string): number | undefined {
    return this.#states.get(name)?.transport?.pid ?? undefined;
  }

  /** Kills an upstream's process (SIGKILL); the registry restarts it like an exit. */
  kill(name: string): void {
    const pid = this.pid(name);
    if (pid !== undefined) process.kill(pid, 'SIGKILL');
  }

  /** Stops every upstream; no restarts afterwards. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#states.values()].map((s) => s.client?.close().catch(() => undefined)));
    this.#events.removeAllListeners();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #snapshot(s: State): UpstreamSnapshot {
    const client = s.phase === 'available' ? s.client : undefined;
    // Built as a variable (no excess-property check) so it fits the contract before and after the supervisor
    // added connectedVia, retryAfterMs and stderrTail.
    const snapshot = {
      name: s.spec.name,
      spec: s.spec,
      phase: s.phase,
      client,
      capabilities: s.client?.getServerCapabilities() as Record<string, unknown> | undefined,
      serverInfo: s.client?.getServerVersion() as UpstreamSnapshot['serverInfo'],
      instructions: s.client?.getInstructions(),
      protocolVersion: s.client?.getNegotiatedProtocolVersion(),
      era: s.client ? ('legacy' as const) : undefined,
      lastError: s.lastError,
      lastChangeAt: s.lastChangeAt,
      pid: s.transport?.pid ?? undefined,
      generation: s.generation,
      connectedVia: s.client ? ('stdio' as const) : undefined,
      retryAfterMs: s.phase === 'recovering' ? this.#restartDelayMs : undefined,
      stderrTail: [] as string[],
    };
    return snapshot;
  }

  #setPhase(s: State, to: Phase, error?: string): void {
    const from = s.phase;
    if (from === to) return;
    s.phase = to;
    s.lastChangeAt = Date.now();
    if (error !== undefined) s.lastError = error;
    this.#events.emit('state_changed', {
      upstream: s.spec.name,
      from,
      to,
      at: s.lastChangeAt,
      ...(error === undefined ? {} : { error }),
    });
  }

  async #connect(s: State): Promise<void> {
    const client = new Client({ name: 'mcppipe-hub-test', version: '0.0.0' });
    const transport = new StdioClientTransport({
      command: s.spec.command,
      args: s.spec.args ?? [],
      env: { ...getDefaultEnvironment(), ...s.env },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', () => {}); // drain, never inherit
    client.fallbackNotificationHandler = async (n) => {
      this.#events.emit('notification', { upstream: s.spec.name, method: n.method, params: n.params });
    };
    client.onclose = () => this.#onClose(s, client);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${s.spec.name} did not start in time`)), START_TIMEOUT_MS);
    });
    try {
      await Promise.race([client.connect(transport), timeout]);
    } catch (err) {
      await client.close().catch(() => undefined);
      throw err;
    } finally {
      clearTimeout(timer);
    }
    if (this.#closed) {
      await client.close();
      return;
    }
    s.client = client;
    s.transport = transport;
    s.generation++;
    this.#setPhase(s, 'available');
  }

  #onClose(s: State, client: Client): void {
    if (this.#closed || s.client !== client) return;
    s.client = undefined;
    s.transport = undefined;
    this.#setPhase(s, 'recovering', 'connection closed');
    if (s.restarts >= MAX_RESTARTS) {
      this.#setPhase(s, 'failed', 'too many restarts');
      return;
    }
    s.restarts++;
    setTimeout(() => {
      if (this.#closed) return;
      this.#connect(s).catch((err: unknown) => this.#setPhase(s, 'failed', String(err)));
    }, this.#restartDelayMs);
  }
}
