import { MAX_MEMO_DECISIONS } from './defaults.js';
import { invalidPolicyError } from './errors.js';
import { compileGlob, literalPrefix } from './glob.js';
import type { NameMatcher } from './glob.js';
import { createLimiter } from './limiter.js';
import type { Limiter, LimiterOptions } from './limiter.js';
import type { BucketStore, SyncBucketStore } from './store.js';
import type { Caller, LimitResult, PolicyConfig, PolicyKind } from './types.js';
import { validatePolicyConfig } from './validate.js';

/** The caller id of requests without credentials (DESIGN.md P1). */
export const ANONYMOUS = 'anonymous';

/** Why {@link Policy.decide} decided what it did. */
export interface PolicyDecision {
  /** Whether the request may see or call the name. */
  allowed: boolean;
  /** The index in `rules` of the rule that decided, or `undefined` when the default did. */
  rule: number | undefined;
}

/** Options of {@link Policy.limiter}: as {@link LimiterOptions}, without `limits` (they come from the policy). */
export type PolicyLimiterOptions<S extends BucketStore = SyncBucketStore> = Omit<LimiterOptions<S>, 'limits'>;

/** A compiled policy: the rules of one configuration, compiled once. Immutable; compile again on reload. */
export interface Policy {
  /** The configuration it was compiled from (frozen copy). */
  readonly config: Readonly<PolicyConfig>;
  /** Whether `caller` may see and call `name` (an exposed tool/prompt name, or a resource's upstream name). */
  allows(kind: PolicyKind, name: string, caller: Caller): boolean;
  /** As {@link Policy.allows}, also naming the rule that decided (for logs and audits). */
  decide(kind: PolicyKind, name: string, caller: Caller): PolicyDecision;
  /** The tools `caller` may see: the same objects, in order; the input array itself when nothing is removed. */
  filterTools<T extends { name: string }>(tools: readonly T[], caller: Caller): readonly T[];
  /** The prompts `caller` may see, as {@link Policy.filterTools}. */
  filterPrompts<T extends { name: string }>(prompts: readonly T[], caller: Caller): readonly T[];
  /** The resources (or templates) `caller` may see; `upstreamOf` names each item's upstream. */
  filterResources<T>(items: readonly T[], caller: Caller, upstreamOf: (item: T) => string): readonly T[];
  /** A rate limiter over the policy's `limits`; one per process (its store holds the buckets). */
  limiter(options?: PolicyLimiterOptions<SyncBucketStore>): Limiter<LimitResult>;
  /** As above, over a store that may answer asynchronously (Redis). */
  limiter(
    options: PolicyLimiterOptions<BucketStore> & { store: BucketStore },
  ): Limiter<LimitResult | Promise<LimitResult>>;
}

interface CompiledRule {
  index: number;
  match: NameMatcher;
  /** The only upstream whose names the rule can match, when its glob says (`github__*` → `github`). */
  upstream: string | undefined;
  callers: ReadonlySet<string> | undefined;
  allow: boolean;
}

/**
 * The rules of one kind, indexed by upstream: a rule whose literal prefix contains `__` can only match names of
 * that upstream (upstream names never contain `__`, A6), so it is only tried for them; every other rule is
 * tried for every name. Each list keeps the configured order.
 */
interface RuleIndex {
  generic: CompiledRule[];
  byUpstream: Map<string, CompiledRule[]>;
}

function upstreamOfGlob(glob: string): string | undefined {
  const prefix = literalPrefix(glob);
  const i = prefix.indexOf('__');
  return i > 0 ? prefix.slice(0, i) : undefined;
}

function indexRules(rules: readonly CompiledRule[]): RuleIndex {
  const generic: CompiledRule[] = [];
  const byUpstream = new Map<string, CompiledRule[]>();
  for (const rule of rules) {
    if (rule.upstream === undefined) {
      generic.push(rule);
      for (const list of byUpstream.values()) list.push(rule);
    } else {
      const list = byUpstream.get(rule.upstream) ?? [...generic];
      list.push(rule);
      byUpstream.set(rule.upstream, list);
    }
  }
  return { generic, byUpstream };
}

function compileRules(config: PolicyConfig): Record<PolicyKind, RuleIndex> {
  const byKind: Record<PolicyKind, CompiledRule[]> = { tool: [], prompt: [], resource: [] };
  (config.rules ?? []).forEach((rule, index) => {
    const callers =
      rule.callers === undefined || rule.callers.includes('*') ? undefined : new Set(rule.callers);
    const compiled: CompiledRule = {
      index,
      match: compileGlob(rule.match),
      upstream: upstreamOfGlob(rule.match),
      callers,
      allow: rule.action === 'allow',
    };
    for (const kind of ['tool', 'prompt', 'resource'] as const)
      if (rule.kind === undefined || rule.kind === kind) byKind[kind].push(compiled);
  });
  return {
    tool: indexRules(byKind.tool),
    prompt: indexRules(byKind.prompt),
    resource: indexRules(byKind.resource),
  };
}

function candidates(index: RuleIndex, name: string): readonly CompiledRule[] {
  const i = name.indexOf('__');
  return i > 0 ? (index.byUpstream.get(name.slice(0, i)) ?? index.generic) : index.generic;
}

function firstMatch(rules: readonly CompiledRule[], name: string, caller: Caller): CompiledRule | undefined {
  for (const rule of rules) {
    if (rule.callers !== undefined && !rule.callers.has(caller)) continue;
    if (rule.match(name)) return rule;
  }
  return undefined;
}

function filterBy<T>(items: readonly T[], keep: (item: T) => boolean): readonly T[] {
  for (let i = 0; i < items.length; i++) {
    if (keep(items[i] as T)) continue;
    const out = items.slice(0, i);
    for (let j = i + 1; j < items.length; j++) if (keep(items[j] as T)) out.push(items[j] as T);
    return out;
  }
  return items;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/**
 * Compiles a `policies` configuration once: every glob becomes a predicate, rules are grouped per kind. Rules are
 * evaluated in order and the first match wins; when none matches, `default` decides (P1).
 *
 * @param config - the `policies` section (`{ default?, rules?, limits? }`), e.g. straight from JSON
 * @returns the compiled policy
 * @throws McpPipeError `MCPP_POLICY_INVALID` when the configuration has problems; the message starts with the
 *   first problem's dot-path (`rules[2].match: …`) and `data.errors` lists them all
 *
 * @example Read-only filesystem
 * ```ts
 * const policy = compilePolicy({ rules: [{ match: 'filesystem__write_*', action: 'deny' }] });
 * policy.allows('tool', 'filesystem__write_file', 'anonymous'); // false
 * ```
 */
export function compilePolicy(config: unknown): Policy {
  const errors = validatePolicyConfig(config);
  if (errors.length > 0) throw invalidPolicyError(errors);
  const frozen = deepFreeze(structuredClone(config) as PolicyConfig);
  const byKind = compileRules(frozen);
  const defaultAllow = (frozen.default ?? 'allow') === 'allow';
  const evaluate = (kind: PolicyKind, name: string, caller: Caller): boolean => {
    const rule = firstMatch(candidates(byKind[kind], name), name, caller);
    return rule === undefined ? defaultAllow : rule.allow;
  };
  // Decisions are pure, so the hot path remembers them (bounded: all forgotten at MAX_MEMO_DECISIONS).
  const memo: Record<PolicyKind, Map<string, Map<Caller, boolean>>> = {
    tool: new Map(),
    prompt: new Map(),
    resource: new Map(),
  };
  let remembered = 0;
  const allows = (kind: PolicyKind, name: string, caller: Caller): boolean => {
    let byCaller = memo[kind].get(name);
    const known = byCaller?.get(caller);
    if (known !== undefined) return known;
    const allowed = evaluate(kind, name, caller);
    if (remembered >= MAX_MEMO_DECISIONS) {
      for (const map of Object.values(memo)) map.clear();
      remembered = 0;
      byCaller = undefined;
    }
    if (byCaller === undefined) memo[kind].set(name, (byCaller = new Map()));
    byCaller.set(caller, allowed);
    remembered++;
    return allowed;
  };
  return {
    config: frozen,
    allows,
    decide(kind, name, caller) {
      const rule = firstMatch(candidates(byKind[kind], name), name, caller);
      return { allowed: rule === undefined ? defaultAllow : rule.allow, rule: rule?.index };
    },
    filterTools: (tools, caller) => filterBy(tools, (t) => allows('tool', t.name, caller)),
    filterPrompts: (prompts, caller) => filterBy(prompts, (p) => allows('prompt', p.name, caller)),
    filterResources: (items, caller, upstreamOf) =>
      filterBy(items, (r) => allows('resource', upstreamOf(r), caller)),
    limiter: ((options: PolicyLimiterOptions<BucketStore> = {}) =>
      createLimiter({ ...options, limits: frozen.limits ?? [] } as LimiterOptions<BucketStore> & {
        store: BucketStore;
      })) as Policy['limiter'],
  };
}
