import type { Logger, SupervisorEvents } from './types.js';

type Listener<E extends keyof SupervisorEvents> = (...args: SupervisorEvents[E]) => void;
type AnyListener = (...args: unknown[]) => void;

/** A small typed event emitter: a throwing listener is logged and never breaks the others. */
export class Emitter {
  readonly #listeners = new Map<keyof SupervisorEvents, Set<AnyListener>>();
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  on<E extends keyof SupervisorEvents>(event: E, listener: Listener<E>): void {
    let set = this.#listeners.get(event);
    if (!set) this.#listeners.set(event, (set = new Set()));
    set.add(listener as unknown as AnyListener);
  }

  off<E extends keyof SupervisorEvents>(event: E, listener: Listener<E>): void {
    this.#listeners.get(event)?.delete(listener as unknown as AnyListener);
  }

  emit<E extends keyof SupervisorEvents>(event: E, ...args: SupervisorEvents[E]): void {
    const set = this.#listeners.get(event);
    if (!set || set.size === 0) return;
    for (const listener of [...set]) {
      try {
        (listener as unknown as Listener<E>)(...args);
      } catch (err) {
        this.#logger.error(
          { event, err: err instanceof Error ? err.message : String(err) },
          'listener threw',
        );
      }
    }
  }
}

/** A logger that drops everything. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
