import { MAX_PENDING_ENTRIES } from './defaults.js';
import { oauthError } from './errors.js';
import { isPkceValue } from './params.js';
import { hashSecret, randomSecret, s256, safeEqual } from './secrets.js';

/** What an authorization code is bound to. */
export interface CodeBinding {
  clientId: string;
  /** The `redirect_uri` exactly as sent to `/authorize` (with its loopback port). */
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  scopes: string[];
}

interface CodeEntry extends CodeBinding {
  expiresAt: number;
  used: boolean;
  /** The family the first redemption started (revoked when the code is replayed). */
  familyId?: string;
}

/** The outcome of {@link CodeStore.redeem}. */
export type RedeemResult =
  | { status: 'ok'; binding: CodeBinding; markIssued: (familyId: string) => void }
  | { status: 'replayed'; familyId: string | undefined };

/**
 * Authorization codes, in memory only (a restart simply makes the user start over). Codes are 256-bit
 * random, stored by hash, single use, and checked and consumed synchronously so that concurrent
 * redemptions of one code yield exactly one success.
 */
export class CodeStore {
  private readonly codes = new Map<string, CodeEntry>();

  constructor(
    private readonly clock: () => number,
    private readonly ttlMs: number,
  ) {}

  /**
   * Issues a code.
   *
   * @param binding - what the code is bound to
   * @returns the code (given to the client once)
   */
  issue(binding: CodeBinding): string {
    const now = this.clock();
    for (const [h, e] of this.codes)
      if (e.expiresAt + this.ttlMs < now || this.codes.size > MAX_PENDING_ENTRIES) this.codes.delete(h);
    const code = randomSecret(32);
    this.codes.set(hashSecret(code), { ...binding, expiresAt: now + this.ttlMs, used: false });
    return code;
  }

  /**
   * Redeems a code: client, redirect URI, PKCE verifier and expiry must all match. A wrong verifier or
   * redirect URI fails without consuming the code or revoking anything (OAuth 2.1 "Reuse of Authorization
   * Codes": only an otherwise valid replay revokes). An otherwise valid second redemption reports
   * `replayed` with the family the first one started.
   *
   * @param code - the code
   * @param presented - client id, redirect URI and verifier of the token request
   * @returns the binding, or `replayed`
   * @throws McpPipeError `MCPP_OAUTH_PROTOCOL` `invalid_grant` / `invalid_request`
   */
  redeem(
    code: string,
    presented: {
      clientId: string;
      redirectUri: string | undefined;
      verifier: string | undefined;
      /** The canonical `resource` of the token request, if it named one. */
      resource: string | undefined;
    },
  ): RedeemResult {
    const entry = this.codes.get(hashSecret(code));
    if (!entry || entry.clientId !== presented.clientId)
      throw oauthError('invalid_grant', 'unknown authorization code');
    if (presented.verifier === undefined) throw oauthError('invalid_request', 'code_verifier is required');
    if (!isPkceValue(presented.verifier)) throw oauthError('invalid_grant', 'code_verifier is malformed');
    if (!safeEqual(s256(presented.verifier), entry.codeChallenge))
      throw oauthError('invalid_grant', 'code_verifier does not match');
    if (presented.redirectUri !== entry.redirectUri)
      throw oauthError('invalid_grant', 'redirect_uri does not match');
    if (presented.resource !== undefined && presented.resource !== entry.resource) {
      throw oauthError('invalid_target', 'resource differs from the authorization request');
    }
    if (entry.used) return { status: 'replayed', familyId: entry.familyId };
    if (entry.expiresAt <= this.clock()) throw oauthError('invalid_grant', 'the authorization code expired');
    entry.used = true;
    const { clientId, redirectUri, codeChallenge, resource, scopes } = entry;
    return {
      status: 'ok',
      binding: { clientId, redirectUri, codeChallenge, resource, scopes },
      markIssued: (familyId) => {
        entry.familyId = familyId;
      },
    };
  }
}
