/**
 * A tunnel's settings (issue 19 Settings; the contract's `GET|PUT /api/tunnels/:id/settings`): the shape, the
 * defaults read from the CLI's connect metadata, and the validation of a partial `PUT` body. Checks reuse the
 * homes of each rule: CIDRs through the relay's `parsePolicy`, globs through `@mcppipe/policy`.
 *
 * @module
 */
import { validatePolicyConfig } from '@mcppipe/policy';
import { relayPolicyConfig } from '@mcppipe/aggregator';
import { parsePolicy } from '../tunnel/policy.js';
import type { TunnelAuthMode } from '../tunnel/policy.js';

/** The settings of one tunnel, as the API shows them. */
export interface TunnelSettings {
  auth: TunnelAuthMode;
  /** CIDRs (or single addresses); empty: every address. */
  allow: string[];
  /** Globs on exposed names (`faults__*`); deny wins; a non-empty allow hides everything else. */
  policies: { deny: string[]; allow: string[] };
  /** `callsPerMinute`: `tools/call` requests per minute for the whole tunnel; null: unlimited. */
  limits: { callsPerMinute: number | null };
  capture: { values: boolean };
  holdChangedTools: boolean;
}

/** What an owner stored: only the fields they set (the rest still follows the CLI's connect metadata). */
export type StoredSettings = Partial<TunnelSettings>;

/**
 * The settings a tunnel has when the owner stored none: auth, allowlist and hold-changed-tools from its connect
 * metadata.
 *
 * @param metadata - the tunnel's connect metadata (empty for a tunnel not connected now)
 * @returns the defaults
 */
export function settingsFromMetadata(metadata: Readonly<Record<string, string>>): TunnelSettings {
  const auth = metadata['auth'];
  return {
    auth: auth === 'api-key' || auth === 'none' ? auth : 'oauth',
    allow: (metadata['allow'] ?? '').split(/[\s,]+/).filter(Boolean),
    policies: { deny: [], allow: [] },
    limits: { callsPerMinute: null },
    capture: { values: false },
    holdChangedTools: metadata['hold'] === '1', // `mcppipe up --hold-changed-tools`
  };
}

/** The effective settings: the stored fields over the metadata defaults. */
export function effectiveSettings(
  metadata: Readonly<Record<string, string>>,
  stored: StoredSettings | undefined,
): TunnelSettings {
  return { ...settingsFromMetadata(metadata), ...stored };
}

const KEYS = ['auth', 'allow', 'policies', 'limits', 'capture', 'holdChangedTools'];
const MAX_ITEMS = 256;
const MAX_CALLS_PER_MINUTE = 1_000_000;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): v is string[] =>
  Array.isArray(v) && v.length <= MAX_ITEMS && v.every((s) => typeof s === 'string' && s.length > 0);

function globs(field: string, v: unknown): string[] | string {
  if (!strings(v)) return `${field}: must be an array of globs (at most ${MAX_ITEMS}), e.g. ["faults__*"]`;
  const errors = validatePolicyConfig(relayPolicyConfig({ deny: v, allow: [] }));
  return errors.length > 0 ? `${field}: ${errors[0]}` : v;
}

/**
 * Validates a partial `PUT` body and merges it into what is stored; a field set to `null` is removed (it follows the
 * CLI's connect metadata, or the default, again).
 *
 * @param body - the request body
 * @param stored - the fields stored so far
 * @param zeroKnowledge - whether the tunnel is zero-knowledge (the relay never reads its traffic: no policies,
 *   limits or capture of values)
 * @returns the new stored fields, or a message naming the field and what to change
 */
export function mergeSettings(
  body: unknown,
  stored: StoredSettings,
  zeroKnowledge: boolean,
): StoredSettings | string {
  if (!isObj(body)) return 'the body must be a JSON object with some of: ' + KEYS.join(', ');
  const unknown = Object.keys(body).find((k) => !KEYS.includes(k));
  if (unknown !== undefined) return `${unknown}: unknown field (allowed: ${KEYS.join(', ')})`;
  const next: StoredSettings = { ...stored };
  for (const k of KEYS) if (body[k] === null) delete next[k as keyof StoredSettings];
  const { auth, allow, policies, limits, capture, holdChangedTools } = body;
  if (auth !== undefined && auth !== null) {
    if (auth !== 'oauth' && auth !== 'api-key' && auth !== 'none')
      return `auth: must be "oauth", "api-key" or "none", got ${JSON.stringify(auth)}`;
    next.auth = auth;
  }
  if (allow !== undefined && allow !== null) {
    if (!strings(allow)) return 'allow: must be an array of CIDRs, e.g. ["10.0.0.0/8", "127.0.0.1"]';
    const parsed = parsePolicy({ allow: allow.join(',') });
    if (typeof parsed === 'string') return parsed;
    next.allow = allow;
  }
  if (policies !== undefined && policies !== null) {
    if (!isObj(policies) || Object.keys(policies).some((k) => k !== 'deny' && k !== 'allow'))
      return 'policies: must be { deny?: [glob], allow?: [glob] }';
    const deny = globs('policies.deny', policies['deny'] ?? next.policies?.deny ?? []);
    if (typeof deny === 'string') return deny;
    const allowed = globs('policies.allow', policies['allow'] ?? next.policies?.allow ?? []);
    if (typeof allowed === 'string') return allowed;
    next.policies = { deny, allow: allowed };
  }
  if (limits !== undefined && limits !== null) {
    const n = isObj(limits) ? limits['callsPerMinute'] : undefined;
    if (!isObj(limits) || Object.keys(limits).some((k) => k !== 'callsPerMinute'))
      return 'limits: must be { callsPerMinute: number | null }';
    if (n !== null && !(Number.isInteger(n) && (n as number) >= 1 && (n as number) <= MAX_CALLS_PER_MINUTE))
      return `limits.callsPerMinute: must be an integer from 1 to ${MAX_CALLS_PER_MINUTE}, or null for no limit, got ${JSON.stringify(n)}`;
    next.limits = { callsPerMinute: n as number | null };
  }
  if (capture !== undefined && capture !== null) {
    if (!isObj(capture) || typeof capture['values'] !== 'boolean' || Object.keys(capture).length !== 1)
      return 'capture: must be { values: boolean }';
    next.capture = { values: capture['values'] };
  }
  if (holdChangedTools !== undefined && holdChangedTools !== null) {
    if (typeof holdChangedTools !== 'boolean') return 'holdChangedTools: must be a boolean';
    next.holdChangedTools = holdChangedTools;
  }
  if (zeroKnowledge) {
    const reads =
      (next.policies?.deny.length ?? 0) + (next.policies?.allow.length ?? 0) > 0 ||
      (next.limits?.callsPerMinute ?? null) !== null ||
      next.capture?.values === true;
    if (reads)
      return 'policies, limits and capture of values need the relay to read the traffic: this tunnel is zero-knowledge (reconnect it without --zero-knowledge to use them)';
  }
  return next;
}
