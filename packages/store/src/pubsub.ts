import type { StoreLogger } from './types.js';

/** Handlers by channel, with delivery that isolates a throwing handler (shared by both backends). */
export class Subscribers {
  readonly #byChannel = new Map<string, Set<(message: string) => void>>();

  constructor(private readonly logger: StoreLogger | undefined) {}

  /** Adds a handler; returns whether it is the channel's first. */
  add(channel: string, fn: (message: string) => void): boolean {
    let set = this.#byChannel.get(channel);
    const first = set === undefined;
    if (!set) this.#byChannel.set(channel, (set = new Set()));
    set.add(fn);
    return first;
  }

  /** Removes a handler; returns whether the channel has none left. */
  remove(channel: string, fn: (message: string) => void): boolean {
    const set = this.#byChannel.get(channel);
    if (!set?.delete(fn)) return false;
    if (set.size > 0) return false;
    this.#byChannel.delete(channel);
    return true;
  }

  /** Delivers a message to the channel's handlers. */
  deliver(channel: string, message: string): void {
    const set = this.#byChannel.get(channel);
    if (!set) return;
    for (const fn of [...set]) {
      try {
        fn(message);
      } catch (err) {
        this.logger?.error({ channel, err: (err as Error).message }, 'a store subscriber threw; ignored');
      }
    }
  }

  clear(): void {
    this.#byChannel.clear();
  }
}
