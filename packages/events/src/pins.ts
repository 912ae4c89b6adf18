import { createHash } from 'node:crypto';
import { unknownToolError } from './errors.js';
import type { EventsStore } from './store.js';
import { silentLogger, type Logger, type ToolChangedData } from './types.js';

/** The parts of a listed tool that are pinned (E4); other fields are ignored. */
export interface PinnableTool {
  name: string;
  description?: string | undefined;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
  [key: string]: unknown;
}

/** One tool as the pins API shows it. */
export interface PinnedTool {
  name: string;
  /** The pinned hash (`sha256:<hex>`). */
  pin: string;
  /** The hash last seen. */
  hash: string;
  /** The last seen definition differs from the pin (held back while `hold` is on). */
  changed: boolean;
  /** ISO 8601 time the pin was taken or last accepted; null for pins saved before it was recorded. */
  pinnedAt: string | null;
}

/**
 * JSON with object keys sorted at every level and `undefined` members dropped: equal values give equal text
 * whatever the key order an upstream used.
 *
 * @param value - JSON-compatible data
 * @returns the canonical text
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.keys(value)
    .sort()
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

const hashes = new WeakMap<object, string>();

/**
 * The pin hash of a tool: SHA-256 over the canonical JSON of its description, input schema, output schema and
 * annotations (E4). Cached per tool object, so re-filtering a cached list costs no hashing.
 *
 * @param tool - a tool as listed by its upstream
 * @returns `sha256:<hex>`
 */
export function toolHash(tool: PinnableTool): string {
  const cached = hashes.get(tool);
  if (cached) return cached;
  const { description, inputSchema, outputSchema, annotations } = tool;
  const text = canonicalJson({ description, inputSchema, outputSchema, annotations });
  const hash = `sha256:${createHash('sha256').update(text).digest('hex')}`;
  hashes.set(tool, hash);
  return hash;
}

/** Options of {@link ToolPins.open}. */
export interface ToolPinsOptions {
  /** Where pins are kept. Default: memory only. */
  store?: EventsStore;
  /** The store key of this scope, e.g. `pins` or `pins.<tunnel>`. Default `pins`. */
  storeKey?: string;
  /** The tunnel's id in `tool.changed`, or null for the gateway's own servers. Default null. */
  tunnel?: string | null;
  /** Hide changed tools from the lists until accepted (`hold-changed-tools`). Default false. */
  hold?: boolean;
  /** Called once per change (publish it as `tool.changed`). */
  onChange?: (data: ToolChangedData) => void;
  logger?: Logger;
}

type Entry = { pin: string; hash: string; pinnedAt?: number };

const shown = (name: string, e: Entry): PinnedTool => ({
  name,
  pin: e.pin,
  hash: e.hash,
  changed: e.hash !== e.pin,
  pinnedAt: e.pinnedAt === undefined ? null : new Date(e.pinnedAt).toISOString(),
});

/**
 * Tool pins of one scope (E4): the first hash seen of each tool is its pin; a different hash later raises one
 * `tool.changed` per change and marks the tool changed; with `hold` on, {@link ToolPins.filter} hides changed tools
 * until {@link ToolPins.accept}. Hosts call `filter` where a tool list is built (aggregator, hub, proxy).
 */
export class ToolPins {
  readonly #pins = new Map<string, Map<string, Entry>>();
  readonly #o: ToolPinsOptions;
  readonly #logger: Logger;
  /** Hide changed tools from lists. */
  hold: boolean;

  private constructor(options: ToolPinsOptions) {
    this.#o = options;
    this.hold = options.hold ?? false;
    this.#logger = options.logger ?? silentLogger;
  }

  /**
   * Creates the pins of one scope, loading saved ones.
   *
   * @param options - see {@link ToolPinsOptions}
   */
  static async open(options: ToolPinsOptions = {}): Promise<ToolPins> {
    const pins = new ToolPins(options);
    const key = options.storeKey ?? 'pins';
    await pins.#load(key);
    // many nodes (S1): pins taken or accepted through another node are read here
    await options.store?.watch?.((k) => {
      if (k === key)
        pins.#load(key).catch((err: unknown) => {
          pins.#logger.error({ err: (err as Error).message }, 'reloading tool pins failed');
        });
    });
    return pins;
  }

  async #load(key: string): Promise<void> {
    const saved = (await this.#o.store?.read(key)) as Record<string, Record<string, Entry>> | undefined;
    for (const [upstream, tools] of Object.entries(saved ?? {})) {
      this.#pins.set(upstream, new Map(Object.entries(tools)));
    }
  }

  #save(): void {
    const doc = Object.fromEntries([...this.#pins].map(([u, tools]) => [u, Object.fromEntries(tools)]));
    this.#o.store?.write(this.#o.storeKey ?? 'pins', doc).catch((err: unknown) => {
      this.#logger.error({ err: (err as Error).message }, 'saving tool pins failed');
    });
  }

  /**
   * Records an upstream's freshly listed tools: pins new ones, raises `onChange` for each new change.
   *
   * @param upstream - the upstream's name
   * @param tools - its tools as listed
   * @returns the changes raised by this call
   */
  observe(upstream: string, tools: readonly PinnableTool[]): ToolChangedData[] {
    let table = this.#pins.get(upstream);
    if (!table) this.#pins.set(upstream, (table = new Map()));
    const changes: ToolChangedData[] = [];
    let dirty = false;
    for (const tool of tools) {
      const hash = toolHash(tool);
      const entry = table.get(tool.name);
      if (!entry) {
        table.set(tool.name, { pin: hash, hash, pinnedAt: Date.now() });
        dirty = true;
      } else if (entry.hash !== hash) {
        entry.hash = hash;
        dirty = true;
        if (hash !== entry.pin) {
          changes.push({
            tunnel: this.#o.tunnel ?? null,
            upstream,
            tool: tool.name,
            before: entry.pin,
            after: hash,
          });
        }
      }
    }
    if (dirty) this.#save();
    for (const change of changes) this.#o.onChange?.(change);
    return changes;
  }

  /**
   * {@link ToolPins.observe}, then the list as agents may see it: without changed tools while `hold` is on.
   *
   * @param upstream - the upstream's name
   * @param tools - its tools as listed
   * @returns `tools` itself when nothing is hidden
   */
  filter<T extends PinnableTool>(upstream: string, tools: readonly T[]): readonly T[] {
    this.observe(upstream, tools);
    if (!this.hold) return tools;
    const table = this.#pins.get(upstream)!;
    const visible = tools.filter((t) => {
      const e = table.get(t.name);
      return e === undefined || e.hash === e.pin;
    });
    return visible.length === tools.length ? tools : visible;
  }

  /** @returns the names of the upstreams with pins */
  upstreams(): string[] {
    return [...this.#pins.keys()];
  }

  /** @returns the upstream's pinned tools, in name order */
  list(upstream: string): PinnedTool[] {
    const table = this.#pins.get(upstream) ?? new Map<string, Entry>();
    return [...table]
      .map(([name, e]) => shown(name, e))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /**
   * Accepts a tool's current definition as its new pin (it shows again while holding).
   *
   * @returns the tool as now pinned
   * @throws McpPipeError `MCPP_EVENTS_UNKNOWN_TOOL`
   */
  accept(upstream: string, tool: string): PinnedTool {
    const entry = this.#pins.get(upstream)?.get(tool);
    if (!entry) throw unknownToolError(upstream, tool);
    entry.pin = entry.hash;
    entry.pinnedAt = Date.now();
    this.#save();
    return shown(tool, entry);
  }
}
