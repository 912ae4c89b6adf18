import type { AggregatorEvents, Logger } from './types.js';

type Listener<E extends keyof AggregatorEvents> = (...args: AggregatorEvents[E]) => void;

/** A tiny typed emitter whose listeners cannot break the aggregator: their errors are logged. */
export class SafeEmitter {
  private readonly listeners: { [E in keyof AggregatorEvents]: Set<Listener<E>> } = {
    list_changed: new Set(),
    resource_updated: new Set(),
  };

  constructor(private readonly logger: Logger) {}

  on<E extends keyof AggregatorEvents>(event: E, listener: Listener<E>): void {
    (this.listeners[event] as Set<Listener<E>>).add(listener);
  }

  off<E extends keyof AggregatorEvents>(event: E, listener: Listener<E>): void {
    (this.listeners[event] as Set<Listener<E>>).delete(listener);
  }

  emit<E extends keyof AggregatorEvents>(event: E, ...args: AggregatorEvents[E]): void {
    for (const listener of [...(this.listeners[event] as Set<Listener<E>>)]) {
      try {
        listener(...args);
      } catch (err) {
        this.logger.error(
          { event, err: err instanceof Error ? err.message : String(err) },
          'aggregator event listener threw',
        );
      }
    }
  }

  clear(): void {
    this.listeners.list_changed.clear();
    this.listeners.resource_updated.clear();
  }
}
