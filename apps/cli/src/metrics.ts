import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PolicyRefusal } from '@mcppipe/aggregator';
import type { UpstreamRegistry } from '@mcppipe/supervisor';
import type { Phase, StateChangedEvent } from '@mcppipe/upstream-state';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

const phases: readonly Phase[] = ['connecting', 'available', 'recovering', 'failed'];
const listMethods = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']);

/** Prometheus metrics of `mcppipe up` (DESIGN.md A9). */
export class Metrics {
  readonly registry = new Registry();
  readonly #phase = new Gauge({
    name: 'mcppipe_upstream_phase',
    help: '1 for the current lifecycle phase of each upstream',
    labelNames: ['upstream', 'phase'],
    registers: [this.registry],
  });
  readonly #recoveries = new Counter({
    name: 'mcppipe_upstream_recoveries_total',
    help: 'Returns to available after recovering',
    labelNames: ['upstream'],
    registers: [this.registry],
  });
  readonly #transitions = new Counter({
    name: 'mcppipe_upstream_transitions_total',
    help: 'Lifecycle transitions by target phase',
    labelNames: ['upstream', 'to'],
    registers: [this.registry],
  });
  readonly #fanout = new Counter({
    name: 'mcppipe_fanout_requests_total',
    help: 'List requests fanned out to upstreams',
    labelNames: ['upstream', 'method'],
    registers: [this.registry],
  });
  readonly #calls = new Counter({
    name: 'mcppipe_calls_total',
    help: 'Routed calls by upstream, method, tool and outcome',
    labelNames: ['upstream', 'method', 'tool', 'outcome'],
    registers: [this.registry],
  });
  readonly #latency = new Histogram({
    name: 'mcppipe_call_duration_seconds',
    help: 'Routed call latency',
    labelNames: ['upstream', 'method', 'tool'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
    registers: [this.registry],
  });

  readonly #denied = new Counter({
    name: 'mcppipe_policy_denied_total',
    help: 'Requests refused by a tool policy, by exposed name (or resource upstream) and caller',
    labelNames: ['name', 'caller'],
    registers: [this.registry],
  });
  readonly #limited = new Counter({
    name: 'mcppipe_ratelimited_total',
    help: 'Tool calls refused by a rate limit, by exposed name and caller',
    labelNames: ['name', 'caller'],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** Counts one request the policy refused (the policy gate's `onRefusal`). */
  readonly policyRefused = (refusal: PolicyRefusal): void => {
    const labels = { name: refusal.name, caller: refusal.caller };
    if (refusal.reason === 'denied') this.#denied.inc(labels);
    else this.#limited.inc(labels);
  };

  /** Records one lifecycle transition. */
  onStateChanged(event: StateChangedEvent): void {
    for (const p of phases) this.#phase.set({ upstream: event.upstream, phase: p }, p === event.to ? 1 : 0);
    this.#transitions.inc({ upstream: event.upstream, to: event.to });
    if (event.from === 'recovering' && event.to === 'available')
      this.#recoveries.inc({ upstream: event.upstream });
  }

  /** Sets the phase gauge for an upstream without a transition (at startup). */
  setPhase(upstream: string, phase: Phase): void {
    for (const p of phases) this.#phase.set({ upstream, phase: p }, p === phase ? 1 : 0);
  }

  /**
   * Wraps a registry so every request is counted and timed. Methods other than `request` pass through.
   *
   * @param inner - the supervisor (or any registry)
   */
  meter(inner: UpstreamRegistry): UpstreamRegistry {
    const request: UpstreamRegistry['request'] = async (name, req, options) => {
      if (listMethods.has(req.method)) {
        this.#fanout.inc({ upstream: name, method: req.method });
        return inner.request(name, req, options);
      }
      const tool = req.method === 'tools/call' ? String(req.params?.['name'] ?? '') : '';
      const labels = { upstream: name, method: req.method, tool };
      const end = this.#latency.startTimer(labels);
      try {
        const result = await inner.request(name, req, options);
        this.#calls.inc({ ...labels, outcome: result['isError'] === true ? 'tool_error' : 'ok' });
        return result;
      } catch (err) {
        this.#calls.inc({ ...labels, outcome: 'error' });
        throw err;
      } finally {
        end();
      }
    };
    const bound = new Map<PropertyKey, unknown>([['request', request]]); // bind each method once, not per access
    return new Proxy(inner, {
      get(target, prop) {
        if (bound.has(prop)) return bound.get(prop);
        const value: unknown = Reflect.get(target, prop, target);
        if (typeof value !== 'function') return value;
        const fn = (value as (...a: unknown[]) => unknown).bind(target);
        bound.set(prop, fn);
        return fn;
      },
    });
  }

  /**
   * Serves `GET /metrics` on `host:port`.
   *
   * @returns the listening server and its bound address
   */
  async listen(host: string, port: number): Promise<{ server: Server; address: AddressInfo }> {
    const server = createServer((req, res) => {
      if (req.url !== '/metrics') {
        res.writeHead(404).end();
        return;
      }
      this.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': this.registry.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, resolve);
    });
    return { server, address: server.address() as AddressInfo };
  }
}
