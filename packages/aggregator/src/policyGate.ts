/**
 * The one place where tool policies and rate limits (`@mcppipe/policy`, DESIGN.md P1–P3) meet MCP requests. The
 * aggregate server (`/mcp`, `mcppipe up`), the per-server proxy and the hub all take the same {@link PolicyGate}:
 * lists are filtered, a denied name is answered exactly like an unknown one (the host's own unknown-name error),
 * and a `tools/call` over a limit is refused with `MCPP_POLICY_RATE_LIMITED` (-31429 on the wire). The policy is
 * swapped atomically with {@link PolicyGate.set} (hot reload); every request reads the policy once.
 *
 * @module
 */
import { ANONYMOUS, rateLimitedError } from '@mcppipe/policy';
import type { Caller, Limiter, LimitResult, Policy, PolicyKind } from '@mcppipe/policy';
import type { ServerContext } from '@modelcontextprotocol/server';
import type { Logger } from './types.js';

/** Why a request was refused by the gate. */
export type PolicyRefusalReason = 'denied' | 'limited';

/** One refused request, for metrics (`mcppipe_policy_denied_total`, `mcppipe_ratelimited_total`). */
export interface PolicyRefusal {
  reason: PolicyRefusalReason;
  /** What was refused: a tool or prompt's exposed name, or a resource's upstream name. */
  kind: PolicyKind;
  name: string;
  caller: Caller;
  /** For `limited`: how long until the call would pass. */
  retryAfterMs?: number;
}

/** What a request asks for, for {@link PolicyGate.check}. */
export interface PolicyQuery {
  /** `tool`, `prompt` or `resource`. */
  kind: PolicyKind;
  /** An exposed tool or prompt name, or a resource's upstream name. */
  name: string;
  /** From {@link PolicyGate.callerOf}. */
  caller: Caller;
}

/** How {@link PolicyGate.filter} reads a list. */
export interface ListView<T> {
  /** What the items are. */
  kind: PolicyKind;
  /** The request's caller. */
  caller: Caller;
  /** The name the policy is asked about (exposed name, or a resource's upstream). */
  nameOf: (item: T) => string;
}

/** Options of {@link createPolicyGate}. */
export interface PolicyGateOptions {
  /** The compiled policy to start with; none: everything is allowed and nothing is limited. */
  policy?: Policy | undefined;
  /**
   * Who sent a request. Default: the OAuth client id the transport verified (`ctx.http.authInfo.clientId`), else
   * `anonymous`. Hosts with API keys return the key's name.
   */
  callerOf?: (ctx: ServerContext) => Caller;
  /** Called for every refused request (count it); never throws into the request. */
  onRefusal?: (refusal: PolicyRefusal) => void;
  /** Refusals are logged at `info`, at most once per (reason, caller, name) per {@link logIntervalMs}. */
  logger?: Logger;
  /** Default 60 000 (once a minute). */
  logIntervalMs?: number;
  /** Milliseconds clock for the log throttle. Default `Date.now`. */
  now?: () => number;
}

/** Most (reason, caller, name) keys remembered by the log throttle; beyond it the oldest are forgotten. */
const MAX_LOG_KEYS = 10_000;
/** Most callers whose filtered lists are remembered per list version. */
const MAX_CACHED_CALLERS = 1_000;

interface Live {
  policy: Policy;
  limiter: Limiter<LimitResult>;
}

/**
 * Policy enforcement for MCP hosts (P3): one instance per host process, shared by every server it builds.
 * Build it with {@link createPolicyGate}.
 */
export class PolicyGate {
  #live: Live | undefined;
  readonly #callerOf: (ctx: ServerContext) => Caller;
  readonly #onRefusal: ((refusal: PolicyRefusal) => void) | undefined;
  readonly #logger: Logger | undefined;
  readonly #logIntervalMs: number;
  readonly #now: () => number;
  readonly #logged = new Map<string, number>();
  /** Filtered lists per source list and caller, for the live policy only. */
  #lists = new WeakMap<readonly object[], Map<Caller, readonly object[]>>();

  constructor(options: PolicyGateOptions = {}) {
    this.#callerOf = options.callerOf ?? defaultCallerOf;
    this.#onRefusal = options.onRefusal;
    this.#logger = options.logger;
    this.#logIntervalMs = options.logIntervalMs ?? 60_000;
    this.#now = options.now ?? Date.now;
    this.set(options.policy);
  }

  /** The live policy, if any. */
  get policy(): Policy | undefined {
    return this.#live?.policy;
  }

  /**
   * Makes `policy` the live one (hot reload): requests that start after this see only the new rules and a new
   * limiter (its buckets start full). `undefined` turns enforcement off.
   *
   * @param policy - a compiled policy (`compilePolicy`), or `undefined`
   */
  set(policy: Policy | undefined): void {
    this.#live = policy === undefined ? undefined : { policy, limiter: policy.limiter() };
    this.#lists = new WeakMap();
  }

  /**
   * The caller of a request: `callerOf(ctx)`, by default the OAuth client id, else `anonymous`.
   *
   * @param ctx - the request's handler context
   */
  callerOf(ctx: ServerContext): Caller {
    return this.#callerOf(ctx);
  }

  /**
   * Whether `caller` may see and use `name`. Does not count or log: for lists and suggestions.
   *
   * @param kind - `tool`, `prompt` or `resource`
   * @param name - an exposed tool or prompt name, or a resource's upstream name
   * @param caller - from {@link PolicyGate.callerOf}
   */
  allows(kind: PolicyKind, name: string, caller: Caller): boolean {
    const live = this.#live;
    return live === undefined || live.policy.allows(kind, name, caller);
  }

  /**
   * Checks a request for a name (a call, `prompts/get`, `resources/read`…): on a denial the refusal is counted and
   * logged, and `refuse()` (the host's own unknown-name error) is thrown.
   *
   * @param query - what the name is, the name, and the caller
   * @param refuse - builds the error the host answers for an unknown name
   * @throws whatever `refuse` returns, when the policy denies
   */
  check(query: PolicyQuery, refuse: () => Error): void {
    const { kind, name, caller } = query;
    if (this.allows(kind, name, caller)) return;
    this.#refused({ reason: 'denied', kind, name, caller });
    throw refuse();
  }

  /**
   * Takes a token for a `tools/call` of `name` (after {@link PolicyGate.check}).
   *
   * @param name - the exposed tool name
   * @param caller - the request's caller
   * @throws McpPipeError `MCPP_POLICY_RATE_LIMITED` (`data: { retryAfterMs, limit }`) when a limit refuses
   */
  take(name: string, caller: Caller): void {
    const live = this.#live;
    if (live === undefined) return;
    const result = live.limiter.take(caller, name);
    if (result.ok) return;
    this.#refused({ reason: 'limited', kind: 'tool', name, caller, retryAfterMs: result.retryAfterMs });
    throw rateLimitedError(name, result);
  }

  /**
   * A list as `caller` may see it: the input array itself when nothing is removed, and the same filtered array
   * for the same input list and caller (so a serialized result cached by array stays cached).
   *
   * @param items - a list, never mutated after it was built
   * @param view - what the items are, the caller, and the name of an item
   */
  filter<T extends object>(items: readonly T[], view: ListView<T>): readonly T[] {
    const { caller } = view;
    const live = this.#live;
    if (live === undefined || items.length === 0) return items;
    let byCaller = this.#lists.get(items);
    const cached = byCaller?.get(caller);
    if (cached !== undefined) return cached as readonly T[];
    const filtered = keepAllowed(live.policy, items, view);
    if (byCaller === undefined) {
      byCaller = new Map();
      this.#lists.set(items, byCaller);
    }
    if (byCaller.size >= MAX_CACHED_CALLERS) byCaller.clear();
    byCaller.set(caller, filtered);
    return filtered;
  }

  #refused(refusal: PolicyRefusal): void {
    try {
      this.#onRefusal?.(refusal);
    } catch {
      // metrics must not break a request
    }
    const logger = this.#logger;
    if (logger === undefined) return;
    const key = `${refusal.reason}\0${refusal.caller}\0${refusal.name}`;
    const now = this.#now();
    const last = this.#logged.get(key);
    if (last !== undefined && now - last < this.#logIntervalMs) return;
    this.#logged.delete(key);
    if (this.#logged.size >= MAX_LOG_KEYS) {
      const oldest = this.#logged.keys().next().value;
      if (oldest !== undefined) this.#logged.delete(oldest);
    }
    this.#logged.set(key, now);
    const { reason, kind, name, caller, retryAfterMs } = refusal;
    logger.info(
      { policy: reason, kind, name, caller, ...(retryAfterMs !== undefined && { retryAfterMs }) },
      reason === 'denied'
        ? 'policy: a request for a denied name was refused (logged once a minute per caller and name)'
        : 'policy: a call over its rate limit was refused (logged once a minute per caller and tool)',
    );
  }
}

/** The items `caller` may see, in order; the input array itself when nothing is removed. */
function keepAllowed<T>(policy: Policy, items: readonly T[], view: ListView<T>): readonly T[] {
  const { kind, caller, nameOf } = view;
  for (let i = 0; i < items.length; i++) {
    if (policy.allows(kind, nameOf(items[i] as T), caller)) continue;
    const out = items.slice(0, i);
    for (let j = i + 1; j < items.length; j++)
      if (policy.allows(kind, nameOf(items[j] as T), caller)) out.push(items[j] as T);
    return out;
  }
  return items;
}

/** The default caller: the verified OAuth client id, else `anonymous` (P1). */
function defaultCallerOf(ctx: ServerContext): Caller {
  const clientId = ctx.http?.authInfo?.clientId;
  return typeof clientId === 'string' && clientId !== '' ? clientId : ANONYMOUS;
}

/**
 * Creates the policy enforcement point shared by a host's aggregator, per-server proxies and hub (DESIGN.md P3).
 *
 * @param options - the starting policy, how to identify callers, and where refusals are counted and logged
 * @returns the gate; pass it as `policy` to `createAggregator`, `createProxyServer` and `createHub`
 *
 * @example Hot reload
 * ```ts
 * const gate = createPolicyGate({ policy: compilePolicy(config.policies), onRefusal: (r) => metrics.refused(r) });
 * const aggregator = createAggregator({ registry, policy: gate });
 * // on reload, after the new section compiled:
 * gate.set(compilePolicy(next.policies));
 * ```
 */
export function createPolicyGate(options?: PolicyGateOptions): PolicyGate {
  return new PolicyGate(options);
}
