/** What a rule applies to: tools and prompts match their exposed (prefixed) name, resources their upstream name. */
export type PolicyKind = 'tool' | 'prompt' | 'resource';

/** What a rule (or the default) decides. */
export type PolicyAction = 'allow' | 'deny';

/**
 * Who is calling: an OAuth client id, an API-key name, or {@link ANONYMOUS}. The host picks the identity; the
 * policy only compares strings.
 */
export type Caller = string;

/** One policy rule; the first rule that matches a request decides it (P1). */
export interface PolicyRule {
  /** A glob on the exposed name (`filesystem__write_*`, `github__*`); for `kind: 'resource'`, on the upstream name. `*` is any run of characters, `?` one character. */
  match: string;
  /** The callers the rule applies to (client ids, key names, `anonymous`, or `*`). Default: everyone. */
  callers?: readonly Caller[];
  /** Restricts the rule to one kind. Default: every kind. */
  kind?: PolicyKind;
  /** What happens when the rule matches. */
  action: PolicyAction;
}

/** How a rate limit keys its buckets (P2). */
export type LimitScope = 'caller' | 'tool' | 'caller+tool' | 'all';

/** One token-bucket rate limit. Every limit that matches a call applies. */
export interface LimitConfig {
  /**
   * `caller`: one bucket per caller; `tool`: one per exposed tool (shared by all callers); `caller+tool`: one per
   * pair; `all`: one bucket for every matching call (all tools and callers together, e.g. a relay tunnel's limit).
   */
  scope: LimitScope;
  /** A glob on the exposed tool name; calls that do not match are not counted. Default: `*`. */
  match?: string;
  /** The refill rate, `<n>/<s|min|h>` (`"10/min"`, `"5/s"`, `"100/h"`). */
  rate: string;
  /** The bucket size: how many calls may come at once. Integer ≥ 1. Default: the `n` of `rate`. */
  burst?: number;
}

/** The `policies` configuration section: rules, a default action and rate limits. */
export interface PolicyConfig {
  /** The action when no rule matches. Default: `allow`. */
  default?: PolicyAction;
  /** Rules in order; the first match wins. Default: none. */
  rules?: readonly PolicyRule[];
  /** Rate limits; all matching limits apply. Default: none. */
  limits?: readonly LimitConfig[];
}

/** A limit as reported in a refusal: the configured values, never any caller identity. */
export interface LimitInfo {
  scope: LimitScope;
  match: string;
  rate: string;
  burst: number;
}

/** The outcome of {@link Limiter.take}. */
export type LimitResult = { ok: true } | { ok: false; retryAfterMs: number; limit: LimitInfo };
