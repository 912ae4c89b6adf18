/**
 * The persisted state (`state.json`, DESIGN.md G12): registered clients, approvals (grants), refresh-token
 * families and access-token revocation markers. Only hashes of secrets are stored.
 *
 * @module
 */

/** The registered-client authentication methods mcppipe supports. */
export type ClientAuthMethod = 'none' | 'client_secret_post' | 'client_secret_basic';

/** One client registered through RFC 7591 dynamic client registration. */
export interface ClientRecord {
  client_id: string;
  /** SHA-256 of the client secret (confidential clients only). */
  client_secret_hash?: string;
  /** Epoch seconds. */
  client_id_issued_at: number;
  redirect_uris: string[];
  token_endpoint_auth_method: ClientAuthMethod;
  grant_types: string[];
  response_types: string[];
  client_name?: string;
  client_uri?: string;
  software_id?: string;
  software_version?: string;
  application_type?: string;
}

/** The owner's approval of one client: which resources and scopes it may get tokens for. */
export interface GrantRecord {
  clientId: string;
  resources: string[];
  scopes: string[];
  /** Epoch milliseconds of the last approval. */
  approvedAt: number;
}

/** A refresh-token family: one login's chain of rotated refresh tokens. */
export interface FamilyRecord {
  id: string;
  /** SHA-256 of the family handle (the first part of each refresh token of the family). */
  handleHash: string;
  clientId: string;
  sub: string;
  scopes: string[];
  resource: string;
  /** Epoch milliseconds. */
  createdAt: number;
  /** SHA-256 of the current refresh token. */
  currentHash: string;
  /** SHA-256 of the immediate predecessor (the only token the grace window applies to). */
  previousHash?: string;
  /** Epoch milliseconds of the last rotation. */
  rotatedAt?: number;
  /**
   * Random key of the last rotation (base64url, 256 bits), persisted with it: the current refresh token's
   * secret is `HMAC-SHA256(graceKey, predecessor)`, so a retry of the predecessor within the grace window
   * gets the same successor even after a restart (B6), while the state file alone still yields no token.
   */
  graceKey?: string;
  /** Epoch milliseconds after which the current refresh token is refused (idle or absolute limit). */
  refreshExpiresAt: number;
  /** Epoch seconds of the latest `exp` of any access token issued from this family. */
  accessExpiresAt: number;
  status: 'active' | 'revoked';
  revokedAt?: number;
  revokedReason?: string;
}

/** The whole persisted state. */
export interface OAuthState {
  version: 1;
  clients: Record<string, ClientRecord>;
  grants: Record<string, GrantRecord>;
  families: Record<string, FamilyRecord>;
  /** Revoked access-token `jti` → its `exp` (epoch seconds); kept until it would have expired anyway. */
  revokedTokens: Record<string, number>;
}

/**
 * A new, empty state.
 *
 * @returns an empty state
 */
export function emptyState(): OAuthState {
  return { version: 1, clients: {}, grants: {}, families: {}, revokedTokens: {} };
}

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isStrArr = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isStr = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

function validClient(c: unknown, key: string): boolean {
  return (
    isObj(c) &&
    c['client_id'] === key &&
    isNum(c['client_id_issued_at']) &&
    isStrArr(c['redirect_uris']) &&
    isStrArr(c['grant_types']) &&
    isStrArr(c['response_types']) &&
    ['none', 'client_secret_post', 'client_secret_basic'].includes(
      c['token_endpoint_auth_method'] as string,
    ) &&
    (c['token_endpoint_auth_method'] === 'none' || isStr(c['client_secret_hash']))
  );
}

function validGrant(g: unknown, key: string): boolean {
  return (
    isObj(g) &&
    g['clientId'] === key &&
    isStrArr(g['resources']) &&
    isStrArr(g['scopes']) &&
    isNum(g['approvedAt'])
  );
}

function validFamily(f: unknown, key: string): boolean {
  return (
    isObj(f) &&
    f['id'] === key &&
    isStr(f['handleHash']) &&
    isStr(f['clientId']) &&
    isStr(f['sub']) &&
    isStrArr(f['scopes']) &&
    isStr(f['resource']) &&
    isStr(f['currentHash']) &&
    isNum(f['createdAt']) &&
    isNum(f['refreshExpiresAt']) &&
    isNum(f['accessExpiresAt']) &&
    (f['graceKey'] === undefined || isStr(f['graceKey'])) &&
    (f['status'] === 'active' || f['status'] === 'revoked')
  );
}

/**
 * Checks that parsed JSON is a state this version can use. Anything else counts as corrupt.
 *
 * @param value - the parsed content of `state.json`
 * @returns the state, or a reason it is not one
 */
export function parseState(value: unknown): { ok: true; state: OAuthState } | { ok: false; reason: string } {
  if (!isObj(value) || value['version'] !== 1) return { ok: false, reason: 'not a version-1 state object' };
  const { clients, grants, families, revokedTokens } = value;
  if (!isObj(clients) || !isObj(grants) || !isObj(families) || !isObj(revokedTokens)) {
    return { ok: false, reason: 'clients, grants, families or revokedTokens is missing' };
  }
  for (const [k, c] of Object.entries(clients))
    if (!validClient(c, k)) return { ok: false, reason: `client ${k}` };
  for (const [k, g] of Object.entries(grants))
    if (!validGrant(g, k)) return { ok: false, reason: `grant ${k}` };
  for (const [k, f] of Object.entries(families))
    if (!validFamily(f, k)) return { ok: false, reason: `family ${k}` };
  for (const [k, e] of Object.entries(revokedTokens))
    if (!isNum(e)) return { ok: false, reason: `revoked token ${k}` };
  return { ok: true, state: value as unknown as OAuthState };
}

/**
 * Removes expired entries in place: families whose refresh token and last access token have both expired
 * (revoked ones are kept as markers until their access tokens expire), revocation markers past their `exp`,
 * and clients that never completed an authorization within `unusedClientTtlMs`.
 *
 * @param state - the state to prune (mutated)
 * @param nowMs - the current time
 * @param unusedClientTtlMs - grace for clients without grant or family
 * @returns how many entries were removed
 */
export function pruneState(state: OAuthState, nowMs: number, unusedClientTtlMs: number): number {
  let removed = 0;
  const nowSec = Math.floor(nowMs / 1000);
  for (const [id, f] of Object.entries(state.families)) {
    const refreshDead = f.status === 'revoked' || f.refreshExpiresAt <= nowMs;
    if (refreshDead && f.accessExpiresAt < nowSec) {
      delete state.families[id];
      removed++;
    }
  }
  for (const [jti, exp] of Object.entries(state.revokedTokens)) {
    if (exp < nowSec) {
      delete state.revokedTokens[jti];
      removed++;
    }
  }
  const inUse = new Set(Object.values(state.families).map((f) => f.clientId));
  for (const [id, c] of Object.entries(state.clients)) {
    if (state.grants[id] || inUse.has(id)) continue;
    if (c.client_id_issued_at * 1000 + unusedClientTtlMs < nowMs) {
      delete state.clients[id];
      removed++;
    }
  }
  for (const id of Object.keys(state.grants)) {
    if (!state.clients[id]) {
      delete state.grants[id];
      removed++;
    }
  }
  return removed;
}
